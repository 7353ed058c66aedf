"""Measure one suite: collect, the configured command repeated, and the xdist arms.

The runs, in order (pytest suites; any other command gets only the repeats):

1. ``--collect-only -q``: the collected count, whether xdist is installed,
   and the serial run that selects nothing (the fixed cost of a serial start);
2. the suite's command as configured, ``repeat`` times — the figures the
   baseline and the Δ table use (with ``repeat`` unset: as often as the first
   run's cost allows, :mod:`lanes.timing.sizing`);
3. the other arm of the xdist comparison, as often: ``-n N`` added to a
   serial command, or ``-n 0`` to a command that already distributes;
4. the ``-n N`` run that selects nothing (a ``-k`` no test matches): the
   fixed cost of starting the workers.

The comparison is skipped — with the reason in the envelope — when workers is
0, xdist is not installed in the suite's environment, or (workers unset) one
run of the suite takes so long that a second arm would double the lane.

A shared run (``plan.ratchet``, :mod:`lanes.timing.shared`) is one run of one
arm: the suite's command with ``-n workers`` (none for 0) and the slow
ratchet enabled, its verdicts written for ``lanes slow run --from-run``; no
repeat (the ratchet judges one run) and no second arm.
"""

from __future__ import annotations

import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes.timing import figures, sizing, xdist
from lanes.timing.measure import Sample, is_pytest, measure, probe_path
from lanes.timing.shared import RATCHET_OPTION

if TYPE_CHECKING:
    from collections.abc import Callable

    from lanes.config import Suite
    from lanes.payloads.timing import TimingArm, TimingMeasurement, TimingSizing, TimingXdist

__all__ = ["SELECT_NOTHING", "SuitePlan", "measure_suite", "shared_argv"]

# A -k expression no test name contains: the run collects everything and runs nothing.
SELECT_NOTHING: Final = "lanes_timing_selects_no_test"
_PASSING_EXITS: Final = frozenset({0, 5})  # 5: no tests collected, nothing failed


@dataclass(frozen=True)
class SuitePlan:
    repeat: int | None  # None: automatic
    workers: int  # 0: no xdist comparison
    offenders: int
    workers_set: bool = False  # configured, not the CPU count: compare whatever the suite costs
    ratchet: Path | None = None  # a shared run: the slow ratchet's result goes here


def shared_argv(argv: list[str], plan: SuitePlan, ratchet: Path) -> list[str]:
    """The one run of a shared run: ``-n workers`` (none for 0) and the ratchet enabled."""
    workers = ["-n", str(plan.workers)] if plan.workers else []
    # "=": a space-separated path could be taken for a test path (lanes/slow/run.py).
    return [*argv, *workers, f"{RATCHET_OPTION}={ratchet}"]


def _shared_sizing(first_s: float, plan: SuitePlan) -> TimingSizing:
    arm = f"-n {plan.workers}" if plan.workers else "serial"
    return {
        "repeat": 1,
        "arms": 1,
        "first_run_ms": round(first_s * 1000),
        "chosen_by": "configured",
        "reason": f"1 run of one arm ({arm}), shared with the slow-test ratchet "
        "(--with-slow-ratchet): the ratchet judges one run, and the serial vs xdist "
        "comparison is left to a run without it",
    }


def _collected_from_output(sample: Sample, log_dir: Path) -> int | None:
    # Without the probe's count (it did not load), pytest's own summary line says it.
    text = (log_dir / f"{sample.arm}.log").read_text(encoding="utf-8", errors="replace")
    for line in reversed(text.splitlines()):
        words = line.replace("/", " ").split()
        if len(words) >= 2 and words[0].isdigit() and words[1].startswith("test"):
            return int(words[0])
    return None


