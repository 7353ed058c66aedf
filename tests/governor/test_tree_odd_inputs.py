"""The tree digest at the edges of its inputs: the shortest untracked path,
a HEAD only git can resolve, excluded directories that are not inside the
tree. Real repositories, the digest computed in-process."""

from __future__ import annotations

import locale
from typing import TYPE_CHECKING

from lanes.governor.state.ledger import CLEAN
from lanes.governor.state.tree import find_repo, start_tree_state, tree_state
from tests.governor.governor_helpers import make_repo
from tests.support.git import git, head

if TYPE_CHECKING:
    from pathlib import Path


def _digest(repo: Path, exclude: str | None = None) -> str:
    state = tree_state(str(repo), exclude=exclude)
    assert state is not None
    return state.dirty_digest


def test_an_untracked_file_with_a_one_letter_name_counts(tmp_path: Path) -> None:
    # git lists it as the shortest entry there is: tag, space, one letter.
    repo = make_repo(tmp_path / "r")
    (repo / "t").write_text("x = 1\n", encoding="utf-8")
    first = _digest(repo)
    assert first != CLEAN
    (repo / "t").write_text("x = 2\n", encoding="utf-8")
    assert _digest(repo) not in (CLEAN, first)


def test_head_through_a_branch_alias_is_the_commit_git_resolves(tmp_path: Path) -> None:
    # HEAD -> refs/heads/alias -> refs/heads/main: the files do not say the
    # commit plainly, so git itself is asked.
    repo = make_repo(tmp_path / "r")
    git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    git(repo, "symbolic-ref", "HEAD", "refs/heads/alias")
    expected = head(repo)
    clean = tree_state(str(repo))
    assert clean is not None
    assert clean.git_head == expected
    assert clean.dirty_digest == CLEAN
    (repo / "new_test.py").write_text("x = 1\n", encoding="utf-8")
    found = find_repo(str(repo))
    for state in (tree_state(str(repo)), start_tree_state(str(repo), repo=found).result()):
        assert state is not None
        assert state.git_head == expected
        assert state.dirty_digest != CLEAN


def test_an_excluded_directory_outside_the_tree_changes_nothing(tmp_path: Path) -> None:
    # LANES_STATE_DIR or an envelope_dir may live beside the project: git is
    # never handed a path outside its work tree.
    repo = make_repo(tmp_path / "r")
    outside = tmp_path / "state"
    outside.mkdir()
    assert _digest(repo, exclude=str(outside)) == CLEAN
    (repo / "new_test.py").write_text("x = 1\n", encoding="utf-8")
    assert _digest(repo, exclude=str(outside)) == _digest(repo)
    assert _digest(repo, exclude="../state") == _digest(repo)


def test_excluding_the_work_tree_itself_leaves_nothing_out(tmp_path: Path) -> None:
    # An envelope_dir of "." names the project root: its files are still the tree.
    repo = make_repo(tmp_path / "r")
    (repo / "new_test.py").write_text("x = 1\n", encoding="utf-8")
    assert _digest(repo, exclude=str(repo)) == _digest(repo) != CLEAN
    assert _digest(repo, exclude=".") == _digest(repo)


def test_a_new_file_counts_when_the_only_commit_is_empty(tmp_path: Path) -> None:
    # `git commit --allow-empty -m init`, then the first file: git lists no
    # tracked entry at all, only the untracked one.
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "commit", "-q", "--allow-empty", "-m", "init")
    assert _digest(repo) == CLEAN
    (repo / "test_first.py").write_text("def test_first():\n    pass\n", encoding="utf-8")
    first = _digest(repo)
    assert first != CLEAN
    (repo / "test_first.py").write_text("def test_first():\n    assert 0\n", encoding="utf-8")
    assert _digest(repo) not in (CLEAN, first)


def test_the_work_tree_is_found_from_any_directory_inside_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    for start in (repo, repo / "tests", repo / "tests" / "unit"):
        found = find_repo(str(start))
        assert found is not None
        assert (found.top, found.git_dir, found.common_dir) == (
            str(repo),
            str(repo / ".git"),
            str(repo / ".git"),
        )


def test_a_worktree_under_a_non_ascii_path_is_found_whatever_the_locale(tmp_path: Path) -> None:
    # git writes the linked worktree's .git file and its commondir in UTF-8;
    # under LC_CTYPE=C the locale's codec is ASCII.
    repo = make_repo(tmp_path / "r")
    linked = tmp_path / "wt-ünïcode"
    git(repo, "worktree", "add", "-q", str(linked))
    saved = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        found = find_repo(str(linked))
    finally:
        locale.setlocale(locale.LC_CTYPE, saved)
    assert found is not None
    assert found.top == str(linked)
    assert found.common_dir == str(repo / ".git")
