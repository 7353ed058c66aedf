"""The timing lane's own cost: ``timing-lane-overhead``.

A generated suite of :data:`SUITE_TESTS` tests (the slow benchmark's
generator: plain, parametrised, class and fixture-using tests) runs in pairs,
in alternating order so machine load hits both arms alike:

- *bare*: ``python -m pytest tests -q -p no:cacheprovider`` as a plain child;
- *lane*: the same command through :func:`lanes.timing.measure.measure` —
  the reaper process, the probe plugin in the suite, the report files.

Both arms are charged the CPU time of everything they started, read the same
way (``RUSAGE_CHILDREN`` of this process before and after the run), because a
child interpreter's wall time on a shared machine varies by tens of percent
between identical runs and would drown a 3% effect. Two figures:

- ``overhead``: the lane's total CPU over the bare command's, minus one —
  what a user pays for measuring (the goal: ≤ 3%, judged with
  :func:`lanes.bench._stats.median_interval` so only a miss consistent
  across the pairs fails the lane);
- ``figure_bias``: the CPU time the lane *reports* for the suite over the
  bare command's, minus one — how much measuring changes the measurement.
"""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes.bench._stats import goal_verdict, median_interval
from lanes.bench.registry import BenchContext, BenchResult, benchmark
from lanes.bench.valgrind import make_suite
from lanes.timing.measure import measure, probe_path

if TYPE_CHECKING:
    from lanes.payloads.bench import BenchFigure

__all__ = ["OVERHEAD_GOAL", "SUITE_TESTS", "timing_lane_overhead"]

SUITE_TESTS: Final = 2000
OVERHEAD_GOAL: Final = 0.03
MIN_PAIRS: Final = 4


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _bare(argv: list[str], root: Path) -> tuple[float, int]:
    before = _children_cpu()
    code = subprocess.run(
        argv, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, check=False
    ).returncode
    return _children_cpu() - before, code


def _lane(argv: list[str], root: Path, probe: Path, logs: Path) -> tuple[float, float, int]:
    before = _children_cpu()
    sample = measure("bench", argv, cwd=root, probe_dir=probe, log_dir=logs)
    return _children_cpu() - before, sample.cpu_ms / 1000, sample.exit_code


@benchmark(
    "timing-lane-overhead",
    f"pytest on a generated {SUITE_TESTS}-test suite: through the timing lane's measurement "
    "(reaper + probe) vs the bare command, paired runs, CPU time",
)
def timing_lane_overhead(ctx: BenchContext) -> BenchResult:
    scratch = Path(tempfile.mkdtemp(prefix="lanes-bench-timing-"))
    try:
        root = scratch / "project"
        make_suite(root, SUITE_TESTS)
        probe = probe_path(scratch)
        logs = scratch / "logs"
        logs.mkdir()
        # Hypothesis's plugin would only add the same seconds of import to both arms.
        argv = [
            sys.executable,
            "-m",
            "pytest",
            "tests",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:hypothesispytest",
        ]
        # Each pair is two suite runs of a second or more: a quarter of the
        # lane's iteration count, never fewer than MIN_PAIRS.
        pairs = max(MIN_PAIRS, ctx.iterations // 4)
        overheads: list[float] = []
        biases: list[float] = []
        bare_cpu: list[float] = []
        codes: set[int] = set()
        _bare(argv, root)  # warm the file cache and the bytecode for both arms
        for pair in range(pairs):
            if pair % 2 == 0:
                bare, bare_code = _bare(argv, root)
                total, reported, lane_code = _lane(argv, root, probe, logs)
            else:
                total, reported, lane_code = _lane(argv, root, probe, logs)
                bare, bare_code = _bare(argv, root)
            codes |= {bare_code, lane_code}
            overheads.append(total / bare - 1)
            biases.append(reported / bare - 1)
            bare_cpu.append(bare)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    median, low, high = median_interval(overheads)
    figures: dict[str, BenchFigure] = {
        "tests": SUITE_TESTS,
        "pairs": pairs,
        "overhead_median": round(median, 4),
        "overhead_ci95_low": round(low, 4),
        "overhead_ci95_high": round(high, 4),
        "figure_bias_median": round(statistics.median(biases), 4),
        "bare_cpu_s_median": round(statistics.median(bare_cpu), 3),
    }
    goal = f"median CPU-time overhead <= {OVERHEAD_GOAL:.0%}"
    if codes != {0}:
        return BenchResult(
            figures=figures,
            goal=goal,
            verdict="fail",
            note=f"the generated suite did not pass in every run (exit codes {sorted(codes)})",
        )
    # Gating: the lane promises not to change what it measures; a consistent
    # miss across the pairs is a bug in the lane, not the machine.
    verdict, note = goal_verdict(median, low, high, OVERHEAD_GOAL, gating=True)
    return BenchResult(figures=figures, goal=goal, verdict=verdict, note=note)
