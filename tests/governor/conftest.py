"""Fixtures of the governor tests: a configured scratch project and the
per-user state directory a real ``lanes hook`` process writes to."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.governor.governor_helpers import Project

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """A committed repository with suites configured, the gate's state in ``.git/lanes``."""
    return Project(tmp_path / "repo")


@pytest.fixture
def in_project(project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """``project`` as a user's shell sees it: the working directory, no session
    or state-dir variables of the machine running the suite."""
    monkeypatch.chdir(project.root)
    for name in ("LANES_STATE_DIR", "CLAUDE_SESSION_ID", "CODEX_SESSION_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    return project


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$XDG_STATE_HOME`` for this test, with no economy knobs of the machine."""
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    for name in ("LANES_MAX_FULL", "LANES_ESCALATE_AT", "LANES_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    return state
