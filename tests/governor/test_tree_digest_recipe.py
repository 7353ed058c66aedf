"""The dirty digest is exactly its documented recipe, and the submodules it
follows are the checked-out ones ``.gitmodules`` names inside the tree.

The hook records a PASS under one digest and every CLI command checks it under
another computation of the same digest: both are :func:`tree_state`, and these
tests recompute it from the recipe in the module docstring (the diff's length
and bytes, then each untracked and unwatched path with its permission bits and
content, then each dirty submodule's state), so a change to what goes in, or
in what order, is seen here and not by a PASS quietly going stale. Real git
repositories throughout.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from lanes.governor.state.ledger import CLEAN
from lanes.governor.state.tree import (
    LANEKIT_OUTPUTS,
    TreeProbe,
    _file_digest,  # the one seam: no public call can make a listed file vanish
    find_repo,
    lanekit_writes,
    start_tree_state,
    tree_state,
)
from tests.governor.governor_helpers import make_repo
from tests.support.git import GIT_ENV, commit_all, git, git_repo, head
from tests.support.git import make_repo as git_make_repo

if TYPE_CHECKING:
    from collections.abc import Sequence


def _git_bytes(repo: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, check=True, capture_output=True
    ).stdout


def _file_tag(path: Path) -> bytes:
    """The recipe's tag of one file: link text, file type, or mode bits and content."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        return hashlib.sha256(b"L" + os.fsencode(path.readlink())).digest()
    if not stat.S_ISREG(info.st_mode):
        return hashlib.sha256(b"T%o" % stat.S_IFMT(info.st_mode)).digest()
    return hashlib.sha256(b"F%o\0" % stat.S_IMODE(info.st_mode) + path.read_bytes()).digest()


def _recipe(repo: Path, submodules: Sequence[tuple[str, str]] = ()) -> str:
    """The digest of ``repo`` by the documented recipe; ``submodules`` are the
    ``(path, "head:digest")`` entries the tree is expected to fold in."""
    diff = _git_bytes(repo, "diff-index", "-p", "--binary", "HEAD")
    untracked: list[bytes] = []
    unwatched: list[bytes] = []
    for entry in _git_bytes(repo, "ls-files", "-v", "--cached", "--others", "-z").split(b"\0"):
        tag, path = entry[:2], entry[2:]
        if tag == b"? ":
            untracked.append(path)
        elif tag[:1] == b"S" or tag[:1].islower():
            unwatched.append(path)
    digest = hashlib.sha256(b"diff\0%d\0" % len(diff) + diff)
    for kind, paths in ((b"untracked", untracked), (b"unwatched", unwatched)):
        for path in sorted(paths):
            digest.update(b"\0" + kind + b"\0" + path + b"\0")
            digest.update(_file_tag(repo / os.fsdecode(path)))
    for sub_path, inner in submodules:
        digest.update(f"\0submodule\0{sub_path}\0{inner}".encode())
    return digest.hexdigest()


def _digest(repo: Path) -> str:
    state = tree_state(str(repo))
    assert state is not None
    return state.dirty_digest


def _inner(repo: Path) -> str:
    state = tree_state(str(repo))
    assert state is not None
    return f"{state.git_head}:{state.dirty_digest}"


def _nested_repo(path: Path) -> Path:
    """A committed repository at ``path`` (inside another one, or beside it)."""
    git_repo(path)
    (path / "test_x.py").write_text("def test_x():\n    pass\n", encoding="utf-8")
    commit_all(path)
    return path


def test_the_digest_is_the_recipe_over_the_diff_and_every_odd_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "tests/unit/test_a.py").write_text("def test_a():\n    assert 1\n", encoding="utf-8")
    script = repo / "run.sh"
    script.write_text("#!/bin/sh\npytest\n", encoding="utf-8")
    script.chmod(0o750)
    (repo / "conftest_link.py").symlink_to("tests/unit/test_a.py")
    _nested_repo(repo / "inner")  # listed by git as the directory "inner/"
    git(repo, "update-index", "--skip-worktree", "tests/integ/test_a.py")
    (repo / "tests/integ/test_a.py").write_text("raise SystemExit\n", encoding="utf-8")
    assert _digest(repo) == _recipe(repo)


