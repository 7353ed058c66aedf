"""The fuzz lane's payload: what ``lanes fuzz`` writes, the report's fuzz view reads.

One document for every mode (``fuzz.json``, ``fuzz-self-check.json``,
``fuzz-replay.json``): ``self_check`` is set by a self-check, ``replay`` by a
replay or promotion, ``corpus`` by a promotion; each is null otherwise.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from lanes.payloads.constraints import Doc, Min, MinLength

__all__ = [
    "FuzzCorpus",
    "FuzzData",
    "FuzzFailure",
    "FuzzFailureKind",
    "FuzzMode",
    "FuzzOverhead",
    "FuzzReplay",
    "FuzzSelfCheck",
    "FuzzTarget",
]

_Count = Annotated[int, Min(0)]

FuzzMode = Literal["run", "self-check", "replay", "promote"]

FuzzFailureKind = Literal["untyped", "empty-hint", "unexpected-rejection", "stall", "crash"]
""":data:`lanes.fuzz.watchdog.FAILURE_KINDS` (a test ties the two)."""


class FuzzOverhead(TypedDict):
    """The watchdog's cost against calling the same completed cases in-process."""

    watchdog_ms: _Count
    in_process_ms: _Count
    execution: Annotated[
        float | None, Doc("extra time per case call, as a share of the in-process call")
    ]
    run: Annotated[
        float | None,
        Doc("the same extra time as a share of the whole in-process run: the goal is on this"),
    ]
    goal: Annotated[
        float | None,
        Doc(
            "lanekit's own goal for its watchdog's share of the run: set in lanekit's "
            "repository only, null in a user's project (the figures without a verdict)"
        ),
    ]


class FuzzTarget(TypedDict):
    """One target. cases counts every case executed: generated, replayed from the example
    database, and shrink steps. slowest_case_ms is the slowest case that finished (time inside
    the target), against the per-case budget."""

    name: Annotated[str, MinLength(1)]
    cases: _Count
    failures: _Count
    stalls: _Count
    worker_restarts: _Count
    duration_ms: _Count
    cases_per_second: Annotated[float, Min(0)] | None
    shrink_cut_short: bool
    slowest_case_ms: Annotated[float, Min(0)]
    overhead: FuzzOverhead | None


class FuzzFailure(TypedDict):
    """A failing case, shrunk and saved, with the commands that replay and promote it."""

    target: str
    kind: FuzzFailureKind
    error_type: str | None
    message: str
    input_preview: str
    artifact: str
    repro: str
    promote: str


class FuzzSelfCheck(TypedDict):
    """``--self-check``: each broken-on-purpose target must be caught as its kind, the control not."""

    expected: Annotated[
        dict[str, str | None], Doc("target -> the failure kind it must be caught as; null: none")
    ]
    caught: Annotated[dict[str, list[str]], Doc("target -> the failure kinds it was caught as")]
    missed: list[str]


class FuzzReplay(TypedDict):
    """``--input-file``: one saved case run again through the watchdog."""

    artifact: str
    target: str
    was: str
    now: str
    error_type: str | None
    message: str
    reproduced: bool


class FuzzCorpus(TypedDict):
    """``--append-corpus``: the promoted case's corpus file, and whether it was new there."""

    path: str
    added: bool


class FuzzData(TypedDict):
    """The fuzz lane (lanes fuzz). mode run|self-check|replay|promote; durations in ms;
    overhead ratios compare the watchdog with calling the same completed cases in-process."""

    mode: FuzzMode
    iterations: Annotated[int, Min(1)] | None
    case_budget_ms: _Count
    database: str | None
    targets: list[FuzzTarget]
    failures: list[FuzzFailure]
    watchdog_overhead: FuzzOverhead | None
    self_check: FuzzSelfCheck | None
    replay: FuzzReplay | None
    corpus: FuzzCorpus | None
