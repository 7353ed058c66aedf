"""``lanes timing``: the baseline timing lane, through the one lane driver.

Per configured suite: collected, wall, CPU, peak memory, offenders, the xdist
verdict, and a Δ against ``baselines/timing.json`` (``--record`` rewrites it).
Progress and one line per measured run go to stderr; stdout carries only the
table and its notes.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from lanes.envelope import git_subject
from lanes.errors import UsageError
from lanes.lane import choose
from lanes.progress import progress
from lanes.timing import baseline as baselines
from lanes.timing import table
from lanes.timing.measure import is_pytest
from lanes.timing.settings import SuiteTiming
from lanes.timing.shared import clear_shared, write_exit
from lanes.timing.suite import SuitePlan, measure_suite

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from lanes.config import Config, Suite
    from lanes.envelope import LaneRun, Seed
    from lanes.payloads.timing import (
        TimingBaseline,
        TimingData,
        TimingFingerprint,
        TimingMeasurement,
        TimingRecord,
        TimingSelfCheck,
        TimingSuite,
    )
    from lanes.timing.measure import Sample

__all__ = ["TimingLane", "TimingOptions", "baseline_path", "cpu_count", "measure_all", "plan_for"]


@dataclass(frozen=True)
class TimingOptions:
    suites: tuple[str, ...]
    repeat: int | None  # from the command line; None = configuration / automatic
    workers: int | None
    max_regression: float | None
    max_wall_regression: float | None
    record: bool
    self_check: bool
    # A run shared with the slow ratchet (lanes/timing/shared.py): its result's path.
    slow_ratchet: Path | None = None


def cpu_count() -> int:
    """The default ``-n`` of the xdist comparison."""
    return os.cpu_count() or 1


def baseline_path(config: Config) -> Path:
    """``[tool.lanes.timing] baseline``, else ``<baseline_dir>/timing.json``, under the project root."""
    relative = config.timing.baseline or f"{config.baseline_dir}/timing.json"
    return config.root / relative


def plan_for(
    suite: Suite, options: TimingOptions, config: Config
) -> tuple[SuitePlan, float | None]:
    """The suite's plan and its CPU ``max_regression`` (see :func:`wall_gate` for wall clock)."""
    # Command line over the suite's ``timing`` table over ``[tool.lanes.timing]``.
    override = suite.timing or SuiteTiming()
    repeat = choose(options.repeat, choose(override.repeat, config.timing.repeat))
    workers = choose(options.workers, choose(override.workers, config.timing.workers))
    max_regression = choose(
        options.max_regression, choose(override.max_regression, config.timing.max_regression)
    )
    plan = SuitePlan(
        repeat=repeat,
        workers=cpu_count() if workers is None else workers,
        offenders=config.timing.offenders,
        workers_set=workers is not None,
        ratchet=options.slow_ratchet,
    )
    return plan, max_regression


def wall_gate(options: TimingOptions, config: Config) -> float | None:
    """``--max-wall-regression`` over ``[tool.lanes.timing] max_wall_regression`` (opt-in)."""
    return choose(options.max_wall_regression, config.timing.max_wall_regression)


def _announce(sample: Sample, suite: str) -> None:
    peak = sample.peak_rss_kib / 1024
    print(
        f"timing: {suite} {sample.arm}: wall {sample.wall_ms / 1000:.1f}s, "
        f"CPU {sample.cpu_ms / 1000:.1f}s, peak {peak:.0f} MiB, exit {sample.exit_code}",
        file=sys.stderr,
        flush=True,
    )


def measure_all(
    suites: list[Suite], options: TimingOptions, config: Config
) -> list[tuple[TimingMeasurement, float | None]]:
    """Each suite's entry and its max_regression, with live progress on stderr."""
    results = []
    with progress("timing", total=None, unit="runs") as bar:
        for suite in suites:
            plan, max_regression = plan_for(suite, options, config)

            def after_run(sample: Sample, name: str = suite.name) -> None:
                bar.advance()
                _announce(sample, name)

            entry = measure_suite(
                suite, plan, root=config.root, before_run=bar.item, after_run=after_run
            )
            results.append((entry, max_regression))
    return results


