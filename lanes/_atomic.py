"""Atomic file writes and advisory locks shared by every state file.

Stdlib only and cheap to import (no ``tempfile``, no ``pathlib``): the governor
uses these helpers on the hook's hot path.

Why each step:
- the temp file lives in the destination's directory, because ``os.replace``
  is only atomic within one filesystem;
- ``fsync`` before ``replace``, because after a power cut a renamed-but-unsynced
  file can be empty, which a reader would take for a corrupt ledger;
- ``O_NOFOLLOW`` on the temp file, because the state directory may be shared
  and a planted symlink must not redirect our write.
"""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager, suppress

# Not `from typing import TYPE_CHECKING`: typing costs about half an interpreter
# start, and the governor imports this module on the hook's path.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["flocked", "flocked_directory", "read_text_nofollow", "write_atomic"]

_counter = 0


def write_atomic(path: str | os.PathLike[str], data: str | bytes, *, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` so readers see the old or the new file, never a mix."""
    global _counter
    _counter += 1
    target = os.fspath(path)
    directory = os.path.dirname(target) or "."
    tmp = os.path.join(directory, f".{os.path.basename(target)}.{os.getpid()}.{_counter}.tmp")
    payload = data.encode() if isinstance(data, str) else data
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    try:
        with os.fdopen(fd, "wb", closefd=True) as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        # A failed write must not leave droppings that the next writer trips on.
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def read_text_nofollow(path: str | os.PathLike[str]) -> str | None:
    """Return the file's text, or None when it does not exist.

    Refuses symlinks (``OSError`` with ELOOP) so a planted link cannot make us
    read, and then trust, another file.
    """
    try:
        fd = os.open(os.fspath(path), os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as handle:
        return handle.read().decode("utf-8", errors="replace")


@contextmanager
def flocked(lock_path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold an exclusive ``fcntl.flock`` on a sidecar file for the block.

    The sidecar is never the data file itself: ``os.replace`` swaps the data
    file's inode, and a lock held on the old inode would guard nothing.
    """
    fd = os.open(os.fspath(lock_path), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        # Closing the descriptor releases the flock.
        os.close(fd)


@contextmanager
def flocked_directory(directory: str | os.PathLike[str]) -> Iterator[None]:
    """Hold an exclusive ``fcntl.flock`` on ``directory`` itself for the block.

    For committed baselines: a sidecar lock file next to a committed baseline
    is one ``git add .`` away from being committed, while the directory needs
    no new file. Two agents editing at once would otherwise lose one edit.
    """
    os.makedirs(directory, exist_ok=True)
    fd = os.open(os.fspath(directory), os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
