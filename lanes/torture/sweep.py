"""Seed sweeps: every seed run twice and compared, failures shrunk; the self-check.

A seed determines the clients' programs and the scheduler's random stream,
hence the whole run. Each seed of a sweep is run twice and the two runs are
compared on their trace signature, terminal invariant outcome and contention
profile: any difference is non-determinism and fails the lane (a seed that
does not replay is worthless as a bug report).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from lanes.torture.harness import EnvFactory, RunResult, TraceStep, run_clients
from lanes.torture.kernel import GovernorKernel
from lanes.torture.planted import PLANTED
from lanes.torture.program import HOSTS, ClientSpec, generate_programs, parse_op
from lanes.torture.schedule import Schedule
from lanes.torture.scheduler import ReplayScheduler, make_scheduler
from lanes.torture.settings import SCHEDULERS
from lanes.torture.shrink import shrink
from lanes.torture.simenv import SimEnvironment

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from lanes.torture.world import World

__all__ = [
    "Detection",
    "Failure",
    "Mismatch",
    "Settings",
    "SweepReport",
    "Variant",
    "contention_scenario",
    "programs",
    "run_schedule",
    "run_seed",
    "self_check",
    "sweep",
]

# Steps of the scheduler loop per client operation, roughly: PCT's estimate
# of k before a sweep has measured it.
_STEPS_PER_OP: Final = 5


@dataclass(frozen=True)
class Settings:
    clients: int
    ops: int
    scheduler: str
    ttl: int

    @property
    def pct_steps(self) -> int:
        return self.clients * self.ops * _STEPS_PER_OP


class Variant:
    """The code under torture: the governor, or one planted bug."""

    def __init__(self, name: str, *, ttl: int) -> None:
        bug = PLANTED.get(name)
        self.name = name
        self.kernel: GovernorKernel = (bug.kernel if bug else GovernorKernel)(ttl=ttl)
        self.env: EnvFactory = bug.env if bug else SimEnvironment


@dataclass(frozen=True)
class Failure:
    seed: int
    invariant: str
    message: str
    tail: tuple[TraceStep, ...]
    schedule: Schedule


@dataclass(frozen=True)
class Mismatch:
    seed: int
    what: str
    first: str
    second: str


@dataclass
class SweepReport:
    settings: Settings
    seed_start: int
    runs: int
    executions: int = 0
    steps: int = 0
    elapsed: float = 0.0
    totals: dict[str, int] = field(default_factory=dict)
    breaks: dict[str, int] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def runs_per_second(self) -> float:
        return self.executions / self.elapsed if self.elapsed > 0 else 0.0

    def add(self, result: RunResult) -> None:
        counters = result.counters
        self.steps += result.steps
        for name in (
            "acquired",
            "held_blocks",
            "dedup_blocks",
            "flock_waits",
            "ttl_overlaps",
            "crashes",
            "interrupts",
            "pid_reuses",
            "runner_locks",
            "runner_blocks",
        ):
            self.totals[name] = self.totals.get(name, 0) + getattr(counters, name)
        for why, count in counters.breaks.items():
            self.breaks[why] = self.breaks.get(why, 0) + count


def programs(seed: int, settings: Settings) -> tuple[ClientSpec, ...]:
    return generate_programs(seed, clients=settings.clients, ops=settings.ops, ttl=settings.ttl)


def run_seed(
    seed: int,
    settings: Settings,
    variant: Variant,
    *,
    scheduler: str | None = None,
) -> RunResult:
    chosen = make_scheduler(
        scheduler or settings.scheduler, seed, clients=settings.clients, steps=settings.pct_steps
    )
    return run_clients(
        seed,
        programs(seed, settings),
        ttl=settings.ttl,
        kernel=variant.kernel,
        scheduler=chosen,
        make_env=variant.env,
    )


def run_schedule(schedule: Schedule, variant: Variant | None = None) -> RunResult:
    """Replay a schedule file's run exactly."""
    chosen = variant or Variant(schedule.variant, ttl=schedule.ttl)
    return run_clients(
        schedule.seed,
        schedule.clients,
        ttl=schedule.ttl,
        kernel=chosen.kernel,
        scheduler=ReplayScheduler(schedule.choices),
        make_env=chosen.env,
    )


def _failure(seed: int, settings: Settings, variant: Variant, result: RunResult) -> Failure:
    first = result.violations[0]
    start = Schedule(
        seed=seed,
        variant=variant.name,
        ttl=settings.ttl,
        invariant=first.invariant,
        clients=programs(seed, settings),
        choices=tuple(result.choices),
    )
    shrunk = shrink(start, result, lambda s: run_schedule(s, variant))
    return Failure(seed, first.invariant, first.message, tuple(result.trace[-12:]), shrunk)


