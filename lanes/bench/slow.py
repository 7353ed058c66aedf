"""The slow-test ratchet's own cost: ``slow-plugin-overhead``.

A generated suite of :data:`SUITE_TESTS` tests (plain, parametrised and
fixture-using tests, so the fixture stopwatch is exercised) runs in a child
pytest twice per pair, in alternating order so that machine load hits both
arms alike:

- *not installed*: ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``, so neither lanekit nor
  any other third-party plugin is loaded;
- *enabled*: the same, plus ``-p lanes.slow --slow-ratchet`` (entry point by
  name, every hook active, the terminal section printed).

Autoloading is off in both arms so that unrelated plugins (Hypothesis alone
costs seconds of import) neither dilute the ratio nor add their own noise.

The verdict is on CPU time (user + system of the child, from
``RUSAGE_CHILDREN``): the plugin's cost is CPU work, and CPU time is far less
disturbed than wall time by the other processes of a shared machine. The wall
ratio is reported alongside. Goal: median overhead ≤ 2%, judged with
:func:`lanes.bench._stats.median_interval` so that only a miss consistent
across the pairs fails the lane.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes.bench._stats import median_interval
from lanes.bench.registry import BenchContext, BenchResult, Verdict, benchmark

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["SUITE_TESTS", "make_suite", "slow_plugin_overhead"]

SUITE_TESTS: Final = 2000
TESTS_PER_MODULE: Final = 50
OVERHEAD_GOAL: Final = 0.02
_WARMUP: Final = 1

_MODULE: Final = """\
import pytest


@pytest.fixture
def value():
    return {index}


class TestGrouped:
    def test_method(self, value):
        assert value == {index}

"""


def make_suite(root: Path, tests: int = SUITE_TESTS) -> None:
    """Write a project of ``tests`` fast tests under ``root/tests``."""
    suite = root / "tests"
    suite.mkdir(parents=True, exist_ok=True)
    root.joinpath("pyproject.toml").write_text(
        "[tool.pytest.ini_options]\n"
        'testpaths = ["tests"]\n\n'
        "[tool.lanes.slow.tiers.unit]\n"
        "budget = 2.5\n",
        encoding="utf-8",
    )
    written = 0
    index = 0
    while written < tests:
        count = min(TESTS_PER_MODULE, tests - written)
        # One class method, then a third parametrised, a third fixture-using,
        # the rest plain functions.
        body = [_MODULE.format(index=index)]
        remaining = count - 1
        params = remaining // 3
        if params:
            body.append(
                f"@pytest.mark.parametrize('n', range({params}))\n"
                "def test_param(n):\n    assert n >= 0\n\n"
            )
        with_fixture = remaining // 3
        body.extend(
            f"def test_fixture_{i}(value):\n    assert value == {index}\n\n"
            for i in range(with_fixture)
        )
        body.extend(
            f"def test_plain_{i}():\n    assert True\n\n"
            for i in range(remaining - params - with_fixture)
        )
        suite.joinpath(f"test_generated_{index:03d}.py").write_text("".join(body), encoding="utf-8")
        written += count
        index += 1


def _timed(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """(wall seconds, child CPU seconds, exit code) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


@benchmark(
    "slow-plugin-overhead",
    f"pytest on a generated {SUITE_TESTS}-test suite: slow ratchet enabled vs not installed, "
    "paired runs",
)
def slow_plugin_overhead(ctx: BenchContext) -> BenchResult:
    root = Path(tempfile.mkdtemp(prefix="lanes-bench-slow-"))
    try:
        make_suite(root, SUITE_TESTS)
        env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        base = [ctx.python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        arms = {"off": base, "on": [*base, "-p", "lanes.slow", "--slow-ratchet"]}
        for _ in range(_WARMUP):
            for argv in arms.values():
                _timed(argv, root, env)
        # Each pair costs two full suite runs (seconds each): a quarter of the
        # lane's iteration count, never fewer than 5 pairs.
        pairs = max(5, ctx.iterations // 4)
        cpu_ratios: list[float] = []
        wall_ratios: list[float] = []
        off_cpu: list[float] = []
        codes: set[int] = set()
        for pair in range(pairs):
            order = ("off", "on") if pair % 2 == 0 else ("on", "off")
            results = {}
            for arm in order:
                wall, cpu, code = _timed(arms[arm], root, env)
                results[arm] = (wall, cpu)
                codes.add(code)
            cpu_ratios.append(results["on"][1] / results["off"][1])
            wall_ratios.append(results["on"][0] / results["off"][0])
            off_cpu.append(results["off"][1])
    finally:
        shutil.rmtree(root, ignore_errors=True)
    median, low, high = median_interval(cpu_ratios)
    figures: dict[str, float | int | str | bool | None] = {
        "tests": SUITE_TESTS,
        "pairs": pairs,
        "cpu_overhead_median": round(median - 1, 4),
        "cpu_overhead_ci95_low": round(low - 1, 4),
        "cpu_overhead_ci95_high": round(high - 1, 4),
        "wall_overhead_median": round(statistics.median(wall_ratios) - 1, 4),
        "baseline_cpu_s_median": round(statistics.median(off_cpu), 3),
    }
    goal = f"median CPU-time overhead <= {OVERHEAD_GOAL:.0%}"
    if codes != {0}:
        return BenchResult(
            figures=figures,
            goal=goal,
            verdict="fail",
            note=f"the generated suite did not pass in every run (exit codes {sorted(codes)})",
        )
    verdict: Verdict = "pass"
    note = ""
    if low - 1 > OVERHEAD_GOAL:
        verdict = "fail"
        note = f"the whole 95% interval ({low - 1:.1%} to {high - 1:.1%}) is above the goal"
    elif median - 1 > OVERHEAD_GOAL:
        note = (
            f"median {median - 1:.1%} over the goal but within noise (interval from {low - 1:.1%})"
        )
    return BenchResult(figures=figures, goal=goal, verdict=verdict, note=note)
