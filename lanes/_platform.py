"""lanekit runs on POSIX systems (Linux, macOS, the BSDs) and says so elsewhere.

Its state files are shared under ``fcntl.flock`` and its run lock reads
process start times from ``/proc`` (Linux) or ``ps``; Windows has neither.
Rather than fail with a ``ModuleNotFoundError`` traceback halfway through a
command, every ``lanes`` subcommand checks once, up front.
"""

from __future__ import annotations

import importlib.util
import sys

from lanes.errors import PlatformError

__all__ = ["require_posix"]


def require_posix() -> None:
    """Raise :class:`PlatformError` where ``fcntl`` (POSIX file locks) is missing."""
    if importlib.util.find_spec("fcntl") is None:
        msg = f"lanekit needs a POSIX system (fcntl file locks); this is {sys.platform!r}"
        raise PlatformError(
            msg,
            hint="run lanekit on Linux or macOS; on Windows, inside WSL "
            "(https://learn.microsoft.com/windows/wsl/)",
        )
