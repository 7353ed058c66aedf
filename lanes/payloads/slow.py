"""The slow lane's payload: what ``lanes slow run`` writes, the report's slow view reads.

Two writers share it: the enabled pytest plugin builds the ratchet's part
(:class:`SlowRatchet`, :func:`lanes.slow.report.envelope_data`) in the child
pytest, and ``lanes slow run`` adds how pytest exited and the self-check
(:class:`SlowData`). The plugin is on every enabled test run's import path
(the bench lane holds it to 2% of a suite's instructions), so lane code names
these types only under ``TYPE_CHECKING``.

Durations are integer milliseconds (:data:`SlowMs`).
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from lanes.payloads.constraints import Doc, Min, MinLength, Pattern
from lanes.payloads.planted import PlantedFault  # noqa: TC001  # the schema generator resolves annotations at runtime

__all__ = [
    "SlowCounts",
    "SlowData",
    "SlowFixture",
    "SlowFixtureScope",
    "SlowJudged",
    "SlowMs",
    "SlowPin",
    "SlowPinState",
    "SlowRatchet",
    "SlowRetimed",
    "SlowSelfCheck",
    "SlowSelfCheckOutcome",
    "SlowSlowest",
    "SlowTest",
    "SlowTier",
    "SlowTighten",
]

SlowMs = Annotated[int, Min(0)]
"""A duration in integer milliseconds."""

_NodeId = Annotated[str, MinLength(1)]
_TierName = Annotated[str, MinLength(1)]

SlowPinState = Literal["removable", "within-budget", "holding", "over-ceiling", "broken", "not-run"]
"""The values of :class:`lanes.slow.verdicts.PinState` (a test ties the two)."""

SlowFixtureScope = Literal["class", "module", "package", "session"]
"""pytest's fixture scopes wider than function: the ones charged to no test."""


class SlowJudged(TypedDict):
    """A test the ratchet judged past its budget: an offender, a band test or an unconfirmed one."""

    nodeid: _NodeId
    tier: _TierName
    ms: SlowMs
    budget_ms: SlowMs
    limit_ms: SlowMs
    pinned: bool
    own_budget: Annotated[
        bool, Doc("budget_ms is the test's own (@pytest.mark.slow_budget), not its tier's")
    ]
    attempts: Annotated[
        int,
        Min(1),
        Doc("call phases run (pytest-rerunfailures); ms is the slowest attempt"),
    ]
    samples_ms: Annotated[
        list[SlowMs],
        Doc("confirmation re-timings; a failure stands only if every one is past limit_ms"),
    ]


class SlowCounts(TypedDict):
    """How many tests were judged, and where they landed."""

    judged: Annotated[int, Min(0)]
    ok: Annotated[int, Min(0)]
    band: Annotated[int, Min(0)]
    fail: Annotated[int, Min(0)]


class SlowSlowest(TypedDict):
    """One of the slowest tests, its time split into call and function-scoped fixture setup."""

    nodeid: _NodeId
    tier: _TierName
    ms: SlowMs
    call_ms: SlowMs
    fixtures_ms: SlowMs


class SlowTier(TypedDict):
    """One tier's budget and the spread of its tests' durations."""

    name: _TierName
    budget_ms: SlowMs
    count: Annotated[int, Min(0)]
    total_ms: SlowMs
    p50_ms: SlowMs
    p90_ms: SlowMs
    max_ms: SlowMs
    slowest: str | None
    slowest_tests: Annotated[
        list[SlowSlowest], Doc("the tier's slowest tests ([tool.lanes.slow] slowest_per_tier)")
    ]


class SlowPin(TypedDict):
    """A pinned test (``baselines/slow-tests.json``) and how it did in this run."""

    nodeid: _NodeId
    tier: _TierName
    ceiling_ms: SlowMs
    reason: str
    tracking: str
    added: Annotated[str, Pattern("^[0-9]{4}-[0-9]{2}-[0-9]{2}$")]
    state: SlowPinState
    ms: SlowMs | None
    history_ms: Annotated[
        list[SlowMs],
        Doc("the pin's recent measurements, oldest first, this run included (kept across runs)"),
    ]
    streak: Annotated[
        int,
        Min(0),
        Doc(
            "consecutive measured runs, ending with the last, within the tier budget; "
            "removable at removable_after"
        ),
    ]


