"""Whose state is this? Refuse state another local user could have written.

The ledger says which suites passed; the lock says who may run; the config
cache says what the gate enforces. In a directory another user can write
(a world-writable ``LANES_STATE_DIR``, a shared ``/tmp``), anyone could forge
a PASS or plant a lock. Like ssh with its keys, the governor trusts a state
directory or file only when it belongs to the current user and nobody else
can write it (no ``o+w``; group-writable is accepted, since a shared-group
checkout with ``umask 002`` makes every directory so, and the group already
shares the repository itself).

A refused state dir fails open for advice (no dedup, no lock, nothing
recorded) and closed for the full-sweep override, which must be audited
there; ``lanes governor status`` says why.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["distrust", "distrust_state"]

# stat.S_IWOTH, spelled out: this module is on the hook's path.
_OTHERS_WRITE = 0o002


def distrust(path: str) -> str | None:
    """Why ``path`` (followed if a link) cannot be trusted; None when it can or is absent."""
    try:
        info = os.stat(path)
    except OSError:
        return None  # absent or unreadable: the readers refuse it themselves
    if info.st_uid != os.geteuid():
        return f"{path} is owned by uid {info.st_uid}, not by you (uid {os.geteuid()})"
    if info.st_mode & _OTHERS_WRITE:
        return f"{path} is writable by other users (mode {info.st_mode & 0o7777:o})"
    return None


def distrust_state(state_dir: str, files: Iterable[str]) -> str | None:
    """Why the state dir or one of its ``files`` (paths) cannot be trusted; None if all can."""
    for path in (state_dir, *files):
        problem = distrust(path)
        if problem is not None:
            return problem
    return None
