"""``lanes report`` writes inside the project and never waits on a FIFO (issue 26)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from lanes.cli import main
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
