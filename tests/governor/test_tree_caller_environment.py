"""The tree digest is the same whatever environment its caller runs in.

The hook records a PASS from the agent's shell and a CLI command checks it
from wherever it is run — a git hook (``pre-commit`` sets ``GIT_INDEX_FILE``;
in a linked worktree ``pre-commit`` and ``pre-push`` get ``GIT_DIR`` too), a
shell with ``GIT_WORK_TREE`` exported, a CI step. git reads those variables before ``-C``, so a digest computed under them
would describe another index, another repository or another work tree. And
when the digest cannot be had at all (no git on ``PATH``, not a work tree), the
governor fails open silently: its debug log is where a human reads why.
All in-process, against real repositories and a real git.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from lanes.governor.state.ledger import CLEAN
from lanes.governor.state.tree import start_tree_state, tree_state
from tests.governor.governor_helpers import make_repo
from tests.support.git import git

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def two_repos(tmp_path: Path) -> tuple[Path, Path]:
    """A dirty project and a differently dirty repository beside it."""
    repo = make_repo(tmp_path / "repo")
    (repo / "tests/unit/test_a.py").write_text("def test_a():\n    assert 1\n", encoding="utf-8")
    (repo / "new_test.py").write_text("x = 1\n", encoding="utf-8")
    # Another history: none of the project's objects or refs are in it.
    other = make_repo(tmp_path / "other", pyproject="[project]\nname = 'other'\n")
    # The project's untracked file is staged there: in the other index it is
    # an added file, not an untracked one.
    (other / "new_test.py").write_text("x = 1\n", encoding="utf-8")
    git(other, "add", "new_test.py")
    (other / "tests/integ/test_a.py").write_text("raise SystemExit\n", encoding="utf-8")
    return repo, other


# What each variable names in the other repository: git would read that
# instead of the project's own.
FOREIGN = {
    "GIT_DIR": ".git",
    "GIT_WORK_TREE": ".",
    "GIT_INDEX_FILE": ".git/index",
    "GIT_COMMON_DIR": ".git",
    "GIT_OBJECT_DIRECTORY": ".git/objects",
}


@pytest.mark.parametrize("variable", sorted(FOREIGN))
def test_git_variables_of_the_caller_never_point_the_digest_elsewhere(
    two_repos: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    repo, other = two_repos
    expected = tree_state(str(repo))
    assert expected is not None
    assert expected.dirty_digest != CLEAN
    monkeypatch.setenv(variable, str(other / FOREIGN[variable]))
    assert tree_state(str(repo)) == expected
    assert start_tree_state(str(repo)).result() == expected  # the hook's way


def _debug_records(state_home: Path) -> list[dict[str, object]]:
    log = state_home / "lanekit" / "debug.jsonl"
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def debug_log_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``LANES_DEBUG=1`` with the debug log in a scratch state home."""
    home = tmp_path / "state-home"
    monkeypatch.setenv("LANES_DEBUG", "1")
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home


def test_without_git_on_path_the_tree_is_unknown_and_the_debug_log_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, debug_log_home: Path
) -> None:
    repo = make_repo(tmp_path / "r")
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert tree_state(str(repo)) is None  # the gate fails open
    [record] = _debug_records(debug_log_home)
    assert record["event"] == "tree-state"
    error = record["error"]
    assert isinstance(error, str)
    assert error.startswith("git not runnable: ")
    assert "git" in error.removeprefix("git not runnable: ")  # the OSError names what failed


def test_outside_a_work_tree_the_debug_log_names_the_directory(
    tmp_path: Path, debug_log_home: Path
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert tree_state(str(plain)) is None
    [record] = _debug_records(debug_log_home)
    assert record["event"] == "tree-state"
    assert record["error"] == "git failed (not a work tree, or no commit yet)"
    assert record["top"] == str(plain)


def test_a_tree_that_is_read_logs_nothing(tmp_path: Path, debug_log_home: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "new_test.py").write_text("x = 1\n", encoding="utf-8")
    assert tree_state(str(repo)) is not None
    assert not (debug_log_home / "lanekit" / "debug.jsonl").exists()
