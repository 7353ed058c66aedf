"""The slow-test ratchet's own cost: ``slow-plugin-overhead``, a gating goal.

A generated suite of :data:`SUITE_TESTS` tests (plain, parametrised, class
and fixture-using tests, so the fixture stopwatch is exercised) runs in a
fresh interpreter under valgrind's callgrind, and the figure is the ratio of
**instructions executed**, one pair of arms in each of five memory layouts
(:data:`LAYOUTS`), the median of the pairs:

- *not loaded*: ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``, so neither lanekit nor
  any other third-party plugin takes part;
- *enabled*: the same plus ``-p lanes.slow --slow-ratchet`` (entry point by
  name, every hook active, the terminal section rendered, the last-run
  record written).

Instruction counts are deterministic for one layout (``PYTHONHASHSEED``
fixed), so five pairs (three in the main job's lighter profile,
``--iterations 20``) are a verdict on a shared, loaded machine where
CPU-time pairs scattered by several percent; a fresh interpreter per arm charges the
plugin's import and configuration load to the run, as in real life. Goal:
overhead ≤ 2% for the median, **gating** (``fail`` past it). Measured +1.6%
here (Python 3.11; docs/explanation/measurements.md takes it apart). Without valgrind the figure cannot be taken and the result
says so (``miss``: an absent tool is not a regression; the nightly workflow
installs valgrind).

Reproduce: ``lanes bench run --only slow-plugin-overhead`` (a few minutes:
callgrind runs the suite some 50× slower than native).
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes.bench.registry import BenchContext, BenchResult, benchmark

if TYPE_CHECKING:
    from lanes.payloads.bench import BenchFigure

__all__ = [
    "SUITE_TESTS",
    "instructions",
    "layouts",
    "make_suite",
    "no_valgrind",
    "slow_plugin_overhead",
    "warm_up",
]

SUITE_TESTS: Final = 2000
LAYOUTS: Final = 5
"""Memory layouts, one pair of arms each: layout ``k`` adds ``k`` unused
environment variables. A count is deterministic for one layout, not across
layouts: the environment moves the stack and heap, and with them hash-table
probing and allocation — the same code and suite measured +1.55% to +1.98%
with zero to eight extra variables. The figure is the median of the pairs,
its spread their range."""
MIN_LAYOUTS: Final = 3
"""The fewest layouts a lighter run (``--iterations`` under 40, the main job's
profile) takes: still a median of pairs, with a spread."""
LAYOUT_VARIABLE: Final = "LANES_BENCH_LAYOUT"
TESTS_PER_MODULE: Final = 50
OVERHEAD_GOAL: Final = 0.02
_COLLECTED: Final = re.compile(r"Collected : (\d+)")

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


def _env(drop: tuple[str, ...] = ()) -> dict[str, str]:
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONHASHSEED": "0"}
    # Variables that would change what a plugin does (an agent's CLAUDECODE
    # turns the governor's plugin on): each bench says which to leave out.
    for name in drop:
        env.pop(name, None)
    # The warm-up must be able to fill the byte-code caches: with
    # PYTHONDONTWRITEBYTECODE inherited (sandboxes and CI images often set it)
    # every measured run would compile — and assertion-rewrite — the plugin's
    # modules from source again, some 2% of the suite charged to the plugin
    # that no installed lanekit pays after its first run.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def warm_up(python: str, root: Path, args: list[str], drop: tuple[str, ...] = ()) -> None:
    """One native run: fills the byte-code and assertion-rewrite caches, as any earlier run has.

    pytest rewrites a plugin distribution's modules on first import and caches
    the result; without a warm-up the first measured run would pay that once
    and call it the plugin's per-run cost.
    """
    subprocess.run(
        [python, "-m", "pytest", *args], cwd=root, env=_env(drop), capture_output=True, check=False
    )


def instructions(
    python: str, root: Path, args: list[str], layout: int = 0, drop: tuple[str, ...] = ()
) -> tuple[int, int]:
    """(instructions executed, pytest exit code) of one fresh ``python -m pytest`` under callgrind.

    ``layout``: how many otherwise unused environment variables to add, which
    moves the process's memory layout (see :data:`LAYOUTS`); ``drop``: the
    variables of this environment to leave out.
    """
    env = {**_env(drop), **{f"{LAYOUT_VARIABLE}_{i}": "x" * (37 * i) for i in range(layout)}}
    command = [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
        python, "-m", "pytest", *args,
    ]  # fmt: skip
    proc = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    found = _COLLECTED.findall(proc.stderr)
    if not found:
        msg = (
            f"callgrind printed no instruction count (exit {proc.returncode}): {proc.stderr[-400:]}"
        )
        raise RuntimeError(msg)
    return int(found[-1]), proc.returncode


def layouts(iterations: int) -> int:
    """Memory layouts for the effort asked: :data:`LAYOUTS` at the default 40
    iterations, one fewer per 8 fewer, never under :data:`MIN_LAYOUTS`.

    Each layout is a pair of callgrind runs of the whole generated suite, the
    costliest thing the bench lane does.
    """
    return max(MIN_LAYOUTS, min(LAYOUTS, iterations // 8))


def no_valgrind(goal: str) -> BenchResult | None:
    """The result of an instruction-count bench on a machine without valgrind, else None."""
    if shutil.which("valgrind") is not None:
        return None
    return BenchResult(
        figures={"tests": SUITE_TESTS},
        goal=goal,
        verdict="miss",
        note="valgrind is not installed: the instruction count cannot be taken "
        "(apt-get install valgrind)",
    )


@benchmark(
    "slow-plugin-overhead",
    f"pytest on a generated {SUITE_TESTS}-test suite: slow ratchet enabled vs not loaded, "
    "instructions executed (callgrind), fresh interpreter per arm",
)
def slow_plugin_overhead(ctx: BenchContext) -> BenchResult:
    goal = f"instruction overhead <= {OVERHEAD_GOAL:.0%}"
    missing = no_valgrind(goal)
    if missing is not None:
        return missing
    root = Path(tempfile.mkdtemp(prefix="lanes-bench-slow-"))
    try:
        make_suite(root, SUITE_TESTS)
        base = ["-q", "-p", "no:cacheprovider", "tests"]
        enabled = [*base, "-p", "lanes.slow", "--slow-ratchet"]
        for args in (base, enabled):
            warm_up(ctx.python, root, args)
        count = layouts(ctx.iterations)
        runs = [(args, layout) for layout in range(count) for args in (base, enabled)]
        # callgrind is single-threaded and load does not change a count: two
        # at a time halve the wait.
        with ThreadPoolExecutor(max_workers=2) as pool:
            counts = list(pool.map(lambda run: instructions(ctx.python, root, *run), runs))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    pairs = [(counts[i][0], counts[i + 1][0]) for i in range(0, len(counts), 2)]
    overheads = sorted(on / off - 1 for off, on in pairs)
    overhead = statistics.median(overheads)
    off, on = pairs[0]
    figures: dict[str, BenchFigure] = {
        "tests": SUITE_TESTS,
        "layouts": count,
        "instructions_off": off,
        "instructions_on": on,
        "overhead": round(overhead, 4),
        "overhead_min": round(overheads[0], 4),
        "overhead_max": round(overheads[-1], 4),
        "instructions_per_test": round((on - off) / SUITE_TESTS),
    }
    codes = sorted({code for _, code in counts})
    if codes != [0]:
        note = f"the generated suite did not pass in every run (exit codes {codes})"
        return BenchResult(figures=figures, goal=goal, verdict="fail", note=note)
    spread = f"{overheads[0]:+.2%} to {overheads[-1]:+.2%} over {count} memory layouts"
    if overhead > OVERHEAD_GOAL:
        note = (
            f"the enabled ratchet costs {overhead:.2%} more instructions than pytest alone "
            f"(median; {spread})"
        )
        return BenchResult(figures=figures, goal=goal, verdict="fail", note=note)
    return BenchResult(
        figures=figures, goal=goal, verdict="pass", note=f"{overhead:+.2%} ({spread})"
    )
