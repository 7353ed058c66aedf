"""``lanes governor record|unlock|status`` with hostile state paths: a directory or link where a state file belongs, a state
dir that is a file, state another user can write — typed errors with a hint,
never a traceback, never a write through a link."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from lanes.cli import main

if TYPE_CHECKING:
    from tests.governor.governor_helpers import Project

# The CLI reads the working directory and the environment: run it in the project.
pytestmark = pytest.mark.usefixtures("in_project")


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "\nhint: " in err
    return err


def test_record_into_a_directory_at_the_ledger_path_is_a_state_error(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    (Path(project.state) / "verify-ledger.json").mkdir()
    assert main(["governor", "record", "unit", "pass"]) == 2
    assert "verify-ledger.json': Is a directory" in _error(capsys)


def test_record_when_the_state_dir_is_a_file_is_a_state_error(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    Path(project.state).rmdir()
    Path(project.state).write_text("", encoding="utf-8")
    assert main(["governor", "record", "unit", "pass"]) == 2
    assert "cannot use the governor state path" in _error(capsys)


def test_record_never_writes_through_a_symlinked_ledger(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious", encoding="utf-8")
    (Path(project.state) / "verify-ledger.json").symlink_to(victim)
    assert main(["governor", "record", "unit", "pass"]) == 0
    capsys.readouterr()
    assert victim.read_text(encoding="utf-8") == "precious"


def test_record_refuses_a_state_dir_others_can_write(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    Path(project.state).chmod(0o777)
    assert main(["governor", "record", "unit", "pass"]) == 2
    assert "writable by other users" in _error(capsys)


def test_unlock_of_a_directory_at_the_lock_path_is_a_state_error(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.lock_path.mkdir()
    assert main(["governor", "unlock"]) == 2
    assert "test-run.lock': Is a directory" in _error(capsys)


def test_unlock_of_a_symlinked_lock_removes_the_link_only(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious", encoding="utf-8")
    project.lock_path.symlink_to(victim)
    assert main(["governor", "unlock"]) == 0
    assert "run lock (unreadable) removed" in capsys.readouterr().out
    assert victim.read_text(encoding="utf-8") == "precious"
    assert not project.lock_path.is_symlink()


def test_status_says_when_the_state_is_not_trusted(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    Path(project.state).chmod(0o777)
    assert main(["governor", "status"]) == 0
    assert "NOT TRUSTED" in capsys.readouterr().out
    assert main(["governor", "status", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert "writable by other users" in view["state_distrusted"]
