"""The retry lane's payload (``lanes retry run``, ``envelopes/retry.json``).

:class:`RetryPolicy` is what the policy decided on one suite (the self-check
runs it on planted suites too); :class:`RetryData` adds the lane's list and
self-check. The report has no view of its own for this lane: it shows the
data as the generic table, in the order of these keys.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from lanes.payloads.constraints import Doc, Min, MinLength
from lanes.payloads.planted import PlantedFault  # noqa: TC001  # the schema generator resolves annotations at runtime

__all__ = [
    "RetryBlocker",
    "RetryBlockerKind",
    "RetryData",
    "RetryFailure",
    "RetryFirstAttempt",
    "RetryPolicy",
    "RetrySecondAttempt",
    "RetrySelfCheck",
]

# lanes.retry.policy.Blocker has the same values (mypy checks the writer).
RetryBlockerKind = Literal[
    "not-a-timeout",
    "unlisted-timeout",
    "collection-error",
    "session-error",
    "worker-crashed",
    "coverage-shortfall",
    "unexplained-exit",
]


class RetryFailure(TypedDict):
    """One failed test of an attempt, as the recording plugin saw it."""

    nodeid: str
    when: Literal["setup", "call", "teardown"]
    file: str
    timeout: Annotated[bool, Doc("pytest-timeout's timer fired for this test")]


class RetryFirstAttempt(TypedDict):
    """The first attempt: pytest's exit status and its failed tests."""

    exit: int
    recorded: Annotated[
        bool, Doc("false when pytest ended without finishing its session (no attempt record)")
    ]
    failures: list[RetryFailure]


class RetrySecondAttempt(TypedDict):
    """The one retry: the failed tests of the first attempt, run again."""

    exit: int
    failures: list[RetryFailure]


class RetryBlocker(TypedDict):
    """Something that refused the retry."""

    kind: RetryBlockerKind
    detail: Annotated[str, MinLength(1)]


class RetrySelfCheck(TypedDict):
    """What the planted suites should give (expected) and gave (observed), per suite."""

    passed: bool
    expected: dict[str, object]
    observed: dict[str, object]
    planted: Annotated[
        list[PlantedFault],
        Doc("faults planted in the policy's own logic (interrupted runs); each must be caught"),
    ]


class RetryPolicy(TypedDict):
    """The policy on one suite: the first attempt, the decision, and the retry if allowed."""

    pytest_args: list[str]
    first: RetryFirstAttempt
    retried: Annotated[
        list[Annotated[str, MinLength(1)]],
        Doc("node ids re-run once; empty when no retry happened"),
    ]
    because: Annotated[
        str, Doc("why the retry was allowed, or that none was needed; empty when refused")
    ]
    blockers: list[RetryBlocker]
    second: RetrySecondAttempt | None


class RetryData(RetryPolicy):
    """The contention-retry policy (lanes retry run): one re-run of the failed tests, allowed
    only when every failure is a pytest-timeout timeout (proven by its timer, never by text)
    in a file listed in entries_file."""

    entries_file: Annotated[str, MinLength(1)]
    entries: Annotated[int, Min(0)]
    self_check: Annotated[
        RetrySelfCheck | None,
        Doc(
            "lanes retry run --self-check: planted suites (listed timeout retried and passing; "
            "unlisted timeout and listed assertion refused); null when not requested"
        ),
    ]
