"""Where the repository is, where its governor state lives, and what its tree is.

:func:`tree_state` is the ONE definition of "this exact tree", used by the
hook and by every CLI command, so that what records a PASS and what checks it
can never drift: ``git_head`` (HEAD's 40-hex id) plus ``dirty_digest``, a
sha256 over ``git diff-index -p --binary HEAD`` (the patch ``git diff HEAD
--binary`` shows, without the user's diff settings) and every untracked, non-ignored file's
path, permission bits *and content* — editing an untracked test file must
invalidate a PASS as surely as editing a tracked one. ``"clean"`` when nothing
differs from HEAD. Three places ``git diff`` does not look are covered too:
files marked ``assume-unchanged`` or ``skip-worktree`` (hashed from the work
tree, since git promises not to), and initialised submodules, whose own tree
state is folded in when they are dirty (``git diff`` prints one constant
``-dirty`` line however much changes inside, and nothing for untracked files).
Outside a git work tree (or when git is missing) it returns None and the
governor fails open.

:func:`find_repo` locates the work tree and the git common dir by reading
``.git`` files, without spawning git: it runs on every hook call that looks
like a test run. State lives in ``<git common dir>/lanes/`` so that linked
worktrees share one ledger and one lock (docs/architecture.md); ``LANES_STATE_DIR``
overrides it.
"""

from __future__ import annotations

import os

from lanes.governor.state.debug import debug_log
from lanes.governor.state.git import collect_all, kill_all, read_head, spawn_all

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from lanes.governor.state.ledger import TreeState

__all__ = [
    "LANEKIT_OUTPUTS",
    "Repo",
    "TreeProbe",
    "find_repo",
    "git_argvs",
    "lanekit_writes",
    "start_tree_state",
    "state_dir",
    "tree_state",
]

# The default of [tool.lanes.governor] tree_timeout (lanes.governor.settings).
_GIT_TIMEOUT = 20.0
# What lanekit itself writes into a project (lane envelopes, Hypothesis's
# example database, mutmut's working copy): a lane run must not turn every
# suite's PASS into "tree changed".
LANEKIT_OUTPUTS = ("envelopes", ".hypothesis", "mutants")
# Submodules inside submodules: deeper than any real project nests them.
_MAX_SUBMODULE_DEPTH = 8
# `git ls-files -v` tags of entries whose work-tree file git diff skips:
# lowercase = assume-unchanged, S = skip-worktree.
_UNWATCHED_TAGS = frozenset(b"hsmrck" + b"S")


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


# Variables that point git at another repository, index, object store or
# work tree, and that git reads before `-C`: a caller's git hook sets some
# (pre-commit: GIT_INDEX_FILE; pre-push: GIT_DIR), and under them the digest
# would describe another tree than the hook's record of the same one.
_REPO_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY")


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    # Never take index.lock for an opportunistic refresh: the agent's own git
    # commands must not fail because the hook was reading at that moment.
    env["GIT_OPTIONAL_LOCKS"] = "0"
    for name in _REPO_ENV:
        env.pop(name, None)
    return env


def _file_digest(path: str) -> bytes:
    """A fixed-length tag of one file's content and permission bits (the link
    text for a symlink).

    Fixed length, so no file's bytes can impersonate the next path's record.
    Opened without blocking: a FIFO in the work tree is tagged, never read.
    """
    import hashlib  # only for a dirty tree (see tree_state)
    import stat

    digest = hashlib.sha256()
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            # The link itself is the content git would commit.
            digest.update(b"L" + os.fsencode(os.readlink(path)))
        elif not stat.S_ISREG(info.st_mode):
            digest.update(b"T%o" % stat.S_IFMT(info.st_mode))
        else:
            # `chmod +x` is a change git would commit; other bits are hashed
            # too, since a test may depend on them.
            digest.update(b"F%o\0" % stat.S_IMODE(info.st_mode))
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
            with os.fdopen(fd, "rb") as handle:
                while chunk := handle.read(1 << 20):
                    digest.update(chunk)
    except OSError:
        # Vanished or unreadable between listing and reading: still part of
        # the state, and different from any content it could have had.
        digest.update(b"?")
    return digest.digest()


