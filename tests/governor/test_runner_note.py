"""The hook says when the governor's pytest plugin is not active here.

``lanes governor status`` / ``install`` and the plugin itself record what they
found in ``<state>/runner-plugin``; the hook reads that one line on a pytest
command it lets through and, when it says ``inactive``, adds one line of
advice: the hook is pytest's only gate in this project.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from lanes.cli import main
from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.plugin_note import PluginNote, note_path, read_note, write_note
from tests.governor.runner_helpers import clear_agent, write_project
from tests.support.hooks import advice, payload, run_hook

pytest_plugins = ["pytester"]

ENV = OSEnvironment()


def _state(root: Path) -> str:
    return str(root / ".git" / "lanes")


def _make_state(root: Path) -> None:
    (root / ".git" / "lanes").mkdir(parents=True, exist_ok=True)


def _note_file(root: Path) -> Path:
    return Path(note_path(_state(root)))


def _pre(root: Path, xdg: Path, command: str) -> str | None:
    proc = run_hook(payload(command, cwd=root, event="PreToolUse"), xdg=xdg)
    return advice(proc)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "repo")


def _record(root: Path, *, active: bool, reason: str = "") -> None:
    _make_state(root)
    note = PluginNote(active=active, ts=ENV.now(), source="status", reason=reason)
    write_note(ENV, _state(root), note)


def test_an_inactive_record_adds_one_line_to_an_allowed_pytest_command(
    project: Path, tmp_path: Path
) -> None:
    _record(project, active=False, reason="pytest.ini says -p no:lanes.governor")
    text = _pre(project, tmp_path / "xdg", "pytest tests/unit/test_unit0.py -q")
    assert text is not None
    assert "pytest plugin is not active in this project's test environment" in text
    assert "(pytest.ini says -p no:lanes.governor)" in text
    assert "the hook is the only gate for pytest" in text
    assert "`lanes governor install`" in text
    assert "\n" not in text


def test_no_record_or_an_active_one_keeps_the_hook_silent(project: Path, tmp_path: Path) -> None:
    command = "pytest tests/unit/test_unit0.py -q"
    assert _pre(project, tmp_path / "xdg", command) is None
    _record(project, active=True)
    assert _pre(project, tmp_path / "xdg", command) is None


def test_only_pytest_commands_are_told(project: Path, tmp_path: Path) -> None:
    _record(project, active=False, reason="lanekit is not installed for .venv/")
    assert _pre(project, tmp_path / "xdg", "cargo test some_test") is None


def test_a_blocked_command_gets_its_reason_not_the_advice(project: Path, tmp_path: Path) -> None:
    _record(project, active=False, reason="lanekit is not installed for .venv/")
    proc = run_hook(payload("pytest", cwd=project, event="PreToolUse"), xdg=tmp_path / "xdg")
    assert proc.returncode == 2
    assert proc.stdout == ""


def test_a_damaged_record_says_nothing(project: Path, tmp_path: Path) -> None:
    _make_state(project)
    _note_file(project).write_text("inactive soon status\n", encoding="utf-8")
    assert read_note(ENV, _state(project)) is None
    assert _pre(project, tmp_path / "xdg", "pytest tests/unit/test_unit0.py -q") is None


def test_the_note_round_trips() -> None:
    note = PluginNote(active=False, ts=1_800_000_000.4, source="install", reason="a\nb  c")
    again = PluginNote.parse(note.line())
    assert again is not None
    assert (again.active, again.ts, again.source, again.reason) == (
        False,
        1_800_000_000.0,
        "install",
        "a b c",
    )


def test_status_records_what_it_found_and_the_hook_tells_it(
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (project / "pytest.ini").write_text("[pytest]\naddopts = -p no:lanes.governor\n")
    monkeypatch.chdir(project)
    clear_agent(monkeypatch, tmp_path / "xdg")
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    assert main(["governor", "status"]) == 0
    capsys.readouterr()
    note = read_note(ENV, _state(project))
    assert note is not None
    assert (note.active, note.source, note.reason) == (
        False,
        "status",
        "pytest.ini says -p no:lanes.governor",
    )
    text = _pre(project, tmp_path / "xdg", "pytest tests/unit/test_unit0.py -q")
    assert text is not None
    assert "pytest.ini says -p no:lanes.governor" in text


def test_install_records_an_active_plugin(
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # No .venv and no other pytest on PATH: this interpreter (which has
    # lanekit) is the project's pytest environment.
    clear_agent(monkeypatch, tmp_path / "xdg")
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
    _record(project, active=False, reason="stale")
    assert main(["governor", "install", "--root", str(project)]) == 0
    capsys.readouterr()
    note = read_note(ENV, _state(project))
    assert note is not None
    assert (note.active, note.source) == (True, "install")


def test_the_plugin_running_here_replaces_an_inactive_record(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clear_agent(monkeypatch, tmp_path / "xdg")
    root = write_project(pytester.path)
    _record(root, active=False, reason="lanekit is not installed for .venv/")
    monkeypatch.setenv("CLAUDECODE", "1")
    # pytest sets this for our own call phase; the inner run must not see it.
    os.environ.pop("PYTEST_CURRENT_TEST", None)
    result = pytester.runpytest("tests/unit/test_unit0.py")
    result.assert_outcomes(passed=3)
    note = read_note(ENV, _state(root))
    assert note is not None
    assert (note.active, note.source) == (True, "plugin")
    assert _pre(root, tmp_path / "xdg", "pytest tests/unit/test_unit0.py -q") is None


def test_a_fresh_active_record_is_read_not_rewritten(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clear_agent(monkeypatch, tmp_path / "xdg")
    root = write_project(pytester.path)
    _make_state(root)
    write_note(ENV, _state(root), PluginNote(active=True, ts=ENV.now() - 60, source="plugin"))
    before = _note_file(root).stat().st_mtime_ns
    monkeypatch.setenv("CLAUDECODE", "1")
    os.environ.pop("PYTEST_CURRENT_TEST", None)
    pytester.runpytest("tests/unit/test_unit0.py").assert_outcomes(passed=3)
    assert _note_file(root).stat().st_mtime_ns == before
