"""The one exception hierarchy of lanekit.

Every error carries a ``hint``: the next thing the user should do. Subclasses
also inherit the matching standard-library type so callers that know nothing
of lanekit can still catch them generically (``except ValueError``).
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "EnvelopeError",
    "LanesError",
    "PlatformError",
    "StateError",
    "UsageError",
]


class LanesError(Exception):
    """Root of every error lanekit raises on purpose.

    ``hint`` must be non-empty: an error that does not say what to do next is a
    bug in lanekit (the fuzz lane checks this on every parser).
    """

    work_began: bool = False
    """Set when the error was raised after the command's work began (an open
    envelope, :func:`lanes.exitcodes.work_began`): it then exits 3, "could not
    complete", instead of 2, "nothing ran" (the table in :mod:`lanes.exitcodes`)."""

    def __init__(self, message: str, *, hint: str) -> None:
        if not hint.strip():
            msg = (
                f"LanesError {message!r} was raised without a hint; every error must say what to do"
            )
            raise ValueError(msg)
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[object, ...]:
        # Exceptions pickle as cls(*args), which cannot pass the keyword-only
        # hint; an error raised in a worker process (concurrent.futures,
        # multiprocessing) must reach the parent as itself, not break the pool.
        return (_rebuild, (type(self), self.message, self.hint), self.__dict__)


def _rebuild(cls: type[LanesError], message: str, hint: str) -> LanesError:
    return cls(message, hint=hint)


class ConfigError(LanesError, ValueError):
    """``[tool.lanes]`` (or a file it points at) is missing, malformed or impossible."""


class UsageError(LanesError, ValueError):
    """The command line asks for something that cannot be done."""


class EnvelopeError(LanesError, ValueError):
    """A lane envelope is unreadable or does not match the schema."""


class StateError(LanesError, OSError):
    """A state, baseline or artifact file could not be read or written."""


class PlatformError(LanesError, OSError):
    """lanekit needs POSIX (``fcntl`` file locks); this platform does not have it."""