class TimingLane:
    name: ClassVar[str] = "timing"

    def resolve(self, ns: argparse.Namespace, config: Config) -> TimingOptions:
        wanted: list[str] = ns.suite or []
        unknown = [name for name in wanted if name not in config.suites]
        if unknown:
            msg = f"--suite {', '.join(map(repr, unknown))}: no such suite"
            raise UsageError(
                msg,
                hint=f"configured suites: {', '.join(config.suites)} "
                "(add one under [tool.lanes.suites.<name>])",
            )
        suites = tuple(dict.fromkeys(wanted)) or tuple(config.suites)
        slow_ratchet: Path | None = getattr(ns, "with_slow_ratchet", None)
        if slow_ratchet is not None:
            _check_shared(suites, ns.repeat, config)
        return TimingOptions(
            suites=suites,
            repeat=ns.repeat,
            workers=ns.workers,
            max_regression=ns.max_regression,
            max_wall_regression=ns.max_wall_regression,
            record=ns.record,
            self_check=ns.self_check,
            slow_ratchet=None if slow_ratchet is None else slow_ratchet.absolute(),
        )

    def config_hash(self, options: TimingOptions, config: Config) -> str:
        return config.section_hash("suites", "timing")

    def seed(self, options: TimingOptions) -> Seed:
        return None

    def run(self, options: TimingOptions, config: Config, run: LaneRun) -> None:
        fingerprint = baselines.host_fingerprint()
        path = baseline_path(config)
        recorded = baselines.read_baseline(path)
        baseline: TimingBaseline = {
            "path": _display(path, config.root),
            "present": recorded is not None,
            "recorded_at": None if recorded is None else recorded.get("recorded_at"),
            "commit": None if recorded is None else recorded.get("commit"),
            "fingerprint": None if recorded is None else recorded["fingerprint"],
        }
        record: TimingRecord = {"requested": options.record, "written": False, "reason": None}
        # A crash while measuring still leaves the host and the baseline in the
        # envelope (partial data: the report shows it as a table).
        run.data.update(fingerprint=fingerprint, baseline=baseline, record=record, self_check=None)
        check: TimingSelfCheck | None = None
        if options.self_check:
            from lanes.timing.selfcheck import run_self_check  # noqa: PLC0415  # only when asked

            check = run_self_check()
            run.data.update(self_check=check)
        suites = [config.suites[name] for name in options.suites]
        if options.slow_ratchet is not None:
            # An earlier run's result must never be judged as this one's.
            clear_shared(options.slow_ratchet)
        entries: list[TimingSuite] = [
            {
                **entry,
                "comparison": baselines.compare(
                    entry,
                    recorded,
                    fingerprint,
                    max_regression=max_regression,
                    max_wall_regression=wall_gate(options, config),
                ),
            }
            for entry, max_regression in measure_all(suites, options, config)
        ]
        if options.slow_ratchet is not None:
            # For `lanes slow run --from-run`: pytest's exit status of the one run.
            write_exit(options.slow_ratchet, entries[0]["exit_codes"][0])
        gate_failed = any(entry["comparison"]["gate"]["failed"] for entry in entries)
        failed = [entry["name"] for entry in entries if entry["status"] == "failed"]
        data: TimingData = {
            "fingerprint": fingerprint,
            "baseline": baseline,
            "record": record,
            "self_check": check,
            "suites": entries,
            "table": [table.row(entry) for entry in entries],
        }
        # Published before the baseline is written, so a failing write still
        # leaves the figures in the envelope; again once ``record`` says so.
        run.publish(data)
        if options.record:
            self._record(
                record,
                path=path,
                recorded=recorded,
                fingerprint=fingerprint,
                entries=entries,
                failed=failed,
                config=config,
            )
            run.publish(data)
        print(table.render(data["table"]))
        _print_notes(data, recording=options.record)
        self_check_ok = check is None or check["passed"]
        # Re-recording accepts the new figures: the gate applies to a comparison only.
        run.verdict(passed=not failed and self_check_ok and (options.record or not gate_failed))

    @staticmethod
    def _record(
        record: TimingRecord,
        *,
        path: Path,
        recorded: dict[str, Any] | None,
        fingerprint: TimingFingerprint,
        entries: list[TimingSuite],
        failed: list[str],
        config: Config,
    ) -> None:
        if failed:
            # Recorded all the same (a suite under development is often red for
            # reasons unrelated to its cost), but marked in the file and here:
            # the person reviewing the diff decides.
            record["reason"] = (
                f"recorded from a FAILING run of {', '.join(failed)}: its status and outcomes "
                "are in the file; review before committing"
            )
        baselines.record_baseline(
            path,
            previous=recorded,
            fingerprint=fingerprint,
            suites=entries,
            commit=git_subject(config.root).commit,
        )
        record["written"] = True


def _check_shared(suites: tuple[str, ...], repeat: int | None, config: Config) -> None:
    """A run shared with the slow ratchet is one run of one pytest suite."""
    if len(suites) != 1:
        msg = f"--with-slow-ratchet measures one suite, got {len(suites)}: {', '.join(suites)}"
        raise UsageError(
            msg, hint="name the suite the ratchet judges: --suite NAME --with-slow-ratchet PATH"
        )
    if repeat not in (None, 1):
        msg = f"--with-slow-ratchet takes one run, got --repeat {repeat!r}"
        raise UsageError(
            msg, hint="drop --repeat (the ratchet judges one run), or drop --with-slow-ratchet"
        )
    command = config.suites[suites[0]].command
    if not is_pytest(shlex.split(command)):
        msg = f"--with-slow-ratchet needs a pytest suite; suite {suites[0]!r} runs {command!r}"
        raise UsageError(
            msg,
            hint="the slow ratchet is a pytest plugin: give the suite a pytest command "
            "([tool.lanes.suites.NAME] command), or drop --with-slow-ratchet",
        )


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _print_notes(data: TimingData, *, recording: bool) -> None:
    for entry in data["suites"]:
        comparison = entry["comparison"]
        # "no baseline: run lanes timing --record" is no news in the run that records it.
        if comparison["reason"] and not (recording and comparison["status"] == "no baseline"):
            print(f"{entry['name']}: {comparison['status']}: {comparison['reason']}")
        if comparison["gate"]["failed"]:
            print(f"{entry['name']}: REGRESSION: {comparison['gate']['reason']}")
        collected = comparison["collected"]
        if collected and collected["flag"] == "dropped":
            print(
                f"{entry['name']}: collected dropped {collected['baseline']:,} → "
                f"{collected['current']:,}: were tests deleted or deselected?"
            )
        if entry["xdist"] is not None:
            print(f"{entry['name']}: {entry['xdist']['verdict']}: {entry['xdist']['explanation']}")
        if entry["failure"]:
            # The failure names each failing run (serial or xdist arm) first.
            print(f"{entry['name']}: the suite FAILED: {entry['failure']}")
    record = data["record"]
    if record["written"]:
        print(f"timing: recorded {data['baseline']['path']}: review the diff and commit it")
    if record["reason"]:
        print(f"timing: baseline {record['reason']}")
    check = data["self_check"]
    if check is not None:
        print(f"timing: self-check {'passed' if check['passed'] else 'FAILED'}: {check['summary']}")
