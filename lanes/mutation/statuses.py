"""Every status mutmut can give a mutant, what each means for the score, and the score.

mutmut records a mutant's result as the exit code of the test process that ran
against it (its ``.meta`` files, ``exit_code_by_key``); ``mutmut run`` itself
exits 0 even when mutants survive, so the lane reads the codes, never the exit
status. The table below is ours, written from reading mutmut 3.8's result
files; a test checks it against the installed mutmut's own table, so a new
code in a future mutmut is noticed rather than silently miscounted.

The score is Stryker's: detected / valid, where detected = killed + timeout
and valid = every mutant except the ignored (mutmut's "skipped", and the
mutants a reviewer listed in the baseline as equivalent) and the invalid ones
(the mutant could not run as a test subject: caught by the type checker, or
the test process crashed with a signal).
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from lanes.payloads.mutation import MutationCounts, MutationStatus

__all__ = [
    "DETECTED",
    "INCOMPLETE",
    "NOT_SCORED",
    "Status",
    "counts_by_status",
    "counts_document",
    "score",
    "status_from_exit_code",
    "status_name",
]


class Status(enum.Enum):
    """mutmut's statuses, spelt as mutmut prints them."""

    KILLED = "killed"
    SURVIVED = "survived"
    TIMEOUT = "timeout"
    NO_TESTS = "no tests"
    SUSPICIOUS = "suspicious"
    SKIPPED = "skipped"
    CAUGHT_BY_TYPE_CHECK = "caught by type check"
    SEGFAULT = "segfault"
    NOT_CHECKED = "not checked"
    INTERRUPTED = "check was interrupted by user"


# Exit code of the test process -> status (mutmut 3.8). Any other code is
# "suspicious": the tests ended in a way that is neither a pass nor a failure.
_BY_EXIT_CODE: Final[Mapping[int | None, Status]] = {
    None: Status.NOT_CHECKED,
    0: Status.SURVIVED,
    1: Status.KILLED,
    2: Status.INTERRUPTED,
    3: Status.KILLED,  # pytest's internal error: the mutant broke the run, so it is noticed
    5: Status.NO_TESTS,
    33: Status.NO_TESTS,
    34: Status.SKIPPED,
    35: Status.SUSPICIOUS,
    36: Status.TIMEOUT,
    37: Status.CAUGHT_BY_TYPE_CHECK,
    24: Status.TIMEOUT,  # SIGXCPU: the CPU-time limit mutmut sets from timeout_multiplier
    -24: Status.TIMEOUT,
    152: Status.TIMEOUT,
    255: Status.TIMEOUT,
    -11: Status.SEGFAULT,
    -9: Status.SEGFAULT,
}

DETECTED: Final = frozenset({Status.KILLED, Status.TIMEOUT})
# Not in the denominator: ignored (skipped) and invalid (could not run as a subject).
NOT_SCORED: Final = frozenset({Status.SKIPPED, Status.CAUGHT_BY_TYPE_CHECK, Status.SEGFAULT})
# A finished run never leaves these: one of them means the run stopped early.
INCOMPLETE: Final = frozenset({Status.NOT_CHECKED, Status.INTERRUPTED})


def status_from_exit_code(code: int | None) -> Status:
    return _BY_EXIT_CODE.get(code, Status.SUSPICIOUS)


def status_name(status: Status) -> MutationStatus:
    """The status as the payload spells it (mypy checks that every value is a ``MutationStatus``)."""
    return status.value


def counts_by_status(statuses: Iterable[Status]) -> dict[str, int]:
    """Every status with its count (zeros included, so readers never guess a missing key)."""
    counts = {status.value: 0 for status in Status}
    for status in statuses:
        counts[status.value] += 1
    return counts


def counts_document(counts: Mapping[str, int]) -> MutationCounts:
    """``counts`` as the payload's type: every status, zeros included."""
    return {
        "killed": counts.get("killed", 0),
        "survived": counts.get("survived", 0),
        "timeout": counts.get("timeout", 0),
        "no tests": counts.get("no tests", 0),
        "suspicious": counts.get("suspicious", 0),
        "skipped": counts.get("skipped", 0),
        "caught by type check": counts.get("caught by type check", 0),
        "segfault": counts.get("segfault", 0),
        "not checked": counts.get("not checked", 0),
        "check was interrupted by user": counts.get("check was interrupted by user", 0),
    }


def score(counts: Mapping[str, int], *, equivalent: int = 0) -> float | None:
    """Stryker's mutation score in [0, 1]; ``None`` when no mutant is valid (nothing to score).

    ``equivalent`` survivors (listed in the baseline with a reason) leave the
    denominator and are not counted as survivors.
    """
    detected = sum(counts.get(status.value, 0) for status in DETECTED)
    excluded = sum(counts.get(status.value, 0) for status in NOT_SCORED)
    valid = sum(counts.values()) - excluded - equivalent
    if valid <= 0:
        return None
    return round(detected / valid, 6)
