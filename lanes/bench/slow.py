"""The slow-test ratchet's own cost: ``slow-plugin-overhead``.

A generated suite of :data:`SUITE_TESTS` tests (plain, parametrised, class and
fixture-using tests, so the fixture stopwatch is exercised) runs twice per
pair with ``pytest.main`` in this one process, in alternating order so that
machine load hits both arms alike:

- *not loaded*: ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``, so neither lanekit nor
  any other third-party plugin takes part;
- *enabled*: the same plus ``-p lanes.slow --slow-ratchet`` (entry point by
  name, every hook active, the terminal section rendered).

In-process pairs on CPU time (``time.process_time``) because on a shared
machine a child interpreter's start-up and wall time vary by tens of percent
between identical runs, drowning a 2% effect; the plugin's cost is CPU work.
The one thing in-process runs under-count, the enabled plugin's import (paid
once here, once per run in real life), is measured in fresh interpreters and
added to every figure as ``import_share``. Autoloading is off in both arms so
that unrelated plugins neither dilute the ratio nor add noise. Goal: median
overhead ≤ 2%, judged with :func:`lanes.bench._stats.median_interval` so that
only a miss consistent across the pairs fails the lane.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes.bench._stats import goal_verdict, median_interval
from lanes.bench.registry import BenchContext, BenchResult, benchmark

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["SUITE_TESTS", "make_suite", "slow_plugin_overhead"]

SUITE_TESTS: Final = 2000
TESTS_PER_MODULE: Final = 50
OVERHEAD_GOAL: Final = 0.02
MIN_PAIRS: Final = 5
IMPORT_SAMPLES: Final = 5
WARMUP: Final = 1

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


def _run(args: list[str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, exit code) of one in-process pytest run."""
    import pytest  # noqa: PLC0415  # a lane dependency; `lanes --help` must not pay for it

    gc.collect()
    sink = io.StringIO()
    cpu = time.process_time()
    wall = time.perf_counter()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        code = pytest.main(args)
    return time.perf_counter() - wall, time.process_time() - cpu, int(code)


def _import_seconds(python: str) -> float:
    """The enabled ratchet's one-off import cost, best of IMPORT_SAMPLES fresh interpreters."""
    code = (
        "import time, pytest; t = time.perf_counter(); import lanes.slow.session; "
        "print(time.perf_counter() - t)"
    )
    samples = [
        float(
            subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout
        )
        for _ in range(IMPORT_SAMPLES)
    ]
    return min(samples)


@contextlib.contextmanager
def _no_autoload(root: Path) -> Iterator[None]:
    previous_cwd = Path.cwd()
    previous = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    os.chdir(root)
    try:
        yield
    finally:
        os.chdir(previous_cwd)
        if previous is None:
            del os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = previous


@benchmark(
    "slow-plugin-overhead",
    f"pytest on a generated {SUITE_TESTS}-test suite: slow ratchet enabled vs not loaded, "
    "paired in-process runs",
)
def slow_plugin_overhead(ctx: BenchContext) -> BenchResult:
    root = Path(tempfile.mkdtemp(prefix="lanes-bench-slow-"))
    try:
        make_suite(root, SUITE_TESTS)
        base = ["-q", "-p", "no:cacheprovider", "tests"]
        arms = {"off": base, "on": [*base, "-p", "lanes.slow", "--slow-ratchet"]}
        with _no_autoload(root):
            for _ in range(WARMUP):
                for args in arms.values():
                    _run(args)
            # Each pair costs two full suite runs (a second or more each): half
            # the lane's iteration count, never fewer than MIN_PAIRS.
            pairs = max(MIN_PAIRS, ctx.iterations // 2)
            cpu_ratios: list[float] = []
            wall_ratios: list[float] = []
            off_cpu: list[float] = []
            codes: set[int] = set()
            for pair in range(pairs):
                order = ("off", "on") if pair % 2 == 0 else ("on", "off")
                results = {}
                for arm in order:
                    wall, cpu, code = _run(arms[arm])
                    results[arm] = (wall, cpu)
                    codes.add(code)
                cpu_ratios.append(results["on"][1] / results["off"][1])
                wall_ratios.append(results["on"][0] / results["off"][0])
                off_cpu.append(results["off"][1])
    finally:
        shutil.rmtree(root, ignore_errors=True)
    # In-process runs import the plugin once; charge that import to every run.
    import_share = _import_seconds(ctx.python) / statistics.median(off_cpu)
    median, low, high = (ratio - 1 + import_share for ratio in median_interval(cpu_ratios))
    figures: dict[str, float | int | str | bool | None] = {
        "tests": SUITE_TESTS,
        "pairs": pairs,
        "overhead_median": round(median, 4),
        "overhead_ci95_low": round(low, 4),
        "overhead_ci95_high": round(high, 4),
        "import_share": round(import_share, 4),
        "wall_overhead_median": round(statistics.median(wall_ratios) - 1 + import_share, 4),
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
    # A tracked goal: on a generated suite of empty tests pytest's own per-test
    # cost is tiny, so the plugin's share is the worst case any suite sees.
    verdict, note = goal_verdict(median, low, high, OVERHEAD_GOAL, gating=False)
    return BenchResult(figures=figures, goal=goal, verdict=verdict, note=note)
