"""What ``lanes torture`` prints: summaries, failures, tables."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanes.torture.world import EPOCH

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from lanes.torture.harness import RunResult, TraceStep
    from lanes.torture.lane import Options
    from lanes.torture.real import RealReport
    from lanes.torture.settings import TortureConfig
    from lanes.torture.sweep import Detection, Failure, Mismatch, SweepReport

__all__ = [
    "failure",
    "mismatch",
    "real_line",
    "replay_command",
    "scenario_line",
    "self_check_table",
    "sweep_summary",
    "trace",
]


def sweep_summary(report: SweepReport) -> str:
    settings = report.settings
    totals = report.totals
    breaks = ", ".join(f"{why} {count}" for why, count in sorted(report.breaks.items())) or "none"
    return "\n".join(
        [
            (
                f"torture: {report.runs} seed(s) from {report.seed_start} "
                f"({settings.scheduler}, {settings.clients} clients x {settings.ops} ops, "
                f"TTL {settings.ttl}s), each run twice and compared"
            ),
            (
                f"  {report.steps} steps, {report.executions} runs in {report.elapsed:.1f}s "
                f"({report.runs_per_second:.1f} runs/s)"
            ),
            (
                f"  contention: {totals.get('held_blocks', 0)} blocked on a held lock, "
                f"{totals.get('flock_waits', 0)} flock waits, "
                f"{totals.get('acquired', 0)} acquired, "
                f"{totals.get('dedup_blocks', 0)} deduplicated; lock taken over: {breaks}"
            ),
            (
                f"  crashes {totals.get('crashes', 0)}, interrupts {totals.get('interrupts', 0)}, "
                f"pid reuses {totals.get('pid_reuses', 0)}; "
                f"TTL overlaps (documented trade-off): {totals.get('ttl_overlaps', 0)}"
            ),
            (
                f"  violations: {len(report.failures)}; "
                f"non-deterministic seeds: {len(report.mismatches)}"
            ),
        ]
    )


def trace(steps: Sequence[TraceStep], *, limit: int) -> str:
    shown = steps[-limit:]
    lines = [] if len(shown) == len(steps) else [f"    ... {len(steps) - len(shown)} earlier steps"]
    lines += [
        f"    #{s.step:<5} client {s.client}  t=+{s.now - EPOCH:<8.0f} {s.label}" for s in shown
    ]
    return "\n".join(lines)


def replay_command(seed: int, options: Options, defaults: TortureConfig) -> str:
    flags = [f"--seed {seed}"]
    if options.clients != defaults.clients:
        flags.append(f"--clients {options.clients}")
    if options.ops != defaults.ops:
        flags.append(f"--ops {options.ops}")
    if options.scheduler != defaults.scheduler:
        flags.append(f"--scheduler {options.scheduler}")
    return "nox -s torture -- " + " ".join(flags)


def failure(item: Failure, *, replay: str, path: Path, shrunk: RunResult) -> str:
    schedule = item.schedule
    return "\n".join(
        [
            f"FAIL seed {item.seed}: {item.invariant}: {item.message}",
            "  the steps leading to it:",
            trace(item.tail, limit=12),
            f"  replay: {replay}",
            f"  shrunk schedule ({len(schedule.choices)} choices, {schedule.ops} ops): {path}",
            f"  replay it: lanes torture --schedule {path}",
            trace(shrunk.trace, limit=40),
            f"  shrunk outcome: {shrunk.outcome}",
        ]
    )


def mismatch(item: Mismatch) -> str:
    return (
        f"NON-DETERMINISTIC seed {item.seed}: {item.what} differs between the run and its "
        f"replay:\n    {item.first[:300]}\n    {item.second[:300]}"
    )


def scenario_line(result: RunResult, *, ok: bool, contended: bool) -> str:
    verdict = "ok" if ok else f"FAILED ({result.outcome})"
    sweep = "yes" if contended else "NO (no client was ever blocked on a held lock)"
    return (
        f"  two-client contention scenario: {verdict} — {result.counters.held_blocks} blocked, "
        f"{result.counters.acquired} acquired; sweep saw contention: {sweep}"
    )


def self_check_table(table: Sequence[Detection], *, bound: float, steps: int) -> str:
    lines = [
        "self-check: planted bugs (each must be caught by at least one scheduler)",
        f"  {'bug':<24} {'scheduler':<9} {'seeds to detection':>18} {'detected':>10}  invariant",
    ]
    for row in table:
        first = "-" if row.seeds_to_detection is None else str(row.seeds_to_detection)
        mark = "" if row.detected else "   <- missed by this scheduler"
        lines.append(
            f"  {row.bug:<24} {row.scheduler:<9} {first:>18} {row.detected:>4}/{row.seeds:<5}"
            f"  {row.invariant or '-'}{mark}"
        )
    lines.append(
        f"  PCT guarantee for a depth-3 bug: >= 1/(n*k^2) = {bound:.2e} per run "
        f"(n = clients, k = {steps} steps); observed rates above are per seed"
    )
    return "\n".join(lines)


def real_line(report: RealReport) -> str:
    data = report.to_dict()
    verdict = "ok" if report.passed else "FAILED: " + "; ".join(report.problems)
    return (
        f"real guard: {verdict} — {data['procs']} procs, {data['critical_sections']} critical "
        f"sections, {data['blocked']} blocked attempts, {data['kills']} holders SIGKILLed, "
        f"takeover max {data['takeover_ms_max']} ms (median {data['takeover_ms_median']} ms), "
        f"overlaps {data['overlaps']}, lock left: {data['lock_left']}, {data['elapsed_s']}s"
    )
