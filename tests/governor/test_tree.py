"""Tree state and state-dir discovery against real git repositories."""

from __future__ import annotations

import os
from pathlib import Path

from lanes.governor.state.git import read_head, run_all
from lanes.governor.state.ledger import CLEAN
from lanes.governor.state.tree import find_repo, state_dir, tree_state
from tests.governor.governor_helpers import make_repo
from tests.support.git import git, head


def test_a_clean_tree_is_clean_at_head(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    state = tree_state(str(repo))
    assert state is not None
    assert state.git_head == head(repo)
    assert state.dirty_digest == CLEAN


def test_the_digest_is_deterministic(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "tests/unit/test_a.py").write_text("def test_a():\n    assert 1\n", encoding="utf-8")
    (repo / "new.txt").write_text("x", encoding="utf-8")
    assert tree_state(str(repo)) == tree_state(str(repo))


def test_a_tracked_edit_changes_the_digest_and_reverting_restores_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    target = repo / "tests/unit/test_a.py"
    original = target.read_text(encoding="utf-8")
    target.write_text(original + "\n# edit\n", encoding="utf-8")
    edited = tree_state(str(repo))
    assert edited is not None
    assert edited.dirty_digest not in (CLEAN, "")
    target.write_text(original, encoding="utf-8")
    restored = tree_state(str(repo))
    assert restored is not None
    assert restored.dirty_digest == CLEAN


def test_staging_an_edit_does_not_change_the_tree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "tests/unit/test_a.py").write_text("def test_a():\n    assert 2\n", encoding="utf-8")
    unstaged = tree_state(str(repo))
    git(repo, "add", "tests/unit/test_a.py")
    assert tree_state(str(repo)) == unstaged


def test_an_untracked_file_and_its_content_count(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    new = repo / "tests/unit/test_new.py"
    new.write_text("def test_new():\n    pass\n", encoding="utf-8")
    first = tree_state(str(repo))
    assert first is not None
    assert first.dirty_digest != CLEAN
    # Same path, new content: a paths-only digest would miss this edit.
    new.write_text("def test_new():\n    assert 0\n", encoding="utf-8")
    second = tree_state(str(repo))
    assert second is not None
    assert second.dirty_digest not in (CLEAN, first.dirty_digest)


def test_ignored_files_do_not_count(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "run.log").write_text("noise", encoding="utf-8")
    state = tree_state(str(repo))
    assert state is not None
    assert state.dirty_digest == CLEAN


def test_a_commit_moves_head_and_is_clean_again(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    before = tree_state(str(repo))
    (repo / "x.py").write_text("x = 1\n", encoding="utf-8")
    git(repo, "add", "x.py")
    git(repo, "commit", "-q", "-m", "x")
    after = tree_state(str(repo))
    assert before is not None
    assert after is not None
    assert after.git_head != before.git_head
    assert after.dirty_digest == CLEAN


def test_a_state_dir_inside_the_tree_is_excluded(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    state = repo / ".lanes-state"
    state.mkdir()
    (state / "verify-ledger.json").write_text("{}", encoding="utf-8")
    result = tree_state(str(repo), exclude=str(state))
    assert result is not None
    assert result.dirty_digest == CLEAN


def test_outside_git_and_before_the_first_commit_fail_open(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert tree_state(str(plain)) is None
    assert find_repo(str(plain)) is None
    assert state_dir(str(plain), {}) is None
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q")
    assert tree_state(str(fresh)) is None


def test_state_lives_in_the_common_dir_shared_by_worktrees(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    sub = repo / "tests" / "unit"
    expected = str(repo / ".git" / "lanes")
    assert state_dir(str(sub), {}) == expected
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"))
    found = find_repo(str(tmp_path / "wt" / "tests"))
    assert found is not None
    assert found.top == str(tmp_path / "wt")
    assert state_dir(str(tmp_path / "wt"), {}) == expected
    # ...and agrees with git itself.
    common = git(tmp_path / "wt", "rev-parse", "--path-format=absolute", "--git-common-dir")
    assert str(Path(common.strip()) / "lanes") == expected


def test_lanes_state_dir_overrides(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    assert state_dir(str(repo), {"LANES_STATE_DIR": str(tmp_path / "s")}) == str(tmp_path / "s")
    assert state_dir(str(repo), {"LANES_STATE_DIR": "rel"}) == str(repo / "rel")


# ----------------------------------------------------------------- HEAD without git


def _head_from_files(repo: Path) -> str | None:
    found = find_repo(str(repo))
    assert found is not None
    return read_head(found.git_dir, found.common_dir)


def test_head_is_read_from_loose_packed_and_detached_refs(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    expected = head(repo)
    assert _head_from_files(repo) == expected
    git(repo, "pack-refs", "--all", "--prune")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert _head_from_files(repo) == expected
    git(repo, "checkout", "-q", "--detach")
    assert _head_from_files(repo) == expected


def test_head_of_a_linked_worktree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    (tmp_path / "wt" / "x.py").write_text("x = 1\n", "utf-8")
    git(tmp_path / "wt", "add", "x.py")
    git(tmp_path / "wt", "commit", "-q", "-m", "side")
    assert _head_from_files(tmp_path / "wt") == head(tmp_path / "wt")
    assert _head_from_files(repo) == head(repo)


def test_an_unborn_branch_has_no_head(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q")
    assert _head_from_files(fresh) is None


def test_run_all_reports_failure_and_timeout(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    env = dict(os.environ)
    ok = run_all([["git", "rev-parse", "HEAD"]], cwd=str(repo), env=env, timeout=30)
    assert ok is not None
    assert ok[0].strip() == head(repo).encode()
    failed = [["git", "rev-parse", "HEAD"], ["git", "no-such-command"]]
    assert run_all(failed, cwd=str(repo), env=env, timeout=30) is None
    # A git that outlives the deadline is killed and counts as a failure.
    slow = [["git", "-c", "alias.w=!sleep 3", "w"]]
    assert run_all(slow, cwd=str(repo), env=env, timeout=0.3) is None
