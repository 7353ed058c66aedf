"""The dirty digest has no blind spots: every change a
test run could see changes the digest, so a PASS is never reported fresh for
a tree it did not run on. Real git repositories, real submodules."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from lanes.governor.state.ledger import CLEAN
from lanes.governor.state.tree import tree_state
from tests.governor.governor_helpers import make_repo
from tests.support.git import git

if TYPE_CHECKING:
    from pathlib import Path


def _digest(repo: Path) -> str:
    state = tree_state(str(repo))
    assert state is not None
    return state.dirty_digest


@pytest.fixture
def with_submodule(tmp_path: Path) -> tuple[Path, Path]:
    """A project whose ``vendored/`` is an initialised submodule."""
    library = make_repo(tmp_path / "library")
    repo = make_repo(tmp_path / "repo")
    git(
        repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "vendored"
    )
    git(repo, "commit", "-qm", "add submodule")
    assert _digest(repo) == CLEAN
    return repo, repo / "vendored"


def test_edits_inside_an_already_dirty_submodule_change_the_digest(
    with_submodule: tuple[Path, Path],
) -> None:
    repo, sub = with_submodule
    target = sub / "tests" / "unit" / "test_a.py"
    target.write_text("def test_a():\n    assert 1\n", encoding="utf-8")
    first = _digest(repo)
    assert first != CLEAN
    target.write_text("def test_a():\n    assert 2\n", encoding="utf-8")  # still dirty
    second = _digest(repo)
    assert second != first
    git(sub, "add", "tests/unit/test_a.py")  # staged inside the submodule
    (sub / "new_test.py").write_text("x = 1\n", encoding="utf-8")  # untracked inside
    third = _digest(repo)
    assert third not in (first, second)
    (sub / "new_test.py").write_text("x = 2\n", encoding="utf-8")
    assert _digest(repo) != third


def test_an_untracked_file_in_an_otherwise_clean_submodule_counts(
    with_submodule: tuple[Path, Path],
) -> None:
    repo, sub = with_submodule
    (sub / "conftest.py").write_text("raise SystemExit\n", encoding="utf-8")
    assert _digest(repo) != CLEAN


@pytest.mark.parametrize("flag", ["--assume-unchanged", "--skip-worktree"])
def test_edits_to_files_git_is_told_not_to_watch_change_the_digest(
    tmp_path: Path, flag: str
) -> None:
    repo = make_repo(tmp_path / "r")
    target = repo / "tests" / "unit" / "test_a.py"
    git(repo, "update-index", flag, "tests/unit/test_a.py")
    before = _digest(repo)
    target.write_text("def test_a():\n    assert 0\n", encoding="utf-8")
    assert git(repo, "diff", "HEAD") == ""  # git itself does not see it
    assert _digest(repo) != before


def test_chmod_of_an_untracked_file_changes_the_digest(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    script = repo / "run_tests.sh"
    script.write_text("#!/bin/sh\npytest\n", encoding="utf-8")
    script.chmod(0o644)
    before = _digest(repo)
    script.chmod(0o755)
    assert _digest(repo) != before


def test_a_fifo_in_the_work_tree_is_tagged_not_read(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    os.mkfifo(repo / "pipe")
    assert _digest(repo) == _digest(repo)  # answers, and deterministically


@pytest.mark.parametrize(
    "output", ["envelopes/slow.json", ".hypothesis/examples/ab", "mutants/x.py"]
)
def test_lanekits_own_output_never_stales_the_tree(tmp_path: Path, output: str) -> None:
    # Regression: `lanes slow run` wrote envelopes/ and turned every PASS stale.
    repo = make_repo(tmp_path / "r")
    path = repo / output
    path.parent.mkdir(parents=True)
    path.write_text("{}", encoding="utf-8")
    assert _digest(repo) == CLEAN


def test_a_configured_output_dir_is_left_out_when_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "out").mkdir()
    (repo / "out" / "slow.json").write_text("{}", encoding="utf-8")
    assert _digest(repo) != CLEAN
    state = tree_state(str(repo), exclude=[str(repo / "out")])
    assert state is not None
    assert state.dirty_digest == CLEAN
