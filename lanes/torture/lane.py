"""``lanes torture``: modes, verdict and envelope.

Modes: a sweep (default), one seed (``--seed``), one schedule file
(``--schedule``); ``--self-check`` and ``--real`` add the planted-bug sweep
and the real-process guard. The envelope (lane ``torture``) is written on
every exit path by :func:`lanes.envelope.lane_run`.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, ClassVar, cast

from lanes.errors import StateError, UsageError
from lanes.lane import drive
from lanes.progress import progress
from lanes.torture import _text
from lanes.torture.planted import PLANTED
from lanes.torture.real import run_real_guard
from lanes.torture.schedule import Schedule, dump_schedule, read_schedule
from lanes.torture.scheduler import pct_bound
from lanes.torture.settings import SCHEDULERS
from lanes.torture.sweep import (
    Failure,
    Settings,
    SweepReport,
    Variant,
    contention_scenario,
    run_schedule,
    run_seed,
    self_check,
    sweep,
)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping
    from pathlib import Path

    from lanes.config import Config
    from lanes.envelope import LaneRun, Seed
    from lanes.payloads.torture import (
        TortureAgentReport,
        TortureAgents,
        TortureContention,
        TortureData,
        TortureMode,
        TortureReal,
        TortureScenario,
        TortureScheduler,
        TortureSelfCheck,
        TortureSettings,
        TortureViolation,
    )
    from lanes.torture.agents import SimReport
    from lanes.torture.settings import TortureConfig

__all__ = ["Options", "TortureLane", "run_lane"]

_LIMITS = {
    "runs": (1, 10_000_000),
    "seed_start": (0, 2**62),
    "seed": (0, 2**62),
    "clients": (2, 64),
    "ops": (1, 10_000),
    "self_check_runs": (1, 100_000),
    "procs": (2, 256),
    "iterations": (1, 1_000_000),
    "agents": (0, 16),
    "tasks": (1, 1_000),
    "agent_seeds": (1, 1_000),
}


@dataclass(frozen=True)
class Options:
    runs: int
    seed_start: int
    clients: int
    ops: int
    scheduler: str
    seed: int | None = None
    schedule: Path | None = None
    self_check: bool = False
    self_check_runs: int = 32
    real: bool = False
    procs: int = 8
    iterations: int = 200
    agents: int = 0
    tasks: int = 6
    agent_seeds: int = 2

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace, defaults: TortureConfig) -> Options:
        options = cls(
            runs=defaults.runs if ns.runs is None else ns.runs,
            seed_start=defaults.seed_start if ns.seed_start is None else ns.seed_start,
            clients=defaults.clients if ns.clients is None else ns.clients,
            ops=defaults.ops if ns.ops is None else ns.ops,
            scheduler=defaults.scheduler if ns.scheduler is None else ns.scheduler,
            seed=ns.seed,
            schedule=ns.schedule,
            self_check=ns.self_check,
            self_check_runs=ns.self_check_runs,
            real=ns.real,
            procs=ns.procs,
            iterations=ns.iterations,
            agents=ns.agents,
            tasks=ns.tasks,
            agent_seeds=ns.agent_seeds,
        )
        options.check()
        return options

    def check(self) -> None:
        for name, (low, high) in _LIMITS.items():
            value = getattr(self, name)
            if value is not None and not low <= value <= high:
                flag = "--" + name.replace("_", "-")
                msg = f"{flag} must be {low}..{high}, got {value!r}"
                raise UsageError(
                    msg, hint=f"pass {flag} within {low}..{high}, or omit it for the default"
                )

    @property
    def mode(self) -> TortureMode:
        if self.schedule is not None:
            return "schedule"
        return "sweep" if self.seed is None else "seed"


@dataclass(frozen=True)
class Request:
    """The resolved options and, when replaying one, the schedule read from its file."""

    options: Options
    schedule: Schedule | None


class TortureLane:
    name: ClassVar[str] = "torture"

    def resolve(self, ns: argparse.Namespace, config: Config) -> Request:
        options = Options.from_namespace(ns, config.torture)
        schedule = read_schedule(options.schedule) if options.schedule is not None else None
        return Request(options, schedule)

    def config_hash(self, request: Request, config: Config) -> str:
        return config.section_hash("torture", "governor")

    def seed(self, request: Request) -> Seed:
        if request.schedule is not None:
            return request.schedule.seed
        if request.options.seed is not None:
            return request.options.seed
        return {"start": request.options.seed_start, "count": request.options.runs}

    def run(self, request: Request, config: Config, run: LaneRun) -> None:
        run.tools["greenlet"] = _greenlet_version()
        _Lane(config, request.options, run).main(request.schedule)


def run_lane(ns: argparse.Namespace) -> int:
    return drive(TortureLane(), ns)


def _greenlet_version() -> str:
    from importlib.metadata import version  # noqa: PLC0415

    return version("greenlet")


class _Lane:
    def __init__(self, config: Config, options: Options, run: LaneRun) -> None:
        self.config = config
        self.options = options
        self.run = run
        self.ttl = config.governor.lock_ttl
        self.settings = Settings(options.clients, options.ops, options.scheduler, self.ttl)
        self.passed = True

    def main(self, schedule: Schedule | None) -> None:
        # A run that crashes before its first result still says what it was
        # asked to do (partial data of a crashed envelope).
        self.run.data.update(self._settings())
        if schedule is not None:
            data = self._replay_schedule(schedule)
        elif self.options.seed is not None:
            data = self._sweep([self.options.seed], scenario=False)
        else:
            start = self.options.seed_start
            data = self._sweep(range(start, start + self.options.runs), scenario=True)
        # Published after each part, so that a later part's crash keeps the earlier ones.
        self.run.publish(data)
        if self.options.self_check and schedule is None:
            data["self_check"] = self._self_check(data)
            self.run.publish(data)
        if self.options.real:
            data["real"] = self._real()
            self.run.publish(data)
        if self.options.agents:
            data["agents"] = self._agents()
            self.run.publish(data)
        self.run.verdict(passed=self.passed)
        print(f"torture: {'PASS' if self.passed else 'FAIL'}")

    def _settings(self) -> TortureSettings:
        return {
            "mode": self.options.mode,
            # --scheduler and [tool.lanes.torture] admit only SCHEDULERS, whose
            # names TortureScheduler lists (tests/payloads ties the two).
            "scheduler": cast("TortureScheduler", self.options.scheduler),
            "clients": self.options.clients,
            "ops": self.options.ops,
            "ttl": self.ttl,
        }

    # ------------------------------------------------------------------ modes

    def _agents(self) -> TortureAgents:
        """Agents through the real hook (``lanes.torture.agents``): real files, real git, no model."""
        import tempfile  # noqa: PLC0415
        from pathlib import Path  # noqa: PLC0415

        from lanes.torture.agents import simulate  # noqa: PLC0415

        options = self.options
        seeds = list(range(options.seed_start, options.seed_start + options.agent_seeds))
        reports: list[TortureAgentReport] = []
        violations: list[str] = []
        for seed in seeds:
            with tempfile.TemporaryDirectory(prefix="lanes-torture-agents-") as tmp:
                report = simulate(Path(tmp), agents=options.agents, tasks=options.tasks, seed=seed)
            reports.append(_agent_report(seed, report))
            violations.extend(f"seed {seed}: {v}" for v in report.violations)
            print(
                f"torture agents: seed {seed}: {report.executed}/{report.requested} runs executed, "
                f"{len(report.violations)} violations",
                file=sys.stderr,
            )
        if violations:
            self.passed = False
            for violation in violations[:10]:
                print(f"torture agents: VIOLATION {violation}")
        return {
            "agents": options.agents,
            "tasks": options.tasks,
            "seeds": seeds,
            "reports": reports,
            "violations": violations,
        }

    def _sweep(self, seeds: range | list[int], *, scenario: bool) -> TortureData:
        variant = Variant("governor", ttl=self.ttl)
        with progress("torture", total=len(seeds), unit="seeds") as bar:

            def on_seed(seed: int) -> None:
                bar.item(f"seed {seed}")
                bar.set(seed - seeds[0])

            report = sweep(self.settings, seeds, variant=variant, on_seed=on_seed)
            bar.set(len(seeds))
        violations = [self._failure(failure) for failure in report.failures]
        print(_text.sweep_summary(report))
        signature = None
        if self.options.seed is not None:
            signature = run_seed(self.options.seed, self.settings, variant).signature
            print(f"trace signature: {signature}")
        if report.failures or report.mismatches:
            self.passed = False
        for mismatch in report.mismatches:
            print(_text.mismatch(mismatch))
        return {
            **self._settings(),
            "scenario": self._scenario(report) if scenario else None,
            "signature": signature,
            "violations": violations,
            "nondeterminism": [
                {"seed": m.seed, "what": m.what, "first": m.first[:500], "second": m.second[:500]}
                for m in report.mismatches
            ],
            "self_check": None,
            "real": None,
            "agents": None,
            "seed_start": report.seed_start,
            "runs": report.runs,
            "executions": report.executions,
            "steps": report.steps,
            "runs_per_second": round(report.runs_per_second, 2),
            "contention": _contention(report.totals, report.breaks),
            "ttl_overlaps": report.totals.get("ttl_overlaps", 0),
        }

    def _scenario(self, report: SweepReport) -> TortureScenario:
        result = contention_scenario(self.ttl)
        held = result.counters.held_blocks
        ok = not result.failed and held >= 1 and result.counters.acquired == 2
        contended = report.totals.get("held_blocks", 0) > 0
        print(_text.scenario_line(result, ok=ok, contended=contended))
        if not ok or not contended:
            self.passed = False
        return {"held_blocks": held, "acquired": result.counters.acquired, "passed": ok}

    def _replay_schedule(self, schedule: Schedule) -> TortureData:
        result = run_schedule(schedule)
        again = run_schedule(schedule)
        deterministic = result.signature == again.signature and result.outcome == again.outcome
        print(_text.trace(result.trace, limit=80))
        print(f"schedule {self.options.schedule} (variant {schedule.variant}): {result.outcome}")
        print(f"trace signature: {result.signature}")
        self.passed = not result.failed and deterministic
        return {
            **self._settings(),
            "scenario": None,
            "signature": result.signature,
            "violations": [
                {
                    "seed": schedule.seed,
                    "invariant": v.invariant,
                    "message": v.message,
                    "replay": f"lanes torture --schedule {self.options.schedule}",
                    "schedule_file": str(self.options.schedule),
                    "shrunk_choices": len(schedule.choices),
                    "shrunk_ops": schedule.ops,
                }
                for v in result.violations[:1]
            ],
            "nondeterminism": []
            if deterministic
            else [
                {
                    "seed": schedule.seed,
                    "what": "schedule replay",
                    "first": result.outcome,
                    "second": again.outcome,
                }
            ],
            "self_check": None,
            "real": None,
            "agents": None,
            "seed_start": schedule.seed,
            "runs": 1,
            "executions": 2,
            "steps": result.steps,
            "runs_per_second": None,
            "contention": _contention(asdict(result.counters), result.counters.breaks),
            "ttl_overlaps": result.counters.ttl_overlaps,
        }

    def _failure(self, failure: Failure) -> TortureViolation:
        path = self._save(failure)
        replay = _text.replay_command(failure.seed, self.options, self.config.torture)
        shrunk = run_schedule(failure.schedule)
        print(_text.failure(failure, replay=replay, path=path, shrunk=shrunk))
        return {
            "seed": failure.seed,
            "invariant": failure.invariant,
            "message": failure.message,
            "replay": replay,
            "schedule_file": str(path),
            "shrunk_choices": len(failure.schedule.choices),
            "shrunk_ops": failure.schedule.ops,
        }

    def _save(self, failure: Failure) -> Path:
        directory = self.config.root / self.config.envelope_dir / "torture-schedules"
        path = directory / f"seed-{failure.seed}.json"
        try:
            directory.mkdir(parents=True, exist_ok=True)
            from lanes._atomic import write_atomic  # noqa: PLC0415

            write_atomic(path, dump_schedule(failure.schedule))
        except OSError as exc:
            msg = f"cannot write the shrunk schedule {str(path)!r}: {exc}"
            raise StateError(
                msg,
                hint="make the envelope directory writable (envelope_dir in [tool.lanes])",
            ) from None
        return path

    def _self_check(self, data: TortureData) -> TortureSelfCheck:
        start = self.options.seed_start
        seeds = range(start, start + self.options.self_check_runs)
        runs = len(seeds) * len(PLANTED) * len(SCHEDULERS)
        with progress("torture self-check", total=runs, unit="runs") as bar:

            def on_run(what: str) -> None:
                bar.item(what)
                bar.advance()

            table = self_check(self.settings, seeds, on_run=on_run)
        steps = max(1, int(data["steps"] / max(1, data["runs"])))
        bound = pct_bound(self.options.clients, steps)
        # A bug is caught when either scheduler catches it within the budget;
        # the table shows each scheduler's own seeds-to-detection.
        caught = all(
            any(row.detected for row in table if row.bug == bug) for bug in {r.bug for r in table}
        )
        print(_text.self_check_table(table, bound=bound, steps=steps))
        if not caught:
            self.passed = False
        return {
            "passed": caught,
            "seeds": len(seeds),
            "pct_steps": steps,
            "pct_bound": bound,
            "rows": [
                {
                    "bug": row.bug,
                    "description": row.description,
                    "scheduler": cast("TortureScheduler", row.scheduler),  # one of SCHEDULERS
                    "seeds": row.seeds,
                    "detected": row.detected,
                    "rate": round(row.rate, 4),
                    "first_seed": row.first_seed,
                    "seeds_to_detection": row.seeds_to_detection,
                    "invariant": row.invariant,
                }
                for row in table
            ],
        }

    def _real(self) -> TortureReal:
        report = run_real_guard(self.options.procs, self.options.iterations)
        print(_text.real_line(report))
        if not report.passed:
            self.passed = False
        return report.to_dict()


def _contention(totals: Mapping[str, int], breaks: Mapping[str, int]) -> TortureContention:
    """The contention counters; a sweep of no runs has none, hence the zeros."""
    return {
        "acquired": totals.get("acquired", 0),
        "held_blocks": totals.get("held_blocks", 0),
        "dedup_blocks": totals.get("dedup_blocks", 0),
        "flock_waits": totals.get("flock_waits", 0),
        "crashes": totals.get("crashes", 0),
        "interrupts": totals.get("interrupts", 0),
        "pid_reuses": totals.get("pid_reuses", 0),
        "runner_locks": totals.get("runner_locks", 0),
        "runner_blocks": totals.get("runner_blocks", 0),
        "breaks": dict(breaks),
    }


def _agent_report(seed: int, report: SimReport) -> TortureAgentReport:
    return {
        "seed": seed,
        "agents": report.agents,
        "tasks_per_agent": report.tasks,
        "runs_without_governor": report.requested,
        "runs_with_governor": report.executed,
        "deduplicated": report.deduplicated,
        "lock_waits": report.lock_waits,
        "forced": report.forced,
        "tree_changes": report.changes,
        "voided_by_concurrent_edits": report.voided,
        "violations": len(report.violations),
    }