def _submodule_paths(top: str) -> list[str]:
    """The ``path =`` entries of ``top``'s ``.gitmodules`` (no git process)."""
    from lanes._jsondoc import read_bytes  # only with submodules

    try:
        text = read_bytes(os.path.join(top, ".gitmodules"), max_bytes=1 << 20)
    except OSError:
        return []
    if not text:
        return []
    paths = []
    for line in text.decode("utf-8", errors="replace").splitlines():
        key, _, value = line.partition("=")
        path = value.strip()
        if key.strip() == "path" and path and not os.path.isabs(path) and ".." not in path:
            paths.append(path)
    return paths


def _dirty_submodules(top: str, depth: int, timeout: float) -> list[tuple[str, TreeState | None]]:
    """(path, state) of every initialised submodule that differs from its HEAD."""
    from lanes.governor.state.ledger import CLEAN

    found: list[tuple[str, TreeState | None]] = []
    for path in _submodule_paths(top):
        sub = os.path.join(top, path)
        if not os.path.exists(os.path.join(sub, ".git")):
            continue  # not initialised: nothing in the work tree to change
        state = _tree_state(sub, LANEKIT_OUTPUTS, depth + 1, timeout)
        if state is None or state.dirty_digest != CLEAN:
            found.append((path, state))
    return found


def lanekit_writes(state: str | None, root: str | os.PathLike[str], envelope_dir: str) -> list[str]:
    """The directories besides :data:`LANEKIT_OUTPUTS` that lanekit writes into a
    project: the governor's state dir (``LANES_STATE_DIR`` may put it inside the
    work tree) and the configured ``envelope_dir`` of the project at ``root``.
    The hook and every CLI command leave out the same ones (``exclude``)."""
    written = [os.path.join(root, envelope_dir)]
    return written if state is None else [state, *written]


def tree_state(
    top: str, *, exclude: str | Sequence[str] | None = None, timeout: float = _GIT_TIMEOUT
) -> TreeState | None:
    """HEAD and the dirty digest of the work tree at ``top``; None on any failure.

    ``exclude`` names directories inside the work tree whose files are left
    out (a ``LANES_STATE_DIR`` there, a configured ``envelope_dir``): what
    lanekit writes must not change the tree it describes. lanekit's default
    output directories (:data:`LANEKIT_OUTPUTS`) are always left out.
    ``timeout`` bounds the wait for git (the gate fails open past it).
    """
    extra = [exclude] if isinstance(exclude, str) else list(exclude or ())
    return _tree_state(top, [*LANEKIT_OUTPUTS, *extra], 0, timeout)


def _pathspecs(top: str, excluded: Sequence[str]) -> list[str]:
    """``git`` pathspecs leaving out each directory of ``excluded`` inside ``top``."""
    # Ordered, without repeats: the default envelope dir is named twice.
    specs: dict[str, None] = {}
    for directory in excluded:
        rel = os.path.relpath(os.path.join(top, directory), top)
        if rel != "." and not rel.startswith(".."):
            specs[f":(exclude,literal){rel}"] = None
    return ["--", ".", *specs] if specs else []


def git_argvs(top: str, excluded: Sequence[str], *, head_known: bool) -> list[list[str]]:
    """The git commands behind a tree state (run at once, in ``top``).

    The bench runs exactly these beside the hook: interpreter start plus
    these processes is the floor no hook built on them can go below.
    """
    specs = _pathspecs(top, excluded)
    argvs = [
        # Plumbing, not `git diff`: no user diff settings (prefixes,
        # algorithm, renames, colour, external drivers) shape its output,
        # and it skips porcelain set-up (~15% of the call at 5,000 files).
        # A file whose stat changed but content did not prints nothing.
        ["git", "diff-index", "-p", "--binary", "HEAD", *specs],
        # Tracked entries with their tags (to find the files git diff skips)
        # and untracked, non-ignored files ("?"), in one listing.
        ["git", "ls-files", "-v", "--cached", "--others", "--exclude-standard", "-z", *specs],
    ]
    if not head_known:
        argvs.append(["git", "rev-parse", "--verify", "-q", "HEAD"])
    return argvs


