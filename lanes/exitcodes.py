"""Exit codes of every ``lanes`` subcommand (a contract, see docs/architecture.md).

One enum instead of numbers scattered through the code: a reader of any
``return`` can tell what the caller will see.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ExitCode"]


class ExitCode(IntEnum):
    OK = 0
    """The lane ran and passed (or the command did what was asked)."""
    FAIL = 1
    """The lane ran and its verdict is fail."""
    USAGE = 2
    """Bad command line or configuration; nothing ran."""
    CRASH = 3
    """The lane could not complete; its envelope says ``stage: "error"``."""
