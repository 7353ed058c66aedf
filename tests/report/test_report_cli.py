"""``lanes report``: exit codes and options, through the real ``main``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lanes.cli import main
from tests.affected.recordings import record_once
from tests.report.report_fixtures import write_invalid, write_lane


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_RUN_ID", "LANES_GROUP_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def test_all_pass_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_lane(tmp_path, "alpha", "pass")
    assert main(["report"]) == 0
    out = capsys.readouterr().out
    assert "pass  alpha" in out
    assert (tmp_path / "envelopes" / "summary.md").is_file()
    assert (tmp_path / "envelopes" / "index.html").is_file()


@pytest.mark.parametrize("outcome", ["fail", "error", "no-verdict"])
def test_a_failed_or_crashed_lane_exits_1(tmp_path: Path, outcome: str) -> None:
    write_lane(tmp_path, "alpha", "pass")
    write_lane(tmp_path, "beta", outcome)
    assert main(["report"]) == 1


def test_an_invalid_envelope_exits_1(tmp_path: Path) -> None:
    write_lane(tmp_path, "alpha", "pass")
    write_invalid(tmp_path)
    assert main(["report"]) == 1


def test_no_lane_ran_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report"]) == 1
    assert "no lane ran" in capsys.readouterr().out
    assert "no lane ran" in (tmp_path / "envelopes" / "summary.md").read_text(encoding="utf-8")


def test_explicit_paths(tmp_path: Path) -> None:
    write_lane(tmp_path / "elsewhere", "alpha", "pass")
    code = main(
        [
            "report",
            "--dir",
            str(tmp_path / "elsewhere" / "envelopes"),
            "--out-md",
            str(tmp_path / "out" / "s.md"),
            "--out-html",
            str(tmp_path / "out" / "p.html"),
        ]
    )
    assert code == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["p.html", "s.md"]


def test_default_dir_follows_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.lanes]\nenvelope_dir = "out"\n', encoding="utf-8"
    )
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")  # found upward, like every config-reading command
    write_lane(tmp_path, "alpha", "fail")
    (tmp_path / "envelopes").rename(tmp_path / "out")
    assert main(["report"]) == 1
    assert (tmp_path / "out" / "summary.md").is_file()


def test_dir_that_is_a_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "f").write_text("", encoding="utf-8")
    assert main(["report", "--dir", "f"]) == 2
    err = capsys.readouterr().err
    assert "error: --dir 'f' is not a directory" in err
    assert "hint: " in err


def test_unwritable_output_is_a_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_lane(tmp_path, "alpha", "pass")
    (tmp_path / "blocker").write_text("", encoding="utf-8")
    assert main(["report", "--out-md", str(tmp_path / "blocker" / "s.md")]) == 3
    err = capsys.readouterr().err
    assert "error: cannot write the report to" in err
    assert "hint: choose a writable location with --out-md PATH" in err


@pytest.mark.integration
def test_console_script(tmp_path: Path) -> None:
    write_lane(tmp_path, "alpha", "fail")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "LANES_"))}
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("lanes")), "report"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert "fail  alpha" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_without_jinja2_the_fix_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `pip install lanekit` (no [lanes] extra) has no jinja2: a hint, not a traceback.
    monkeypatch.delitem(sys.modules, "lanes.report.render", raising=False)
    monkeypatch.setitem(sys.modules, "jinja2", None)  # makes `import jinja2` fail
    assert main(["report"]) == 2
    err = capsys.readouterr().err
    assert "error: `lanes report` needs jinja2, which is not installed" in err
    assert "hint: install the lane dependencies: python3 -m pip install 'lanekit[lanes]'" in err


@pytest.mark.integration
def test_the_affected_map_beside_the_envelopes_is_no_envelope(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    record_once(
        project,
        {
            "pyproject.toml": '[project]\nname = "rm"\nversion = "0"\n',
            ".gitignore": "envelopes/\n",
            "tests/test_one.py": "def test_one() -> None:\n    assert True\n",
        },
    )
    assert (project / "envelopes/affected-map.json").is_file()
    monkeypatch.chdir(project)
    write_lane(project, "alpha", "pass")
    capsys.readouterr()
    # Read as an envelope, the map failed the report as "invalid".
    assert main(["report"]) == 0
    assert "invalid" not in capsys.readouterr().out