class TreeProbe:
    """A tree state being computed: git started, its answer not yet read.

    :func:`start_tree_state` returns one; :meth:`result` finishes it (at most
    once), :meth:`cancel` stops git when the answer is no longer wanted. The
    hook starts one as soon as it knows the repository, so git runs while the
    hook classifies the command and reads the config.
    """

    __slots__ = ("_depth", "_done", "_head", "_started", "_top")

    def __init__(
        self, top: str, excluded: Sequence[str], depth: int, repo: Repo | None = None
    ) -> None:
        self._top = top
        self._depth = depth
        self._done = False
        if repo is None or repo.top != top:
            repo = find_repo(top)
        self._head = None if repo is None else read_head(repo.git_dir, repo.common_dir)
        self._started: list[tuple[int, int]] | None
        try:
            self._started = spawn_all(
                git_argvs(top, excluded, head_known=self._head is not None),
                cwd=top,
                env=_git_env(),
            )
        except OSError as exc:
            debug_log("tree-state", error=f"git not runnable: {exc}")
            self._started = None

    def result(self, timeout: float = _GIT_TIMEOUT) -> TreeState | None:
        """HEAD and the dirty digest; None on any failure (see :func:`tree_state`)."""
        if self._done or self._started is None:
            self._done = True
            return None
        self._done = True
        outputs = collect_all(self._started, timeout=timeout)
        return _digest(self._top, self._head, outputs, self._depth, timeout)

    def cancel(self) -> None:
        """Stop git: the tree is not needed after all."""
        if not self._done and self._started is not None:
            kill_all(self._started)
        self._done = True


def start_tree_state(
    top: str, *, exclude: str | Sequence[str] | None = None, repo: Repo | None = None
) -> TreeProbe:
    """:func:`tree_state` in two halves: git starts now, ``.result()`` reads it.

    ``repo``: the work tree at ``top`` when the caller has found it already
    (the hook has), so ``.git`` is not read a second time."""
    extra = [exclude] if isinstance(exclude, str) else list(exclude or ())
    return TreeProbe(top, [*LANEKIT_OUTPUTS, *extra], 0, repo)


def _tree_state(
    top: str, excluded: Sequence[str], depth: int, timeout: float = _GIT_TIMEOUT
) -> TreeState | None:
    return TreeProbe(top, excluded, depth).result(timeout)


def _odd_entries(listing: bytes) -> tuple[list[bytes], list[bytes]]:
    """The untracked and the unwatched paths of a ``git ls-files -v -z`` listing.

    Each entry is ``"<tag> <path>"`` ended by a NUL; tag ``H`` (a tracked file
    git diff watches) is the bulk.
    """
    # No path holds a NUL, so when every entry starts "H " there is nothing to
    # find — known at C speed, where the loop below costs ~0.1 µs an entry
    # (5 ms at 50,000 files, after git, on every suite command).
    if listing.count(b"\0H ") + listing.startswith(b"H ") == listing.count(b"\0"):
        return [], []
    untracked: list[bytes] = []
    unwatched: list[bytes] = []
    for entry in listing.split(b"\0"):
        if entry[:2] == b"H " or len(entry) < 3:
            continue
        if entry[:2] == b"? ":
            untracked.append(entry[2:])
        elif entry[0] in _UNWATCHED_TAGS:
            unwatched.append(entry[2:])
    return untracked, unwatched


def _digest(
    top: str, head: str | None, outputs: list[bytes] | None, depth: int, timeout: float
) -> TreeState | None:
    """THE definition of "this exact tree", from git's answers (see the module docstring)."""
    if outputs is None:
        debug_log("tree-state", error="git failed (not a work tree, or no commit yet)", top=top)
        return None
    # The ledger's module (and the JSON reader behind it) is loaded here, after
    # git has started, not on the way to starting it.
    from lanes.governor.state.ledger import CLEAN, TreeState

    if head is None:
        head = outputs[2].decode("ascii", errors="replace").strip()
    diff, listing = outputs[0], outputs[1]
    untracked, unwatched = _odd_entries(listing)
    submodules = _dirty_submodules(top, depth, timeout) if depth < _MAX_SUBMODULE_DEPTH else []
    if not diff and not untracked and not unwatched and not submodules:
        return TreeState(head, CLEAN)
    # Imported here: a clean tree (the common case on a re-run) needs no hashing.
    import hashlib

    digest = hashlib.sha256()
    digest.update(b"diff\0%d\0" % len(diff))
    digest.update(diff)
    top_bytes = os.fsencode(top)
    for kind, paths in ((b"untracked", untracked), (b"unwatched", unwatched)):
        for path in sorted(paths):
            digest.update(b"\0" + kind + b"\0" + path + b"\0")
            digest.update(_file_digest(os.fsdecode(os.path.join(top_bytes, path))))
    for sub_path, state in submodules:
        inner = "unknown" if state is None else f"{state.git_head}:{state.dirty_digest}"
        digest.update(f"\0submodule\0{sub_path}\0{inner}".encode())
    return TreeState(head, digest.hexdigest())
