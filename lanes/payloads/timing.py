"""The timing lane's payload (``lanes timing``): what each suite costs, and its Δ.

:class:`TimingData` is the envelope's ``data``; :mod:`lanes.timing` builds it
(a suite's figures in :mod:`lanes.timing.suite`, the Δ in
:mod:`lanes.timing.baseline`, the row in :mod:`lanes.timing.table`) and
:mod:`lanes.report.views.timing` reads it.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict

from lanes.payloads.constraints import Doc, Min, MinItems, MoreThan
from lanes.payloads.planted import PlantedFault  # noqa: TC001  # the schema generator resolves annotations at runtime

__all__ = [
    "TimingArm",
    "TimingArmName",
    "TimingBaseline",
    "TimingCheck",
    "TimingCollectedChange",
    "TimingComparison",
    "TimingData",
    "TimingFingerprint",
    "TimingFlag",
    "TimingGate",
    "TimingMeasurement",
    "TimingMetric",
    "TimingMetricName",
    "TimingOffenderFile",
    "TimingOffenderFixture",
    "TimingOffenderTest",
    "TimingOffenders",
    "TimingProcess",
    "TimingRecord",
    "TimingRow",
    "TimingSample",
    "TimingSelfCheck",
    "TimingSizing",
    "TimingStat",
    "TimingSuite",
    "TimingXdist",
    "TimingXdistFigures",
]

TimingArmName = Literal["serial", "xdist"]
TimingMetricName = Literal["wall_ms", "cpu_ms", "peak_rss_kib"]
TimingFlag = Literal["regressed", "improved", "within noise"]


class TimingFingerprint(TypedDict):
    """The host: two measurements compare only when these (and the suite's python and command) are equal."""

    cpu_count: Annotated[int, Min(1)]
    cpu_model: str
    platform: str
    machine: str


class TimingBaseline(TypedDict):
    """The baseline file compared against (its state before --record wrote it)."""

    path: str
    present: bool
    recorded_at: str | None
    commit: str | None
    fingerprint: TimingFingerprint | None


class TimingRecord(TypedDict):
    """--record: whether the baseline was written; reason: why not, or that it was recorded from a failing run."""

    requested: bool
    written: bool
    reason: str | None


class TimingStat(TypedDict):
    """A figure over an arm's repeats."""

    median: Annotated[int, Min(0)]
    min: Annotated[int, Min(0)]
    max: Annotated[int, Min(0)]


class TimingProcess(TypedDict):
    """One pytest process of the median run (the controller, or an xdist worker)."""

    role: str
    peak_rss_kib: Annotated[int, Min(0)]
    cpu_ms: Annotated[int, Min(0)]


class TimingSample(TypedDict):
    """One run of an arm."""

    wall_ms: Annotated[int, Min(0)]
    cpu_ms: Annotated[int, Min(0)]
    user_ms: Annotated[int, Min(0)]
    system_ms: Annotated[int, Min(0)]
    peak_rss_kib: Annotated[int, Min(0)]
    tree_peak_rss_kib: Annotated[int, Min(0)]
    exit_code: int


class TimingArm(TypedDict):
    """One arm of a suite (serial, or ``-n N``): its figures over its repeats, and every sample."""

    arm: TimingArmName
    argv: list[str]
    repeat: Annotated[int, Min(1)]
    workers: Annotated[int, Min(0), Doc("xdist workers that reported; 0 = one pytest process")]
    wall_ms: TimingStat
    cpu_ms: Annotated[
        TimingStat,
        Doc(
            "user + system time of the whole process tree "
            "(the kernel's count of waited-for children)"
        ),
    ]
    peak_rss_kib: Annotated[
        TimingStat,
        Doc(
            "one process: the kernel's peak of the largest process; under xdist: the sum of "
            "every pytest process's own peak (an upper bound)"
        ),
    ]
    tree_peak_rss_kib: Annotated[
        TimingStat, Doc("the kernel's peak of the single largest process in the tree")
    ]
    processes: Annotated[list[TimingProcess], Doc("each pytest process's own figures (median run)")]
    samples: Annotated[list[TimingSample], MinItems(1)]


class TimingOffenderTest(TypedDict):
    """A slow test: setup + call + teardown."""

    nodeid: str
    ms: Annotated[int, Min(0)]


class TimingOffenderFile(TypedDict):
    """A slow test file: its tests summed."""

    path: str
    ms: Annotated[int, Min(0)]
    tests: Annotated[int, Min(0)]


class TimingOffenderFixture(TypedDict):
    """A slow fixture definition: its setups summed over every process."""

    name: str
    scope: str
    where: str
    setups: Annotated[int, Min(0)]
    total_ms: Annotated[int, Min(0)]
    max_ms: Annotated[int, Min(0)]


class TimingOffenders(TypedDict):
    """From the run whose wall clock is the arm's median."""

    tests: list[TimingOffenderTest]
    files: list[TimingOffenderFile]
    fixtures: list[TimingOffenderFixture]
    startup_ms: Annotated[
        int | None,
        Min(0),
        Doc("spawn to the start of collection: interpreter, plugins, conftest imports"),
    ]
    collection_ms: Annotated[int | None, Min(0), Doc("collection (imports every test module)")]
    first_test_ms: Annotated[int | None, Min(0), Doc("spawn to the first test's start")]


class TimingXdistFigures(TypedDict):
    """The xdist verdict from two arms and the fixed worker cost (:func:`lanes.timing.xdist.verdict`)."""

    verdict: Literal["xdist pays", "serial wins", "within noise"]
    workers: Annotated[int, Min(1)]
    recommended_n: Annotated[int, Min(0)]
    serial_wall_ms: Annotated[int, Min(0)]
    xdist_wall_ms: Annotated[int, Min(0)]
    noise_ms: Annotated[int, Min(0)]
    speedup: Annotated[float | None, Min(0)]
    serial_cpu_ms: Annotated[int, Min(0)]
    xdist_cpu_ms: Annotated[int, Min(0)]
    serial_empty_ms: Annotated[
        int, Min(0), Doc("the serial run that selects nothing (--collect-only)")
    ]
    xdist_empty_ms: Annotated[int, Min(0), Doc("the -n N run that selects nothing")]
    fixed_cost_ms: Annotated[
        int, Min(0), Doc("xdist_empty_ms - serial_empty_ms: starting the workers")
    ]
    tests_ms: Annotated[int, Min(0)]
    crossover_ms: Annotated[int | None, Min(0)]
    explanation: str


class TimingXdist(TimingXdistFigures):
    """Serial or ``-n N``: the verdict, and the arm the suite's own command did not run."""

    other_arm: TimingArm


class TimingMetric(TypedDict):
    """One figure's median against the baseline's."""

    metric: TimingMetricName
    baseline: Annotated[int, Min(0)]
    current: Annotated[int, Min(0)]
    delta: int
    delta_pct: float | None
    noise: Annotated[int, Min(0)]
    flag: TimingFlag


class TimingCollectedChange(TypedDict):
    """How many tests the suite collects against the baseline (dropping is always flagged)."""

    baseline: Annotated[int, Min(0)]
    current: Annotated[int, Min(0)]
    delta: int
    flag: Literal["dropped", "grew", "same"]


class TimingGate(TypedDict):
    """``max_regression`` on median CPU time and the opt-in ``max_wall_regression`` on median
    wall clock: whether either failed the lane, and why."""

    max_regression: Annotated[float | None, MoreThan(0)]
    max_wall_regression: Annotated[float | None, MoreThan(0)]
    failed: bool
    reason: str | None


class TimingComparison(TypedDict):
    """A suite's Δ against the baseline."""

    status: Literal["compared", "not comparable", "no baseline"]
    reason: str | None
    metrics: list[TimingMetric]
    collected: TimingCollectedChange | None
    gate: TimingGate
    # Absent from envelopes written before the baseline kept several arms.
    arm: NotRequired[
        Annotated[
            str,
            Doc(
                "the arm this run measured and the baseline's figures it was compared with: "
                "'serial', '-n N', plus ' + slow ratchet' for a run shared with the ratchet"
            ),
        ]
    ]


class TimingSizing(TypedDict):
    """How many runs the lane gave one suite, and why (:mod:`lanes.timing.sizing`)."""

    repeat: Annotated[int, Min(1), Doc("runs per arm")]
    arms: Annotated[
        int,
        Min(1),
        Doc("1: the suite's command alone; 2: and the other arm of the xdist comparison"),
    ]
    first_run_ms: Annotated[int, Min(0), Doc("the first run's wall clock, which decided it")]
    chosen_by: Literal["automatic", "configured"]
    reason: Annotated[str, Doc("the choice in words, as the report shows it")]


class TimingMeasurement(TypedDict):
    """Every figure of one suite, before the Δ against the baseline."""

    name: str
    command: str
    runner: Literal["pytest", "command"]
    python: str | None
    status: Literal["passed", "failed"]
    exit_codes: list[int]
    outcomes: dict[str, Annotated[int, Min(0)]]
    collected: Annotated[
        int | None,
        Min(0),
        Doc("tests the command collects (--collect-only); null for a non-pytest command"),
    ]
    measured: TimingArm
    offenders: TimingOffenders | None
    xdist: TimingXdist | None
    xdist_skipped: Annotated[str | None, Doc("why there is no xdist verdict")]
    failure: Annotated[str | None, Doc("the end of a failing run's output")]
    # Absent from envelopes written before the lane sized its runs.
    sizing: NotRequired[TimingSizing]


class TimingSuite(TimingMeasurement):
    """One suite: its figures and its Δ against the baseline."""

    comparison: TimingComparison


class TimingRow(TypedDict):
    """One suite's row of the table, every cell a display string."""

    suite: str
    collected: str
    wall: str
    cpu: str
    peak_memory: str
    top_offender: str
    xdist: str
    delta: str


class TimingCheck(TypedDict):
    """One expectation of the self-check."""

    name: str
    expected: str
    observed: str
    passed: bool


class TimingSelfCheck(TypedDict):
    """``--self-check``: a planted project measured, recorded, slowed down and cut by a test."""

    passed: bool
    summary: str
    checks: list[TimingCheck]
    planted: Annotated[
        list[PlantedFault],
        Doc("faults planted in the lane's own figures; each must be caught"),
    ]
    slower: TimingComparison
    fewer: TimingComparison


class TimingData(TypedDict):
    """The baseline timing lane (lanes timing). Times in integer milliseconds (*_ms), memory in
    KiB (*_kib); every {median, min, max} is over the arm's repeats."""

    fingerprint: TimingFingerprint
    baseline: TimingBaseline
    record: TimingRecord
    self_check: Annotated[
        TimingSelfCheck | None,
        Doc("--self-check on a planted project; null when not requested"),
    ]
    suites: list[TimingSuite]
    table: Annotated[
        list[TimingRow],
        Doc("one row per suite, every cell a display string (the report's table)"),
    ]
