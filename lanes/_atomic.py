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

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType

__all__ = [
    "STALE_TEMP_SECONDS",
    "OutsideTreeError",
    "flocked",
    "flocked_directory",
    "read_text_nofollow",
    "remove_stale_temps",
    "write_atomic",
    "write_atomic_under",
]

# A temp file older than this was left by a writer that was killed: a write
# takes milliseconds, and even a stalled fsync does not take ten minutes.
STALE_TEMP_SECONDS = 600


def _temp_name(target: str) -> str:
    # pid for the humans reading a directory listing; 64 random bits so that a
    # killed writer's leftover never collides with a later writer that got
    # the same pid (O_EXCL would then fail the write).
    directory = os.path.dirname(target) or "."
    token = os.urandom(8).hex()
    return os.path.join(directory, f".{os.path.basename(target)}.{os.getpid()}.{token}.tmp")


def write_atomic(path: str | os.PathLike[str], data: str | bytes, *, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` so readers see the old or the new file, never a mix."""
    target = os.fspath(path)
    tmp = _temp_name(target)
    payload = data.encode() if isinstance(data, str) else data
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    try:
        with os.fdopen(fd, "wb", closefd=True) as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        # A failed write must not leave droppings that the next writer trips on.
        try:  # noqa: SIM105  # contextlib.suppress would put contextlib on the hook's path
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    remove_stale_temps(target)


class OutsideTreeError(OSError):
    """A write under a root would leave it: the path is outside, or a directory
    on the way down is a symlink (or not a directory at all)."""


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def _descend(root: str, parts: list[str]) -> int:
    """A descriptor of ``root/parts...``, each part created if missing and never followed.

    ``root`` itself is opened as named (the user chose it, links and all);
    below it every step is ``O_NOFOLLOW`` relative to the parent's descriptor,
    so a symlinked ``envelopes/`` or ``.github/`` cannot carry a write
    elsewhere, and a swap after a check cannot either (no path is re-resolved).
    """
    fd = os.open(root, _DIR_FLAGS)
    try:
        for part in parts:
            try:  # noqa: SIM105  # contextlib.suppress would put contextlib on the hook's path
                os.mkdir(part, 0o777, dir_fd=fd)
            except FileExistsError:
                pass
            try:
                child = os.open(part, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:  # ELOOP or ENOTDIR: a symlink, a file, a FIFO
                msg = f"{part!r} under {root!r} is a symlink or not a directory"
                raise OutsideTreeError(exc.errno, msg) from None
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_atomic_under(
    root: str | os.PathLike[str],
    path: str | os.PathLike[str],
    data: str | bytes,
    *,
    mode: int = 0o644,
) -> None:
    """:func:`write_atomic` for a file inside a project tree: confined to ``root``.

    ``path`` must lie under ``root`` (compared on absolute paths; ``..`` that
    climbs out is refused). Missing directories are created; every directory
    below ``root`` is opened without following links and the temp file and the
    rename are relative to the last one's descriptor, so the write lands in
    the tree or not at all (:class:`OutsideTreeError`). A symlink at the final
    name is replaced, never followed (``rename`` does not follow).
    """
    base = os.path.abspath(os.fspath(root))
    target = os.path.abspath(os.fspath(path))
    relative = os.path.relpath(target, base)
    parts = relative.split(os.sep)
    if relative in (".", os.curdir) or parts[0] == os.pardir:
        msg = f"{target!r} is not inside {base!r}"
        raise OutsideTreeError(msg)
    name = parts.pop()
    temp = os.path.basename(_temp_name(target))
    payload = data.encode() if isinstance(data, str) else data
    directory = _descend(base, parts)
    try:
        fd = os.open(
            temp,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
            mode,
            dir_fd=directory,
        )
        try:
            with os.fdopen(fd, "wb", closefd=True) as handle:
                handle.write(payload)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, name, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException:
            try:  # noqa: SIM105  # contextlib.suppress would put contextlib on the hook's path
                os.unlink(temp, dir_fd=directory)
            except FileNotFoundError:
                pass
            raise
    finally:
        os.close(directory)
    remove_stale_temps(target)


def remove_stale_temps(path: str | os.PathLike[str], *, now: float | None = None) -> list[str]:
    """Delete the temp files a killed writer of ``path`` left behind; the names removed.

    Only files that are certainly ours and certainly dead: named
    ``.<basename>.<pid>.<token>.tmp`` beside ``path``, regular files (never a
    link: ``lstat``), owned by this user, untouched for :data:`STALE_TEMP_SECONDS`.
    Never raises: cleaning up is a courtesy, not part of the write.
    """
    target = os.fspath(path)
    directory = os.path.dirname(target) or "."
    prefix = f".{os.path.basename(target)}."
    removed: list[str] = []
    try:
        names = [n for n in os.listdir(directory) if n.startswith(prefix) and n.endswith(".tmp")]
    except OSError:
        return removed
    if not names:
        return removed
    import stat  # only when a leftover exists
    import time

    cutoff = (time.time() if now is None else now) - STALE_TEMP_SECONDS
    uid = os.geteuid()
    for name in names:
        pid, _, token = name[len(prefix) : -len(".tmp")].partition(".")
        if not pid.isdigit() or not token or "." in token:
            continue  # not a name write_atomic makes
        candidate = os.path.join(directory, name)
        try:
            info = os.lstat(candidate)
            if stat.S_ISREG(info.st_mode) and info.st_uid == uid and info.st_mtime < cutoff:
                os.unlink(candidate)
                removed.append(name)
        except OSError:
            continue
    return removed


def read_text_nofollow(path: str | os.PathLike[str]) -> str | None:
    """Return the file's text, or None when it does not exist.

    Refuses symlinks (``OSError`` with ELOOP) so a planted link cannot make us
    read, and then trust, another file; refuses a FIFO, device or directory
    (``OSError``) without blocking on it, and a file past 16 MiB.
    """
    from lanes._jsondoc import read_bytes  # json stays off importers' path

    data = read_bytes(path)
    return None if data is None else data.decode("utf-8", errors="replace")


class _Flock:
    """An exclusive ``fcntl.flock`` held for a ``with`` block, on the descriptor
    ``open_fd()`` returns. A class rather than ``@contextmanager``: contextlib
    (with collections and functools behind it) would cost the hook's path
    about a tenth of an interpreter start."""

    __slots__ = ("_fd", "_open_fd")

    def __init__(self, open_fd: Callable[[], int]) -> None:
        self._open_fd = open_fd
        self._fd = -1

    def __enter__(self) -> None:
        fd = self._open_fd()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # Closing the descriptor releases the flock.
        fd, self._fd = self._fd, -1
        os.close(fd)


def flocked(lock_path: str | os.PathLike[str]) -> _Flock:
    """Hold an exclusive ``fcntl.flock`` on a sidecar file for the block.

    The sidecar is never the data file itself: ``os.replace`` swaps the data
    file's inode, and a lock held on the old inode would guard nothing.
    """
    # O_NONBLOCK: a FIFO planted at the sidecar must not hang the open (flock
    # itself still blocks: LOCK_NB is a separate flag).
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    return _Flock(lambda: os.open(os.fspath(lock_path), flags, 0o644))


def flocked_directory(directory: str | os.PathLike[str]) -> _Flock:
    """Hold an exclusive ``fcntl.flock`` on ``directory`` itself for the block.

    For committed baselines: a sidecar lock file next to a committed baseline
    is one ``git add .`` away from being committed, while the directory needs
    no new file. Two agents editing at once would otherwise lose one edit.
    """

    def open_directory() -> int:
        os.makedirs(directory, exist_ok=True)
        return os.open(os.fspath(directory), os.O_RDONLY | os.O_DIRECTORY)

    return _Flock(open_directory)
