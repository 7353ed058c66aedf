"""Where the repository is, where its governor state lives, and what its tree is.

:func:`tree_state` is the ONE definition of "this exact tree", used by the
hook and by every CLI command, so that what records a PASS and what checks it
can never drift: ``git_head`` (HEAD's 40-hex id) plus ``dirty_digest``, a
sha256 over ``git diff HEAD --binary`` and every untracked, non-ignored file's
path *and content* — editing an untracked test file must invalidate a PASS as
surely as editing a tracked one. ``"clean"`` when nothing differs from HEAD.
Outside a git work tree (or when git is missing) it returns None and the
governor fails open.

:func:`find_repo` locates the work tree and the git common dir by reading
``.git`` files, without spawning git: it runs on every hook call that looks
like a test run. State lives in ``<git common dir>/lanes/`` so that linked
worktrees share one ledger and one lock (DESIGN.md); ``LANES_STATE_DIR``
overrides it.
"""

from __future__ import annotations

import os

from lanes.governor.state.debug import debug_log
from lanes.governor.state.git import read_head, run_all
from lanes.governor.state.ledger import CLEAN, TreeState

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["Repo", "find_repo", "state_dir", "tree_state"]

_GIT_TIMEOUT = 20.0


class Repo:
    """A work tree: its top level, its own git dir and the common dir worktrees share."""

    __slots__ = ("common_dir", "git_dir", "top")

    def __init__(self, top: str, git_dir: str, common_dir: str) -> None:
        self.top = top
        self.git_dir = git_dir
        self.common_dir = common_dir

    def __repr__(self) -> str:
        return f"Repo(top={self.top!r}, git_dir={self.git_dir!r}, common_dir={self.common_dir!r})"


def _read_small(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read(4096).strip()
    except (OSError, UnicodeDecodeError):
        return None


def _common_dir(git_dir: str) -> str:
    # A linked worktree's git dir (.git/worktrees/<name>) names the shared
    # repository in its `commondir` file, relative to itself.
    common = _read_small(os.path.join(git_dir, "commondir"))
    if common:
        return os.path.normpath(os.path.join(git_dir, common))
    return git_dir


def find_repo(start: str) -> Repo | None:
    """The work tree containing ``start``, or None outside git."""
    directory = os.path.abspath(start)
    while True:
        dotgit = os.path.join(directory, ".git")
        if os.path.isdir(dotgit):
            return Repo(directory, dotgit, _common_dir(dotgit))
        if os.path.isfile(dotgit):
            # A worktree or submodule: ".git" is a file "gitdir: <path>".
            text = _read_small(dotgit) or ""
            if text.startswith("gitdir:"):
                git_dir = os.path.normpath(os.path.join(directory, text[7:].strip()))
                if os.path.isdir(git_dir):
                    return Repo(directory, git_dir, _common_dir(git_dir))
            return None
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def state_dir(cwd: str, environ: Mapping[str, str]) -> str | None:
    """``$LANES_STATE_DIR``, else ``<git common dir>/lanes``; None outside git."""
    override = environ.get("LANES_STATE_DIR", "").strip()
    if override:
        return os.path.abspath(os.path.join(cwd, override))
    repo = find_repo(cwd)
    return None if repo is None else os.path.join(repo.common_dir, "lanes")


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    # Never take index.lock for an opportunistic refresh: the agent's own git
    # commands must not fail because the hook was reading at that moment.
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    return env


def _file_digest(path: str) -> bytes:
    """A fixed-length tag of one untracked file's content (the link text for a symlink).

    Fixed length, so no file's bytes can impersonate the next path's record.
    """
    import hashlib  # noqa: PLC0415  # only for a dirty tree (see tree_state)

    digest = hashlib.sha256()
    try:
        if os.path.islink(path):
            # The link itself is the content git would commit.
            digest.update(b"L" + os.fsencode(os.readlink(path)))
        else:
            with open(path, "rb") as handle:
                digest.update(b"F")
                while chunk := handle.read(1 << 20):
                    digest.update(chunk)
    except OSError:
        # Vanished or unreadable between listing and reading: still part of
        # the state, and different from any content it could have had.
        digest.update(b"?")
    return digest.digest()


def tree_state(top: str, *, exclude: str | None = None) -> TreeState | None:
    """HEAD and the dirty digest of the work tree at ``top``; None on any failure.

    ``exclude`` is a directory inside the work tree whose files are left out
    (a ``LANES_STATE_DIR`` there must not change the tree it describes).
    """
    repo = find_repo(top)
    head = None if repo is None else read_head(repo.git_dir, repo.common_dir)
    argvs = [
        ["git", "diff", "HEAD", "--binary", "--no-ext-diff", "--no-textconv", "--no-color"],
        ["git", "ls-files", "--others", "--exclude-standard", "-z"],
    ]
    if head is None:
        argvs.append(["git", "rev-parse", "--verify", "-q", "HEAD"])
    try:
        outputs = run_all(argvs, cwd=top, env=_git_env(), timeout=_GIT_TIMEOUT)
    except OSError as exc:
        debug_log("tree-state", error=f"git not runnable: {exc}")
        return None
    if outputs is None:
        debug_log("tree-state", error="git failed (not a work tree, or no commit yet)", top=top)
        return None
    if head is None:
        head = outputs[2].decode("ascii", errors="replace").strip()
    diff, untracked_raw = outputs[0], outputs[1]
    prefix = None
    if exclude is not None:
        rel = os.path.relpath(exclude, top)
        if not rel.startswith(".."):
            prefix = os.fsencode(rel.rstrip(os.sep) + "/")
    untracked = sorted(
        path
        for path in untracked_raw.split(b"\0")
        if path and not (prefix and path.startswith(prefix))
    )
    if not diff and not untracked:
        return TreeState(head, CLEAN)
    # Imported here: a clean tree (the common case on a re-run) needs no hashing.
    import hashlib  # noqa: PLC0415

    digest = hashlib.sha256()
    digest.update(b"diff\0%d\0" % len(diff))
    digest.update(diff)
    top_bytes = os.fsencode(top)
    for path in untracked:
        digest.update(b"\0untracked\0" + path + b"\0")
        digest.update(_file_digest(os.fsdecode(os.path.join(top_bytes, path))))
    return TreeState(head, digest.hexdigest())
