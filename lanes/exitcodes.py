"""Exit statuses of every ``lanes`` subcommand, as data (a contract, see docs/architecture.md).

A verdict decides 0 or 1; everything else a command can end in is one row of
:data:`EXIT_TABLE`, looked up by :func:`exit_rule` from the exception and the
*phase* it was raised in. The CLI (:func:`lanes.cli.main`) and the lane driver
(:func:`lanes.lane.drive`) read this table; no handler returns a failure
status of its own choosing.

=====================================  ==================  ====  ==========  =====================================
exception                              phase               exit  report      meaning
=====================================  ==================  ====  ==========  =====================================
(none: the lane's verdict is pass)     work began          0     —           the lane ran and passed
(none: the lane's verdict is fail)     work began          1     —           the lane ran and its verdict is fail
``KeyboardInterrupt``                  any                 130   silent      interrupted (Ctrl-C): 128 + SIGINT
``BrokenPipeError``                    any                 0     silent      the reader of stdout left (``| head``)
``lanes.slow.run.PytestUsageError``    any                 2     hint        pytest refused its command line
``lanes.errors.LanesError``            nothing ran yet     2     hint        usage or configuration error
``lanes.errors.LanesError``            work began          3     hint        the command could not complete
``Exception``                          any                 3     traceback   any other: a lanekit bug, it crashed
=====================================  ==================  ====  ==========  =====================================

(argparse rejects a bad command line itself, with exit 2, before any phase.)

**Phase.** A command starts in :attr:`Phase.NOTHING_RAN`. Its work begins
when a lane's envelope is open (:func:`lanes.envelope.lane_run` marks every
``LanesError`` that leaves it, so no lane can forget), or when a non-lane
command enters :func:`work_began` around the part that writes: from then on a :class:`~lanes.errors.LanesError` means "this
could not complete", exit 3, never "nothing ran" — a lane that measured for
ten minutes and then could not write its baseline did run. A lane's envelope
records such an error as ``stage: "error"`` with ``error: {type, message}``.

**Report.** ``hint``: one ``error:`` line and one ``hint:`` line on stderr and
no traceback (the user can act on it); ``traceback``: the traceback, then an
``error:``/``hint:`` pair saying it is a lanekit bug; ``silent``: nothing.

The rows are checked in order and the first whose exception class is in the
raised exception's MRO (by dotted name, so this module imports no lane) and
whose phase matches wins. :data:`EXIT_TABLE` is plain data so the docs can be
generated from it (``tests/foundation/test_exit_table.py`` ties this docstring's
table to it).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import TYPE_CHECKING

from lanes.errors import LanesError

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "EXIT_TABLE",
    "ExitCode",
    "ExitRule",
    "Phase",
    "Report",
    "exit_rule",
    "phase_of",
    "work_began",
]


class ExitCode(IntEnum):
    OK = 0
    """The lane ran and passed (or the command did what was asked)."""
    FAIL = 1
    """The lane ran and its verdict is fail."""
    USAGE = 2
    """Bad command line or configuration; nothing ran."""
    CRASH = 3
    """The lane could not complete; its envelope says ``stage: "error"``."""
    INTERRUPTED = 130
    """Interrupted by Ctrl-C: the shell's 128 + SIGINT, so scripts see what happened."""


class Phase(Enum):
    """How far the command got when it failed."""

    NOTHING_RAN = "nothing ran yet"
    """Parsing the command line, loading and checking the configuration, reading inputs."""
    WORK_BEGAN = "work began"
    """A lane's envelope is open, or a command entered :func:`work_began`."""


class Report(Enum):
    """What the user sees on stderr."""

    SILENT = "silent"
    HINT = "hint"
    """``error: <message>`` and ``hint: <hint>``, no traceback: the user can act on it."""
    TRACEBACK = "traceback"
    """The traceback, then ``error:``/``hint:`` saying it is a lanekit bug to report."""


@dataclass(frozen=True)
class ExitRule:
    """One row of :data:`EXIT_TABLE`."""

    exception: str
    """Dotted name of the class (builtins by their bare name); subclasses match too."""
    phase: Phase | None
    """The phase this row applies to; ``None`` for any."""
    code: ExitCode
    report: Report
    meaning: str

    def matches(self, exc: BaseException, phase: Phase) -> bool:
        if self.phase is not None and self.phase is not phase:
            return False
        return self.exception in {_dotted(cls) for cls in type(exc).__mro__}


EXIT_TABLE: tuple[ExitRule, ...] = (
    ExitRule(
        "KeyboardInterrupt",
        None,
        ExitCode.INTERRUPTED,
        Report.SILENT,
        "interrupted (Ctrl-C); a lane's envelope records it with stage 'error'",
    ),
    ExitRule(
        "BrokenPipeError",
        None,
        ExitCode.OK,
        Report.SILENT,
        "the reader of stdout left (`lanes classify --jsonl | head`): nothing to report",
    ),
    ExitRule(
        "lanes.slow.run.PytestUsageError",
        None,
        ExitCode.USAGE,
        Report.HINT,
        "pytest refused the arguments after --: it ran no test (the envelope says stage 'error')",
    ),
    ExitRule(
        "lanes.errors.LanesError",
        Phase.NOTHING_RAN,
        ExitCode.USAGE,
        Report.HINT,
        "a usage or configuration error found before any work: nothing ran",
    ),
    ExitRule(
        "lanes.errors.LanesError",
        Phase.WORK_BEGAN,
        ExitCode.CRASH,
        Report.HINT,
        "the command could not complete (a state or baseline file, a suite that cannot "
        "start, ...): a lane's envelope says stage 'error'",
    ),
    ExitRule(
        "Exception",
        None,
        ExitCode.CRASH,
        Report.TRACEBACK,
        "a crash: a bug in lanekit; a lane's envelope says stage 'error'",
    ),
)


def _dotted(cls: type) -> str:
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def phase_of(exc: BaseException) -> Phase:
    """The phase ``exc`` was raised in: :func:`work_began` marks the errors raised inside it."""
    return Phase.WORK_BEGAN if getattr(exc, "work_began", False) else Phase.NOTHING_RAN


def exit_rule(exc: Exception | KeyboardInterrupt) -> ExitRule:
    """The first row of :data:`EXIT_TABLE` for ``exc`` (the ``Exception`` row covers every
    exception; ``SystemExit`` is no failure of a command and never looked up)."""
    phase = phase_of(exc)
    return next(rule for rule in EXIT_TABLE if rule.matches(exc, phase))


@contextmanager
def work_began() -> Iterator[None]:
    """Mark the command's work as begun: a LanesError raised inside is "could not complete".

    Wrap the part of a command that writes (or runs what it measures), after
    it has read and checked its inputs; errors in that reading stay "nothing
    ran" (exit 2). The error keeps its type and message: only its phase changes.
    """
    try:
        yield
    except LanesError as exc:
        exc.work_began = True
        raise
