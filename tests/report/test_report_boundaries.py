"""``lanes report`` writes inside the project and never waits on a FIFO."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import pytest

from lanes.cli import main
from lanes.report.render import SUMMARY_LIMIT, build_report
from tests.report.report_fixtures import write_lane

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_RUN_ID", "LANES_GROUP_ID", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "pyproject.toml").write_text(
        '[project]\nname = "p"\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path / "project")


def test_a_symlinked_envelope_dir_is_refused_and_nothing_is_written_outside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    write_lane(outside, "alpha", "pass")  # outside/envelopes/alpha.json
    (tmp_path / "project" / "envelopes").symlink_to(outside / "envelopes")
    before = sorted(p.name for p in (outside / "envelopes").iterdir())
    assert main(["report"]) == 2
    err = capsys.readouterr().err
    assert "envelopes" in err
    assert "outside the project" in err
    assert "hint: " in err
    assert sorted(p.name for p in (outside / "envelopes").iterdir()) == before


@pytest.mark.timeout(60)
def test_a_fifo_step_summary_is_refused_without_blocking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_lane(tmp_path / "project", "alpha", "pass")
    fifo = tmp_path / "summary-fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(fifo))
    assert main(["report"]) == 3
    err = capsys.readouterr().err
    assert "GITHUB_STEP_SUMMARY" in err
    assert "not a regular file" in err
    assert "hint: " in err


def test_a_regular_step_summary_is_appended_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_lane(tmp_path / "project", "alpha", "pass")
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["report"]) == 0
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n")
    assert "alpha" in text


def test_one_envelope_with_a_huge_branch_cannot_empty_the_overview(tmp_path: Path) -> None:
    # a 1 MB subject.branch pushed the overview past GitHub's limit,
    # the summary was cut inside it and five crashed lanes went unseen.
    root = tmp_path / "project"
    for index in range(5):
        write_lane(root, f"crashed{index}", "error")
    path = write_lane(root, "alpha", "pass")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["subject"] = {"commit": "a" * 40, "dirty": False, "branch": "b" * 1_000_000}
    path.write_text(json.dumps(document), encoding="utf-8")
    directory = root / "envelopes"
    report = build_report(
        directory, out_md=directory / "summary.md", out_html=directory / "index.html"
    )
    assert len(report.markdown.encode()) <= SUMMARY_LIMIT
    overview = report.markdown.split("\n## ", 1)[0]
    for name in ("alpha", *(f"crashed{index}" for index in range(5))):
        assert f"`{name}`" in overview, name
    assert "b" * 1000 not in report.markdown
    assert "Truncated" not in report.markdown  # bounded, the summary fits whole
