"""The affected lane's payload (``lanes affected --run / --self-check / --recall``).

:class:`AffectedData` is the envelope's ``data``: each part is there when its
option was given. :mod:`lanes.affected` builds it (the plan in
:mod:`lanes.affected.plan`, which ``lanes affected --json`` prints as well)
and :mod:`lanes.report.views.affected` reads it.
"""

from __future__ import annotations

from typing import Annotated, NotRequired, TypedDict

from lanes.payloads.constraints import Doc, Max, Min
from lanes.payloads.planted import PlantedFault  # noqa: TC001  # the schema generator resolves annotations at runtime

__all__ = [
    "AffectedBlindSpot",
    "AffectedChange",
    "AffectedCheck",
    "AffectedCounts",
    "AffectedData",
    "AffectedGate",
    "AffectedNode",
    "AffectedPlan",
    "AffectedPlant",
    "AffectedReason",
    "AffectedRecall",
    "AffectedRecord",
    "AffectedRun",
    "AffectedSelfCheck",
    "AffectedSuite",
    "AffectedTest",
]


class AffectedReason(TypedDict):
    """Why something was selected: the rule and the changed path behind it."""

    rule: str
    changed: str
    detail: str


class AffectedChange(TypedDict):
    """One changed path and the rule that judged it."""

    path: str
    change: str
    rule: str
    detail: str
    tests: Annotated[int, Min(0), Doc("test files this path selected")]


class AffectedNode(TypedDict):
    """One test (a pytest node id) of a file the recorded map narrowed, and why it runs."""

    id: str
    reasons: list[AffectedReason]


class AffectedTest(TypedDict):
    """A selected test file and every reason it was selected."""

    file: str
    reasons: list[AffectedReason]
    nodes: NotRequired[
        Annotated[
            list[AffectedNode],
            Doc(
                "present when the recorded map narrowed the file: only these tests run, "
                "each with its reason; absent: the whole file runs"
            ),
        ]
    ]


class AffectedSuite(TypedDict):
    """A suite the plan runs: its command narrowed to the selected files, or whole."""

    name: str
    command: list[str]
    files: list[str]
    full: bool
    nodes: NotRequired[
        Annotated[
            list[str],
            Doc("the test ids the command names in place of their narrowed files"),
        ]
    ]


class AffectedGate(TypedDict):
    """A check (lint, type check) the plan runs, and the changed paths that fired it."""

    name: str
    command: str
    reasons: list[AffectedReason]


class AffectedBlindSpot(TypedDict):
    """An import the graph cannot follow (or a file it cannot parse): check by hand."""

    file: str
    line: Annotated[int, Min(0)]
    what: str


class AffectedCounts(TypedDict):
    """Selected test files against every test file (a narrowed file counts once)."""

    selected: Annotated[int, Min(0)]
    total: Annotated[int, Min(0)]
    share: Annotated[float, Min(0), Max(1)]
    narrowed_files: NotRequired[
        Annotated[int, Min(0), Doc("selected files the map narrowed to some of their tests")]
    ]
    node_ids: NotRequired[
        Annotated[int, Min(0), Doc("the test ids selected in those narrowed files")]
    ]


class AffectedPlan(TypedDict):
    """Which tests and checks the diff needs, and why each (``lanes affected --json`` prints it)."""

    base: str
    base_commit: str | None
    full: bool
    full_reasons: list[AffectedReason]
    changed: list[AffectedChange]
    tests: list[AffectedTest]
    suites: list[AffectedSuite]
    gates: list[AffectedGate]
    blind_spots: list[AffectedBlindSpot]
    map: NotRequired[
        Annotated[
            str,
            Doc(
                "the recorded map used to narrow the static choice, or why none was "
                "(said once; empty: no map was looked for)"
            ),
        ]
    ]
    counts: AffectedCounts
    planned_by: NotRequired[
        Annotated[
            str,
            Doc(
                "who made the plan when not the running code: the base commit's selector, "
                "for a change to lanekit's own code inside its own repository"
            ),
        ]
    ]


class AffectedRun(TypedDict):
    """One command ``--run`` executed: a selected suite or a gate."""

    what: str
    command: list[str]
    exit_code: int
    duration_ms: Annotated[int, Min(0)]
    skipped: NotRequired[
        Annotated[
            str,
            Doc(
                "a gate whose command could not start (not installed): why, and how to "
                "install it; it does not decide the run's result"
            ),
        ]
    ]


class AffectedCheck(TypedDict):
    """One expectation of the self-check; ``expected`` and ``observed`` are any JSON value."""

    name: str
    expected: object
    observed: object
    passed: bool


class AffectedSelfCheck(TypedDict):
    """``--self-check``: planted changes in a project whose answer is known."""

    passed: bool
    checks: list[AffectedCheck]
    planted: Annotated[
        list[PlantedFault],
        Doc("faults planted in the selector's own rules; each must be caught"),
    ]


class AffectedPlant(TypedDict):
    """One planted bug and the tests (pytest node ids) that noticed it."""

    file: str
    function: str
    failing: list[str]
    missed: Annotated[list[str], Doc("failing tests the plan did not select")]
    flaky: Annotated[list[str], Doc("failing tests that did not fail alone with the plant")]
    selected: Annotated[int, Min(0), Doc("selected test files")]
    node_ids: NotRequired[
        Annotated[int, Min(0), Doc("test ids selected in the files the map narrowed")]
    ]
    full: bool


class AffectedRecall(TypedDict):
    """``--recall N``: bugs planted one at a time; the share of failing tests selected."""

    seed: int
    map: NotRequired[Annotated[str, Doc("the recorded map the plans used, or why none")]]
    already_failing: list[str]
    plants: list[AffectedPlant]
    noticed: Annotated[int, Min(0)]
    missed: list[str]
    recall: Annotated[float | None, Min(0), Max(1)]
    mean_selected_share: Annotated[float | None, Min(0), Max(1)]


class AffectedRecord(TypedDict):
    """The map the lane recorded (``record_map = true``), or why it could not."""

    path: str
    tests: Annotated[int, Min(0)]
    unvouched: Annotated[int, Min(0), Doc("tests the map does not vouch for (failed, spawned)")]
    exit_code: Annotated[int, Doc("the recording run's pytest exit status")]
    cpu_seconds: Annotated[float, Min(0)]
    wall_seconds: Annotated[float, Min(0)]
    skipped: NotRequired[Annotated[str, Doc("why no map was recorded (uncommitted changes)")]]


class AffectedData(TypedDict):
    """The affected selector run as a lane (lanes affected --run / --self-check / --recall):
    the plan, what ran, the self-check and the recall measurement."""

    plan: NotRequired[AffectedPlan]
    runs: NotRequired[list[AffectedRun]]
    self_check: NotRequired[AffectedSelfCheck]
    recall: NotRequired[AffectedRecall]
    record: NotRequired[AffectedRecord]
