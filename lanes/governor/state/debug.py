"""The governor's debug log: JSONL, written only when ``LANES_DEBUG=1``.

Because the governor fails open, a skipped or failed hook is silent to the
agent; this log is how a human finds out why. It lives next to the per-user
economy store (``$XDG_STATE_HOME/lanekit/debug.jsonl``).
"""

from __future__ import annotations

import os

__all__ = ["debug_enabled", "debug_log", "user_state_dir"]


def user_state_dir() -> str:
    """``$XDG_STATE_HOME/lanekit`` (default ``~/.local/state/lanekit``)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return os.path.join(base, "lanekit")


def debug_enabled() -> bool:
    return os.environ.get("LANES_DEBUG") == "1"


def debug_log(event: str, **fields: object) -> None:
    """Append one record; never raises (a broken log must not break the hook)."""
    if not debug_enabled():
        return
    # Imported here, not at the top: the hook's pre-screen imports this module
    # on every shell command, and json and time are only needed when logging.
    import json
    import time

    record = {"ts": round(time.time(), 3), "event": event, "pid": os.getpid(), **fields}
    try:
        directory = user_state_dir()
        os.makedirs(directory, exist_ok=True)
        line = json.dumps(record, default=str) + "\n"
        fd = os.open(
            os.path.join(directory, "debug.jsonl"),
            # O_NONBLOCK: a FIFO here fails (ENXIO) instead of hanging the hook.
            os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK,
            0o644,
        )
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)
    except OSError:
        pass  # the log is best effort by design
