"""The torture lane's payload: what ``lanes torture`` writes, the report's torture view reads.

One document for every mode: a sweep, one seed (``--seed``) or one schedule
file (``--schedule``) fill the run's own fields; ``self_check``, ``real`` and
``agents`` are null unless ``--self-check``, ``--real`` or ``--agents`` ran.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict

from lanes.payloads.constraints import Doc, Max, Min, MinItems, MinLength, Pattern

__all__ = [
    "TortureAgentReport",
    "TortureAgents",
    "TortureContention",
    "TortureData",
    "TortureDetection",
    "TortureMode",
    "TortureNondeterminism",
    "TortureReal",
    "TortureScenario",
    "TortureScheduler",
    "TortureSelfCheck",
    "TortureSettings",
    "TortureViolation",
]

_Count = Annotated[int, Min(0)]
_Seed = Annotated[int, Min(0)]
_Share = Annotated[float, Min(0), Max(1)]

TortureMode = Literal["sweep", "seed", "schedule"]

TortureScheduler = Literal["random", "pct"]
""":data:`lanes.torture.settings.SCHEDULERS` (a test ties the two)."""


class TortureContention(TypedDict):
    """What the clients met on the lock, summed over every execution."""

    acquired: _Count
    held_blocks: _Count
    dedup_blocks: _Count
    flock_waits: _Count
    crashes: _Count
    interrupts: _Count
    pid_reuses: _Count
    # The kernel run lock: governed pytest runs that took it, and
    # those its holder refused (pytest's exit 8).
    runner_locks: _Count
    runner_blocks: _Count
    breaks: dict[str, _Count]


class TortureScenario(TypedDict):
    """The two-client contention scenario: the second client must be blocked, then acquire."""

    held_blocks: _Count
    acquired: _Count
    passed: bool


class TortureViolation(TypedDict):
    """An invariant a seed broke, with its shrunk schedule and the command that replays it."""

    seed: _Seed
    invariant: Annotated[str, MinLength(1)]
    message: str
    replay: Annotated[str, MinLength(1)]
    schedule_file: Annotated[str, MinLength(1)]
    shrunk_choices: _Count
    shrunk_ops: _Count


class TortureNondeterminism(TypedDict):
    """A seed whose two runs differed (its trace, outcome or contention profile)."""

    seed: _Seed
    what: Annotated[str, MinLength(1)]
    first: str
    second: str


class TortureDetection(TypedDict):
    """How quickly one scheduler's sweep caught one planted bug."""

    bug: Annotated[str, MinLength(1)]
    description: str
    scheduler: TortureScheduler
    seeds: Annotated[int, Min(1)]
    detected: _Count
    rate: _Share
    first_seed: _Seed | None
    seeds_to_detection: Annotated[int, Min(1)] | None
    invariant: str | None


class TortureSelfCheck(TypedDict):
    """``--self-check``: every planted bug swept under both schedulers; each must be caught."""

    passed: bool
    seeds: Annotated[int, Min(1)]
    pct_steps: Annotated[int, Min(1)]
    pct_bound: _Share
    rows: Annotated[list[TortureDetection], MinItems(1)]


class TortureReal(TypedDict):
    """``--real``: the un-seeded guard, real processes contending for the real lock."""

    procs: Annotated[int, Min(1)]
    iterations: Annotated[int, Min(1)]
    critical_sections: _Count
    blocked: _Count
    overlaps: _Count
    stale_sentinels: _Count
    kills: _Count
    takeover_ms_max: Annotated[float, Min(0)] | None
    takeover_ms_median: Annotated[float, Min(0)] | None
    lock_left: bool
    elapsed_s: Annotated[float, Min(0)]
    passed: bool
    problems: list[str]


class TortureAgentReport(TypedDict):
    """One seed's simulation of agents finishing tasks through the real hook."""

    seed: _Seed
    agents: Annotated[int, Min(1)]
    tasks_per_agent: Annotated[int, Min(1)]
    runs_without_governor: _Count
    runs_with_governor: _Count
    deduplicated: _Count
    lock_waits: _Count
    forced: _Count
    tree_changes: _Count
    voided_by_concurrent_edits: _Count
    violations: _Count


class TortureAgents(TypedDict):
    """``--agents N``: agents finishing tasks through the real hook in a real repository,
    one simulation per seed; violations break the lane."""

    agents: Annotated[int, Min(1)]
    tasks: Annotated[int, Min(1)]
    seeds: list[int]
    reports: list[TortureAgentReport]
    violations: list[str]


class TortureSettings(TypedDict):
    """What the run was asked to do (a crashed run's envelope keeps these)."""

    mode: TortureMode
    scheduler: TortureScheduler
    clients: Annotated[int, Min(1)]
    ops: Annotated[int, Min(1)]
    ttl: Annotated[int, Min(1)]


class TortureData(TortureSettings):
    """The torture lane (lanes torture). mode sweep|seed|schedule; contention and violations
    of the seeded sweep; self_check and real are null unless --self-check / --real ran."""

    scenario: TortureScenario | None
    signature: Annotated[str, Pattern("^[0-9a-f]{32}$")] | None
    violations: list[TortureViolation]
    nondeterminism: list[TortureNondeterminism]
    self_check: TortureSelfCheck | None
    real: TortureReal | None
    # Optional: envelopes written before --agents existed have no such key.
    agents: NotRequired[
        Annotated[
            TortureAgents | None,
            Doc(
                "--agents N: agents finishing tasks through the real hook in a real repository, "
                "one simulation per seed; violations break the lane."
            ),
        ]
    ]
    seed_start: _Seed
    runs: _Count
    executions: _Count
    steps: _Count
    runs_per_second: Annotated[float, Min(0)] | None
    contention: TortureContention
    ttl_overlaps: _Count