def test_a_file_that_vanishes_while_being_hashed_is_tagged_apart() -> None:
    assert _file_digest("/nonexistent/lanekit/file") == hashlib.sha256(b"?").digest()


def test_only_checked_out_submodules_inside_the_tree_are_followed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    neighbour = _nested_repo(tmp_path / "neighbour")
    (neighbour / "dirty.py").write_text("x = 1\n", encoding="utf-8")
    (repo / "absent" / "pkg").mkdir(parents=True)  # a submodule never initialised
    (repo / "absent" / "pkg" / "stray.py").write_text("y = 2\n", encoding="utf-8")
    inside = _nested_repo(repo / "we=ird")  # '=' in the path: split at the first one
    (inside / "dirty.py").write_text("z = 3\n", encoding="utf-8")
    # A header line, a url, an absolute and an escaping path, a non-UTF-8
    # comment: only `path = absent` and `path = we=ird` name submodules, and
    # only the initialised one counts, even after one that is not.
    (repo / ".gitmodules").write_bytes(
        b'[submodule "absent"]\n\tpath = absent\n\turl = ' + os.fsencode(neighbour) + b"\n"
        b"# caf\xe9\n"
        b'[submodule "weird"]\n\tpath = we=ird\n'
        b'[submodule "out"]\n\tpath = ../neighbour\n'
        b"\tpath = " + os.fsencode(neighbour) + b"\n"
    )
    assert _digest(repo) == _recipe(repo, [("we=ird", _inner(inside))])
    before = _digest(repo)
    (neighbour / "dirty.py").write_text("x = 2\n", encoding="utf-8")
    assert _digest(repo) == before  # a repository outside the tree is never read
    (inside / "dirty.py").write_text("z = 4\n", encoding="utf-8")
    assert _digest(repo) != before