def measure_suite(
    suite: Suite,
    plan: SuitePlan,
    *,
    root: Path,
    before_run: Callable[[str], None],
    after_run: Callable[[Sample], None],
) -> TimingMeasurement:
    """Every figure of one suite, as the envelope's ``suites[]`` entry (without the Δ)."""
    argv = shlex.split(suite.command)
    pytest = is_pytest(argv)
    with tempfile.TemporaryDirectory(prefix="lanes-timing-") as scratch:
        scratch_dir = Path(scratch)
        probe = probe_path(scratch_dir) if pytest else None
        log_dir = scratch_dir / "logs"
        log_dir.mkdir()

        def run(arm: str, args: list[str]) -> Sample:
            label = f"{suite.name} {arm}"
            before_run(label)
            sample = measure(
                arm,
                args,
                cwd=root,
                probe_dir=probe,
                log_dir=log_dir,
                heartbeat=lambda: before_run(label),
            )
            after_run(sample)
            return sample

        collect = run("collect", [*argv, "--collect-only", "-q"]) if pytest else None
        collected = None
        if collect is not None:
            collected = collect.collected
            if collected is None:
                collected = _collected_from_output(collect, log_dir)

        ratchet = plan.ratchet if pytest else None
        samples = [run("run-1", shared_argv(argv, plan, ratchet) if ratchet else argv)]
        skipped = None
        other: list[Sample] = []
        if not pytest:
            skipped = "not a pytest command"
        elif ratchet is not None:
            skipped = (
                "a run shared with the slow-test ratchet measures one arm: the serial vs "
                "xdist comparison is `lanes timing` without --with-slow-ratchet (nightly)"
            )
        elif plan.workers == 0:
            skipped = "workers = 0: the comparison is switched off"
        elif collect is None or not collect.xdist_available:
            skipped = "pytest-xdist is not installed in the suite's environment"
        sized, no_second_arm = sizing.choose(
            samples[0].wall_ms / 1000,
            repeat=plan.repeat,
            comparable=skipped is None,
            workers_set=plan.workers_set,
        )
        skipped = skipped or no_second_arm
        if ratchet is not None:
            sized = _shared_sizing(samples[0].wall_ms / 1000, plan)
        repeat = sized["repeat"]
        samples.extend(run(f"run-{index}", argv) for index in range(2, repeat + 1))
        middle = figures.median_sample(samples)
        measured = figures.arm_summary(samples, "xdist" if middle.workers else "serial")
        exits = [sample.exit_code for sample in samples]
        comparison = None
        if skipped is None and collect is not None:
            # Compared even when tests fail: failing tests cost time too, and a
            # suite under development is red for long stretches.
            comparison, other = _compare_arms(
                argv, measured, collect=collect, plan=plan, run=run, repeat=repeat
            )
        # Every arm counts: an xdist run that failed (a test that breaks under
        # -n, a worker crash) was absorbed into a "passed" suite.
        failing = [s for s in (*samples, *other) if not _passed(s, shared=ratchet is not None)]
        python = middle.python or (collect.python if collect is not None else None)
        return {
            "name": suite.name,
            "command": suite.command,
            "runner": "pytest" if pytest else "command",
            "python": python,
            "status": "failed" if failing else "passed",
            "exit_codes": exits,
            "outcomes": middle.outcomes,
            "collected": collected,
            "measured": measured,
            "offenders": figures.offenders(middle, plan.offenders) if pytest else None,
            "xdist": comparison,
            "xdist_skipped": skipped,
            "failure": _failure(failing),
            "sizing": sized,
        }


def _passed(sample: Sample, *, shared: bool) -> bool:
    if sample.exit_code in _PASSING_EXITS:
        return True
    # In a shared run the ratchet turns a session whose tests all passed into
    # exit 1 when one broke its time budget: that verdict is the slow lane's,
    # judged from this same run, not a failing suite for the timing lane.
    failed = sample.outcomes.get("failed", 0) + sample.outcomes.get("error", 0)
    return shared and sample.exit_code == 1 and failed == 0


def _failure(failing: list[Sample]) -> str | None:
    """The first failing run's output, headed by its arm and exit status."""
    if not failing:
        return None
    first = failing[0]
    arms = ", ".join(f"{s.arm} (exit {s.exit_code})" for s in failing)
    return f"failing runs: {arms}; {first.arm}'s output ends:\n{first.output_tail}"


def _compare_arms(
    argv: list[str],
    measured: TimingArm,
    *,
    collect: Sample,
    plan: SuitePlan,
    run: Callable[[str, list[str]], Sample],
    repeat: int,
) -> tuple[TimingXdist, list[Sample]]:
    """The serial vs xdist verdict, and every run of the other arm (their exits count too)."""
    if measured["workers"]:
        # The command distributes already: the other arm is serial.
        workers = measured["workers"]
        serial_argv, parallel_argv = [*argv, "-n", "0"], argv
        other = [run(f"serial-{i}", serial_argv) for i in range(1, repeat + 1)]
        serial, parallel = figures.arm_summary(other, "serial"), measured
    else:
        workers = plan.workers
        parallel_argv = [*argv, "-n", str(workers)]
        other = [run(f"xdist-{i}", parallel_argv) for i in range(1, repeat + 1)]
        serial, parallel = measured, figures.arm_summary(other, "xdist")
    empty = run("xdist-empty", [*parallel_argv, "-k", SELECT_NOTHING])
    block = xdist.verdict(
        serial,
        parallel,
        workers=workers,
        serial_empty_ms=collect.wall_ms,
        parallel_empty_ms=empty.wall_ms,
    )
    # The arm the suite's own command did not run: the one measured above.
    return {**block, "other_arm": serial if measured["workers"] else parallel}, [*other, empty]