def _compare(seed: int, first: RunResult, second: RunResult) -> Mismatch | None:
    pairs = (
        ("trace signature", first.signature, second.signature),
        ("terminal outcome", first.outcome, second.outcome),
        ("contention profile", repr(first.counters.profile()), repr(second.counters.profile())),
    )
    for what, one, two in pairs:
        if one != two:
            return Mismatch(seed, what, one, two)
    return None


def sweep(
    settings: Settings,
    seeds: Sequence[int],
    *,
    variant: Variant,
    replay: bool = True,
    on_seed: Callable[[int], object] | None = None,
) -> SweepReport:
    """Run every seed (twice when ``replay``); failures are shrunk.

    ``on_seed(seed)`` is called before each seed runs (the lane's progress).
    """
    report = SweepReport(settings, seeds[0] if seeds else 0, len(seeds))
    started = time.perf_counter()
    failed: list[RunResult] = []
    for seed in seeds:
        if on_seed is not None:
            on_seed(seed)
        result = run_seed(seed, settings, variant)
        report.executions += 1
        report.add(result)
        if replay:
            again = run_seed(seed, settings, variant)
            report.executions += 1
            mismatch = _compare(seed, result, again)
            if mismatch is not None:
                report.mismatches.append(mismatch)
        if result.failed:
            failed.append(result)
    # Shrinking is not part of the sweep's speed: runs/s counts seeded runs only.
    report.elapsed = time.perf_counter() - started
    report.failures = [_failure(r.seed, settings, variant, r) for r in failed]
    return report


@dataclass(frozen=True)
class Detection:
    """How quickly one scheduler's sweep caught one planted bug."""

    bug: str
    description: str
    scheduler: str
    seeds: int
    detected: int
    first_seed: int | None
    seeds_to_detection: int | None
    invariant: str | None

    @property
    def rate(self) -> float:
        return self.detected / self.seeds if self.seeds else 0.0


def self_check(
    settings: Settings,
    seeds: Sequence[int],
    *,
    on_run: Callable[[str], object] | None = None,
) -> list[Detection]:
    """Sweep every planted bug under both schedulers; each must be caught.

    ``on_run(what)`` is called before each seeded run (the lane's progress).
    """
    table = []
    for name, bug in PLANTED.items():
        variant = Variant(name, ttl=settings.ttl)
        for scheduler in SCHEDULERS:
            detected = 0
            first: tuple[int, int, str] | None = None
            for position, seed in enumerate(seeds):
                if on_run is not None:
                    on_run(f"{name} / {scheduler} / seed {seed}")
                result = run_seed(seed, settings, variant, scheduler=scheduler)
                if result.failed:
                    detected += 1
                    if first is None:
                        first = (seed, position + 1, result.violations[0].invariant)
            table.append(
                Detection(
                    bug=name,
                    description=bug.description,
                    scheduler=scheduler,
                    seeds=len(seeds),
                    detected=detected,
                    first_seed=None if first is None else first[0],
                    seeds_to_detection=None if first is None else first[1],
                    invariant=None if first is None else first[2],
                )
            )
    return table


class _ContentionScheduler:
    """Client 0 until it is inside its run, then client 1 until it was blocked."""

    def __init__(self) -> None:
        self.world: World | None = None

    def choose(self, runnable: Sequence[int], step: int) -> int:
        del step
        world = self.world
        assert world is not None  # noqa: S101  # bound before the first step
        wants_one = world.clients[0].in_cs and world.counters.held_blocks == 0
        preferred = 1 if wants_one else 0
        return preferred if preferred in runnable else runnable[0]


def contention_scenario(ttl: int) -> RunResult:
    """Two local agents, one suite: the second must be blocked while the first
    runs, then get the lock once the first has posted."""
    cycle = parse_op("cycle unit pass 30 force")
    specs = (
        ClientSpec(HOSTS[0], (cycle,)),
        ClientSpec(HOSTS[0], (cycle, cycle)),
    )
    scheduler = _ContentionScheduler()
    variant = Variant("governor", ttl=ttl)

    def bind(world: World) -> None:
        scheduler.world = world

    return run_clients(
        0,
        specs,
        ttl=ttl,
        kernel=variant.kernel,
        scheduler=scheduler,
        make_env=variant.env,
        observe=bind,
    )
