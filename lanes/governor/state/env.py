"""The governor's one seam onto the world: clock, processes, host, files.

The run lock and the verify ledger learn everything they know through an
:class:`Environment`. Production passes :class:`OSEnvironment`, which asks the
operating system; the torture lane passes a modelled one whose clock, process
table and host are simulated and whose every file operation is a scheduling
point. Because this is the production seam and not a test hook, the torture
lane exercises the very code agents run.

Contract for implementers (the torture lane relies on it):
- each file method is one indivisible step (a yield point in the model);
- ``locked`` is an exclusive advisory lock on a sidecar path; it blocks;
- ``new_token`` returns a string no other call (in any process) returns: the
  run lock's ownership token. It is part of the seam (added with the run lock)
  so that a modelled world can hand out deterministic tokens and a seed still
  fixes the whole trace.
- the ``flock_*`` methods are the kernel run lock's view of the world
  (:mod:`lanes.governor.state.runlock`): a descriptor, a non-blocking
  ``flock`` on it, its text, and ``flock_close``, which — like the end of the
  process that holds it — lets the lock go. The torture lane models them so
  that both lock layers run under one seeded scheduler.
"""

from __future__ import annotations

import os
import time

from lanes._atomic import flocked, read_text_nofollow, write_atomic

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import Protocol

    class Environment(Protocol):
        """What the lock and ledger may ask of the world."""

        def now(self) -> float:
            """Seconds since the epoch."""
            ...

        def host(self) -> str: ...

        def boot_id(self) -> str:
            """Changes at every reboot; '' when unknown."""
            ...

        def process_start(self, pid: int) -> str | None:
            """An opaque token of ``pid``'s start time; None when no such process
            exists; :data:`UNKNOWN_START` when it exists but the start is unreadable."""
            ...

        def read(self, path: str) -> str | None:
            """The file's text (symlinks refused), or None when it does not exist."""
            ...

        def create_exclusive(self, path: str, text: str) -> bool:
            """Create ``path`` holding ``text`` iff it does not exist (O_EXCL|O_NOFOLLOW)."""
            ...

        def replace(self, path: str, text: str) -> None:
            """Atomically replace ``path`` (temp + fsync + rename)."""
            ...

        def unlink(self, path: str) -> bool:
            """Remove ``path``; False when it was already gone."""
            ...

        def append(self, path: str, line: str) -> None:
            """Append one line (an audit record) with a single write."""
            ...

        def locked(self, path: str) -> AbstractContextManager[None]:
            """Hold an exclusive flock on the sidecar ``path`` for the block."""
            ...

        def new_token(self) -> str:
            """A unique opaque string: who owns a run lock."""
            ...

        def flock_open(self, path: str, *, create: bool) -> int:
            """A descriptor on ``path`` (symlinks refused; created when ``create``,
            never truncated); OSError when it cannot be opened."""
            ...

        def flock_try(self, fd: int, *, exclusive: bool) -> bool:
            """Take ``flock`` on ``fd`` without waiting: False when another holds it."""
            ...

        def flock_read(self, fd: int) -> str:
            """The file's text ('' when unreadable)."""
            ...

        def flock_write(self, fd: int, text: str) -> None:
            """Replace the file's text in place (the holder's record; '' clears it)."""
            ...

        def flock_close(self, fd: int) -> None:
            """Close ``fd``: the last close lets its lock go."""
            ...

        def flock_retry_pause(self) -> None:
            """A short wait before trying a contended lock again."""
            ...


__all__ = ["UNKNOWN_START", "OSEnvironment"]

# process_start() of a process that is alive but whose start time cannot be
# read. It never equals a recorded start, so callers must treat it as "alive,
# identity unknown" — never as proof of death.
UNKNOWN_START = "?"


def _read_boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def _linux_start_time(pid: int) -> str | None:
    """Field 22 of /proc/<pid>/stat: start time in clock ticks since boot."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except FileNotFoundError:
        return None
    except OSError:
        return UNKNOWN_START
    # The command name (field 2) may contain spaces and parentheses; the fields
    # after the *last* ')' are fixed-position.
    fields = stat[stat.rfind(b")") + 2 :].split()
    if len(fields) < 20:
        return UNKNOWN_START
    if fields[0] == b"Z":
        # A zombie has exited; only its parent has not reaped it yet.
        return None
    return fields[19].decode("ascii", errors="replace")


class OSEnvironment:
    """The real world."""

    def __init__(self) -> None:
        self._boot_id: str | None = None

    def now(self) -> float:
        return time.time()

    def host(self) -> str:
        # os.uname() avoids importing socket on the hook's path.
        return os.uname().nodename

    def boot_id(self) -> str:
        if self._boot_id is None:
            self._boot_id = _read_boot_id()
        return self._boot_id

    def process_start(self, pid: int) -> str | None:
        if pid <= 0:
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass  # exists, owned by someone else
        except OSError:
            return UNKNOWN_START
        if os.path.isdir("/proc"):
            return _linux_start_time(pid)
        return UNKNOWN_START

    def read(self, path: str) -> str | None:
        return read_text_nofollow(path)

    def create_exclusive(self, path: str, text: str) -> bool:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        return True

    def replace(self, path: str, text: str) -> None:
        write_atomic(path, text)

    def unlink(self, path: str) -> bool:
        try:
            os.unlink(path)
        except FileNotFoundError:
            return False
        return True

    def append(self, path: str, line: str) -> None:
        data = (line.rstrip("\n") + "\n").encode()
        # O_NONBLOCK: a FIFO planted here fails (ENXIO) instead of hanging.
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK
        fd = os.open(path, flags, 0o644)
        try:
            # One write() of an O_APPEND file is not interleaved with another
            # process's append, so concurrent audit lines never mix.
            os.write(fd, data)
        finally:
            os.close(fd)

    def locked(self, path: str) -> AbstractContextManager[None]:
        return flocked(path)

    def new_token(self) -> str:
        # 128 random bits: two hooks racing in the same microsecond still differ.
        return os.urandom(16).hex()

    # The kernel run lock (lanes.governor.state.runlock). fcntl is imported
    # per call: only a run that reaches the lock pays for it.

    def flock_open(self, path: str, *, create: bool) -> int:
        # O_NOFOLLOW: a planted symlink must not make us truncate another file.
        # No O_TRUNC: a contender that loses must not wipe the holder's text.
        nofollow = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        if create:
            return os.open(path, os.O_RDWR | os.O_CREAT | nofollow, 0o600)
        return os.open(path, os.O_RDONLY | nofollow)

    def flock_try(self, fd: int, *, exclusive: bool) -> bool:
        import fcntl  # POSIX only: docs/architecture.md "Platform"

        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def flock_read(self, fd: int) -> str:
        try:
            data = os.pread(fd, 8192, 0)
        except OSError:
            return ""
        return data.decode("utf-8", "replace")

    def flock_write(self, fd: int, text: str) -> None:
        os.ftruncate(fd, 0)
        if text:
            os.pwrite(fd, text.encode(), 0)

    def flock_close(self, fd: int) -> None:
        os.close(fd)  # closing the last descriptor releases the flock

    def flock_retry_pause(self) -> None:
        time.sleep(0.02)
