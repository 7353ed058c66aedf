"""The modelled :class:`~lanes.governor.state.env.Environment`: one view per client.

Every file operation and every flock acquisition is a **yield point**: the
client's fiber hands control back to the scheduler, which resumes it when it
picks it; only then does the operation happen. Exactly one fiber runs at a
time, so a run is a pure function of the scheduler's choices.

The clock, process table, host, boot id and tokens come from the
:class:`~lanes.torture.world.World`; reads and writes hit real files in the
run's temporary state directory (unsynced: power loss is not modelled). The
environment also reports each lock and ledger mutation to the invariants, at
the moment it happens.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING

from greenlet import GreenletExit

from lanes.torture import invariants

if TYPE_CHECKING:
    from greenlet import greenlet

    from lanes.torture.world import Client, World

__all__ = ["SimEnvironment"]

_READ = os.O_RDONLY | os.O_NOFOLLOW
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
_APPEND = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW


class SimEnvironment:
    def __init__(self, world: World, client: Client, hub: greenlet) -> None:
        self.world = world
        self.client = client
        self._hub = hub
        self._tmp = 0
        paths = world.paths
        self._lock = paths.lock
        self._ledger = paths.ledger
        self._names = {
            paths.lock: "lock",
            paths.lock_guard: "guard",
            paths.ledger: "ledger",
            paths.ledger_guard: "ledger-guard",
            paths.flock: "run-flock",
        }
        self.closed = False

    def pause(self, label: str, waits_for: str | None = None) -> None:
        """Yield to the scheduler; return when it picks this client."""
        if self.closed:
            # The run is over (a violation stopped it): unwind this fiber
            # without touching the world again.
            raise GreenletExit
        client = self.client
        client.pending = label
        client.waits_for = waits_for
        self._hub.switch()
        if self.closed:
            raise GreenletExit

    def _name(self, path: str) -> str:
        return self._names.get(path) or os.path.basename(path)

    # ------------------------------------------------------------------ the world

    def now(self) -> float:
        return self.world.now

    def host(self) -> str:
        return self.client.host

    def boot_id(self) -> str:
        return self.client.boot

    def process_start(self, pid: int) -> str | None:
        self.pause(f"proc {pid}")
        return self.world.process_start(self.client.host, pid)

    def new_token(self) -> str:
        return self.world.new_token(self.client)

    # ------------------------------------------------------------------ files

    def read(self, path: str) -> str | None:
        self.pause("read " + self._name(path))
        try:
            fd = os.open(path, _READ)
        except FileNotFoundError:
            text = None
        else:
            # os.read over open(): a buffered file object costs more than the
            # read itself, and this is the lane's hottest call.
            try:
                chunks = []
                while chunk := os.read(fd, 65536):
                    chunks.append(chunk)
            finally:
                os.close(fd)
            text = b"".join(chunks).decode("utf-8", errors="replace")
        if path == self._ledger:
            self.client.last_ledger_text = text
        elif path == self._lock:
            self.client.last_lock_text = text
        return text

    def create_exclusive(self, path: str, text: str) -> bool:
        self.pause("create " + self._name(path))
        try:
            fd = os.open(path, _CREATE, 0o644)
        except FileExistsError:
            return False
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)
        if path == self._lock:
            invariants.lock_created(self.world, self.client, text)
        return True

    def replace(self, path: str, text: str) -> None:
        self.pause("replace " + self._name(path))
        if path == self._ledger and self.client.ledger_fault:
            raise OSError(errno.ENOSPC, "No space left on device (modelled)", path)
        if path == self._lock:
            invariants.lock_overwritten(self.world, self.client, text)
        self._tmp += 1
        tmp = f"{path}.c{self.client.id}.{self._tmp}.tmp"
        if path == self._ledger and self.client.temp_fault:
            # A killed hook's leftover under the very name this write takes:
            # the exclusive create below fails, as it did with pid reuse.
            with open(tmp, "w", encoding="utf-8") as leftover:
                leftover.write("half a ledger")
        fd = os.open(tmp, _CREATE, 0o644)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)
        os.replace(tmp, path)
        if path == self._ledger:
            self.world.ledger_seen = text
            invariants.ledger_written(self.world, self.client, text)

    def unlink(self, path: str) -> bool:
        self.pause("unlink " + self._name(path))
        if path == self._lock and self.world.lock_text is not None:
            invariants.lock_removed(self.world, self.client)
        try:
            os.unlink(path)
        except FileNotFoundError:
            return False
        return True

    def append(self, path: str, line: str) -> None:
        self.pause("append " + self._name(path))
        fd = os.open(path, _APPEND, 0o644)
        try:
            os.write(fd, (line.rstrip("\n") + "\n").encode())
        finally:
            os.close(fd)

    def locked(self, path: str) -> AbstractContextManager[None]:
        return self._flock(path)

    # ------------------------------------------------------------------ the kernel run lock
    # Real descriptors on the real lock file (its text is real); the flock on
    # them is the world's model, released by a close or by the process's death.

    def flock_open(self, path: str, *, create: bool) -> int:
        self.pause("open " + self._name(path))
        flags = (os.O_RDWR | os.O_CREAT if create else os.O_RDONLY) | os.O_NOFOLLOW
        fd = os.open(path, flags, 0o600)
        self.world.kfds[fd] = (self.client.id, path)
        return fd

    def flock_try(self, fd: int, *, exclusive: bool) -> bool:
        path = self.world.kfds[fd][1]
        self.pause(("flock-ex " if exclusive else "flock-sh ") + self._name(path))
        return self.world.try_kflock(fd, exclusive=exclusive)

    def flock_read(self, fd: int) -> str:
        self.pause("read " + self._name(self.world.kfds[fd][1]))
        return os.pread(fd, 8192, 0).decode("utf-8", "replace")

    def flock_write(self, fd: int, text: str) -> None:
        self.pause("write " + self._name(self.world.kfds[fd][1]))
        os.ftruncate(fd, 0)
        if text:
            os.pwrite(fd, text.encode(), 0)

    def flock_close(self, fd: int) -> None:
        self.pause("close " + self._name(self.world.kfds[fd][1]))
        self.world.close_kfd(fd)

    def flock_retry_pause(self) -> None:
        self.pause("flock retry")

    @contextmanager
    def _flock(self, path: str) -> Iterator[None]:
        world = self.world
        if path == world.paths.lock_guard and self.client.guard_fault:
            # The guard's open fails (a directory at its path): nothing to wait for.
            self.pause("open guard")
            raise IsADirectoryError(errno.EISDIR, "Is a directory (modelled guard fault)", path)
        holder = world.mutex.get(path)
        if holder is not None and holder != self.client.id:
            world.counters.flock_waits += 1
        # The scheduler resumes us only once the mutex is free (a fiber asking
        # for a flock it already holds waits forever, as a second open file
        # description of the same file would under real flock).
        self.pause("flock " + self._name(path), waits_for=path)
        world.mutex[path] = self.client.id
        try:
            yield
        finally:
            # Process death releases a real flock; so does unwinding here.
            if world.mutex.get(path) == self.client.id:
                del world.mutex[path]


# A factory type for planted-bug environments (see lanes.torture.planted).
EnvFactory = Callable[["World", "Client", "greenlet"], SimEnvironment]