class SlowTighten(TypedDict):
    """A tier whose slowest test uses a small share of its budget: a budget to tighten."""

    tier: _TierName
    budget_ms: SlowMs
    slowest_ms: SlowMs
    suggested_budget_ms: SlowMs
    message: Annotated[str, MinLength(1)]


class SlowFixture(TypedDict):
    """The setup cost of a fixture wider than function scope, charged to no test."""

    name: Annotated[str, MinLength(1)]
    scope: SlowFixtureScope
    count: Annotated[int, Min(1)]
    total_ms: SlowMs
    max_ms: SlowMs
    first: Annotated[str, MinLength(1)]


class SlowTest(TypedDict):
    """One judged test's duration."""

    nodeid: _NodeId
    tier: _TierName
    ms: SlowMs


class SlowSelfCheckOutcome(TypedDict):
    """What the planted project's run must produce (expected) or produced (observed)."""

    pytest_exit: int
    offenders: list[str]
    band: list[str]


class SlowSelfCheck(TypedDict):
    """``lanes slow run --self-check``: the planted project's run against what it must give."""

    passed: bool
    expected: SlowSelfCheckOutcome
    observed: SlowSelfCheckOutcome
    planted: Annotated[
        list[PlantedFault],
        Doc("faults planted in the ratchet's own logic (partial marking); each must be caught"),
    ]


class SlowRetimed(TypedDict):
    """Which child process re-timed the offenders, and why that one."""

    child: Annotated[
        Literal["forked", "spawned"],
        Doc(
            "forked: a fork of the finished run (no start-up, no collection); "
            "spawned: a freshly started pytest"
        ),
    ]
    why: Annotated[
        str,
        MinLength(1),
        Doc("what the fork saves, or why the run could not fork (xdist workers, threads, ...)"),
    ]


class SlowRatchet(TypedDict):
    """The ratchet's verdicts, as the pytest plugin writes them (``--slow-json``)."""

    verdict: Annotated[
        Literal["pass", "fail"], Doc("the ratchet's own verdict, independent of test outcomes")
    ]
    partial: Annotated[
        bool,
        Doc(
            "true when the run judged only part of the suite (paths, -k, -m, --lf, "
            "deselection, stopped early): its pass says nothing about the rest"
        ),
    ]
    partial_reasons: Annotated[
        list[Annotated[str, MinLength(1)]],
        Doc("why the run is partial, e.g. 'selected paths: tests/test_x.py'; empty for a full run"),
    ]
    pytest_args: Annotated[list[str], Doc("the arguments pytest was invoked with")]
    confirm: Annotated[
        int,
        Min(0),
        Doc("confirmation re-timings per offender; 0 = a single sample decides"),
    ]
    retimed: Annotated[
        SlowRetimed | None, Doc("how the offenders were re-timed; null when none was")
    ]
    removable_after: Annotated[
        int,
        Min(1),
        Doc("consecutive runs within the tier budget after which a pin is removable"),
    ]
    phases: Literal["call+function-fixtures"]
    fail_factor: Annotated[float, Min(1)]
    pins_file: Annotated[str, MinLength(1)]
    workers: Annotated[int, Min(0), Doc("xdist workers that sent reports; 0 = in-process")]
    outcomes: dict[str, Annotated[int, Min(0)]]
    counts: SlowCounts
    tiers: list[SlowTier]
    offenders: list[SlowJudged]
    unconfirmed: Annotated[
        list[SlowJudged],
        Doc(
            "past the limit in the suite run but not in every confirmation sample: "
            "reported, not failing"
        ),
    ]
    band: list[SlowJudged]
    pins: list[SlowPin]
    tighten: list[SlowTighten]
    slowest: Annotated[
        list[SlowSlowest], Doc("the slowest tests ([tool.lanes.slow] slowest, default 10)")
    ]
    fixtures: Annotated[
        list[SlowFixture], Doc("setup of fixtures wider than function scope, charged to no test")
    ]
    tests: list[SlowTest]


class SlowData(SlowRatchet):
    """The slow-test ratchet (lanes slow run). Durations in integer milliseconds; a test's ms
    covers its call phase plus its function-scoped fixture setup (phases)."""

    pytest_exit: Annotated[
        Literal[0, 1], Doc("pytest's exit status: 0 every test passed, 1 some failed")
    ]
    self_check: Annotated[
        SlowSelfCheck | None,
        Doc(
            "lanes slow run --self-check: a planted project whose slow test the ratchet must "
            "fail; null when not requested"
        ),
    ]
