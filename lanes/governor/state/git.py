"""Asking git cheaply, for the tree state on the hook's path.

- :func:`read_head` reads HEAD from the git dir's files (``HEAD``, a loose
  ref, ``packed-refs``) instead of spawning ``git rev-parse``; anything it does
  not recognise (reftable, a symbolic ref outside ``refs/``) returns None and
  the caller asks git.
- :func:`run_all` starts several git commands at once with ``os.posix_spawnp``
  and collects their outputs with ``select``: importing :mod:`subprocess`
  (threading, selectors, signal) costs about a third of an interpreter start,
  and the git processes overlap instead of queueing. :func:`spawn_all` and
  :func:`collect_all` are its two halves, so a caller can do other work (or
  decide it does not need the answer, :func:`kill_all`) while git runs.
"""

from __future__ import annotations

import os
import select
import time

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["collect_all", "kill_all", "read_head", "run_all", "spawn_all"]

_HEX = frozenset("0123456789abcdef")
# signal.SIGKILL without importing signal (an enum module) on the hook's path.
_SIGKILL = 9


def _is_object_id(text: str) -> bool:
    # SHA-1 (40) or SHA-256 (64) repositories.
    return len(text) in (40, 64) and set(text) <= _HEX


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read(1 << 16)
    except (OSError, UnicodeDecodeError):
        return None


def _packed(common_dir: str, ref: str) -> str | None:
    text = _read(os.path.join(common_dir, "packed-refs"))
    if text is None:
        return None
    for line in text.splitlines():
        if line.startswith(("#", "^")):
            continue
        oid, _, name = line.partition(" ")
        if name == ref and _is_object_id(oid):
            return oid
    return None


def read_head(git_dir: str, common_dir: str) -> str | None:
    """HEAD's object id, or None when the files don't say it plainly."""
    text = _read(os.path.join(git_dir, "HEAD"))
    if text is None:
        return None
    text = text.strip()
    if _is_object_id(text):
        return text  # detached
    if not text.startswith("ref:"):
        return None
    ref = text[4:].strip()
    if not ref.startswith("refs/") or ".." in ref:
        return None
    # Branches live in the common dir (shared by worktrees); per-worktree refs
    # in the worktree's own git dir.
    for base in (git_dir, common_dir):
        loose = _read(os.path.join(base, ref))
        if loose is not None and _is_object_id(loose.strip()):
            return loose.strip()
    return _packed(common_dir, ref)


def spawn_all(
    argvs: Sequence[Sequence[str]], *, cwd: str, env: dict[str, str]
) -> list[tuple[int, int]]:
    """Start every argv at once; ``(pid, stdout read end)`` of each, for
    :func:`collect_all` (or :func:`kill_all`). Raises OSError when one cannot
    start (those already started are killed and reaped first).

    stdin and stderr are /dev/null. ``cwd`` is passed to git as ``-C``
    (``posix_spawn`` has no working-directory argument before Python 3.13).
    """
    started: list[tuple[int, int]] = []
    try:
        for argv in argvs:
            read_end, write_end = os.pipe()
            actions = [
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, write_end, 1),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_CLOSE, read_end),
                (os.POSIX_SPAWN_CLOSE, write_end),
            ]
            try:
                pid = os.posix_spawnp(
                    argv[0], [argv[0], "-C", cwd, *argv[1:]], env, file_actions=actions
                )
            except BaseException:
                os.close(read_end)
                raise
            finally:
                os.close(write_end)
            started.append((pid, read_end))
    except BaseException:
        kill_all(started)
        raise
    return started


def collect_all(started: list[tuple[int, int]], *, timeout: float) -> list[bytes] | None:
    """The stdouts of processes from :func:`spawn_all`, or None if any failed
    or ``timeout`` passed (then all are killed). Always reaps them."""
    outputs: list[bytes] | None = None
    try:
        outputs = _collect([fd for _, fd in started], time.monotonic() + timeout)
    except OSError:
        outputs = None
    finally:
        ok = _finish(started, kill=outputs is None)
    return outputs if ok else None


def kill_all(started: list[tuple[int, int]]) -> None:
    """Stop and reap processes from :func:`spawn_all` whose output is not wanted."""
    _finish(started, kill=True)


def _finish(started: list[tuple[int, int]], *, kill: bool) -> bool:
    ok = True
    for pid, fd in started:
        os.close(fd)
        ok = _reap(pid, kill=kill) and ok
    return ok


def run_all(
    argvs: Sequence[Sequence[str]], *, cwd: str, env: dict[str, str], timeout: float
) -> list[bytes] | None:
    """Run every argv concurrently; their stdouts, or None if any failed,
    could not start, or timed out."""
    try:
        started = spawn_all(argvs, cwd=cwd, env=env)
    except OSError:
        return None
    return collect_all(started, timeout=timeout)


def _collect(fds: list[int], deadline: float) -> list[bytes] | None:
    """Read every fd to EOF, concurrently; None at the deadline."""
    chunks: dict[int, list[bytes]] = {fd: [] for fd in fds}
    open_fds = set(fds)
    while open_fds:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        ready, _, _ = select.select(list(open_fds), [], [], remaining)
        for fd in ready:
            data = os.read(fd, 1 << 16)
            if data:
                chunks[fd].append(data)
            else:
                open_fds.discard(fd)
    return [b"".join(chunks[fd]) for fd in fds]


def _reap(pid: int, *, kill: bool) -> bool:
    """Wait for ``pid``; True iff it exited 0."""
    if kill:
        try:  # noqa: SIM105  # contextlib.suppress would put contextlib on the hook's path
            os.kill(pid, _SIGKILL)
        except ProcessLookupError:
            pass
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return False
    return os.waitstatus_to_exitcode(status) == 0