def test_a_gitmodules_past_one_mebibyte_is_not_read(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    inside = _nested_repo(repo / "vendored")
    (inside / "dirty.py").write_text("x = 1\n", encoding="utf-8")
    entry = b'[submodule "v"]\n\tpath = vendored\n'
    (repo / ".gitmodules").write_bytes(entry + b"#" * ((1 << 20) - len(entry)))
    assert _digest(repo) == _recipe(repo, [("vendored", _inner(inside))])
    (repo / ".gitmodules").write_bytes(entry + b"#" * ((1 << 20) - len(entry) + 1))
    assert _digest(repo) == _recipe(repo)  # the hook caps what it reads


def test_submodules_are_followed_eight_deep_and_no_deeper(tmp_path: Path) -> None:
    # A chain top -> s1 -> ... -> s9, each level naming the next in its
    # .gitmodules; the top is depth 0, so s1..s8 are followed and s9 is not.
    levels = [make_repo(tmp_path / "top")]
    for depth in range(1, 10):
        parent = levels[-1]
        levels.append(_nested_repo(parent / f"s{depth}"))
        (parent / ".gitmodules").write_text(f"[submodule]\n\tpath = s{depth}\n", encoding="utf-8")
    top = levels[0]
    before = _digest(top)
    (levels[9] / "test_x.py").write_text("def test_x():\n    assert 0\n", encoding="utf-8")
    assert _digest(top) == before
    (levels[8] / "test_x.py").write_text("def test_x():\n    assert 0\n", encoding="utf-8")
    at_eight = _digest(top)
    assert at_eight != before
    probe = start_tree_state(str(top)).result()  # the hook's way: also from depth 0
    assert probe is not None
    assert probe.dirty_digest == at_eight
    (levels[2] / "test_x.py").write_text("def test_x():\n    assert 0\n", encoding="utf-8")
    assert _digest(top) not in (before, at_eight)


def test_the_probe_started_early_answers_what_tree_state_answers(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "out").mkdir()
    (repo / "out" / "slow.json").write_text("{}", encoding="utf-8")
    (repo / "new_test.py").write_text("x = 1\n", encoding="utf-8")
    found = find_repo(str(repo))
    assert found is not None
    for probe in (
        start_tree_state(str(repo), exclude=str(repo / "out")),
        start_tree_state(str(repo), exclude=[str(repo / "out")], repo=found),
    ):
        assert probe.result() == tree_state(str(repo), exclude=str(repo / "out"))
    assert start_tree_state(str(repo)).result() == tree_state(str(repo))
    answered = start_tree_state(str(repo))
    assert answered.result() is not None
    assert answered.result() is None  # read at most once


def test_the_probe_reads_head_itself_when_given_another_work_tree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    other = find_repo(str(make_repo(tmp_path / "other")))
    state = start_tree_state(str(repo), repo=other).result()
    assert state is not None
    assert state.git_head == head(repo)
    assert state.dirty_digest == CLEAN


FDS = Path("/proc/self/fd")


def _open_fds() -> int:
    return len(list(FDS.iterdir()))


@pytest.mark.skipif(not FDS.is_dir(), reason="counts descriptors in /proc")
def test_a_cancelled_probe_stops_git_and_has_no_answer(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    before = _open_fds()
    probe = start_tree_state(str(repo))
    assert _open_fds() > before  # git's output pipes
    probe.cancel()
    assert _open_fds() == before  # closed, and git stopped and reaped
    assert probe.result() is None
    probe.cancel()  # twice is harmless
    done = TreeProbe(str(repo), LANEKIT_OUTPUTS, 0)
    assert done.result() is not None
    done.cancel()  # after the answer: nothing left to stop
    assert done.result() is None


def test_git_slower_than_the_timeout_leaves_the_tree_unknown(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    assert tree_state(str(repo), timeout=0.0) is None  # the gate fails open
    assert tree_state(str(repo)) is not None


def test_lanekit_writes_its_state_dir_and_the_configured_envelope_dir(tmp_path: Path) -> None:
    out = str(tmp_path / "out")
    assert lanekit_writes(None, str(tmp_path), "out") == [out]
    assert lanekit_writes("/state", tmp_path, "out") == ["/state", out]


@pytest.mark.parametrize("unwatched", ["a.py", "b.py"])
def test_an_unwatched_file_counts_in_a_two_file_repository(tmp_path: Path, unwatched: str) -> None:
    # The listing is two entries, one of them `h` (assume-unchanged): the
    # shortcut for "every entry is a plain tracked file" must not take it.
    repo = git_make_repo(tmp_path / "r", {"a.py": "a = 1\n", "b.py": "b = 1\n"})
    git(repo, "update-index", "--assume-unchanged", unwatched)
    before = _digest(repo)
    (repo / unwatched).write_text("changed = 1\n", encoding="utf-8")
    assert _digest(repo) != before
    assert _digest(repo) == _recipe(repo)


def test_the_probe_given_another_repository_still_digests_its_own(tmp_path: Path) -> None:
    # The other repository has its own history: its HEAD is not this one's.
    repo = make_repo(tmp_path / "r")
    other_top = git_make_repo(tmp_path / "other", {"other.py": "o = 1\n"})
    (repo / "new_test.py").write_text("x = 1\n", encoding="utf-8")
    other = find_repo(str(other_top))
    assert other is not None
    assert head(other_top) != head(repo)
    assert start_tree_state(str(repo), repo=other).result() == tree_state(str(repo))


def test_a_submodule_whose_git_dir_is_gone_is_folded_in_as_unknown(tmp_path: Path) -> None:
    # Its .git file names a git dir that was deleted: git cannot read it, so
    # the tree cannot be the one a PASS was recorded on.
    repo = make_repo(tmp_path / "r")
    broken = repo / "vendored"
    broken.mkdir()
    (broken / ".git").write_text("gitdir: ../.git/modules/vendored\n", encoding="utf-8")
    (repo / ".gitmodules").write_text('[submodule "v"]\n\tpath = vendored\n', encoding="utf-8")
    assert _digest(repo) == _recipe(repo, [("vendored", "unknown")])


def test_a_submodule_is_found_through_its_relative_gitdir_file(tmp_path: Path) -> None:
    # `git submodule add` writes "gitdir: ../.git/modules/<name>", relative to
    # the submodule's own directory, not to wherever the caller runs.
    library = make_repo(tmp_path / "library")
    repo = make_repo(tmp_path / "repo")
    git(
        repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "vendored"
    )
    assert (repo / "vendored" / ".git").read_text(encoding="utf-8").startswith("gitdir: ../")
    found = find_repo(str(repo / "vendored"))
    assert found is not None
    assert found.top == str(repo / "vendored")
    assert found.git_dir == str(repo / ".git" / "modules" / "vendored")
