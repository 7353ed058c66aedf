"""Instruction counts of pytest on a generated suite, for the plugin-overhead benchmarks.

``slow-plugin-overhead`` and ``governor-plugin-overhead`` each compare pytest
with one plugin against pytest with none (*not loaded*:
``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``) on a generated suite of
:data:`SUITE_TESTS` tests, counting **instructions executed** under
valgrind in a fresh interpreter per run, one pair of runs per memory layout
(:data:`LAYOUTS`), the median of the pairs judged.

The count is cachegrind's ``I refs`` with its cache simulation off
(:data:`VALGRIND`): instructions executed and nothing else, which is all a
goal here reads. callgrind, used before, counts the same instructions but
also keeps a call graph: 2-3x the CPU for the same figure (a 1,000-test run
70 s against 23 s; the ratchet's overhead at 100 tests +5.810% under
callgrind, +5.809% under cachegrind, in one layout).

The not-loaded runs are the same for both benchmarks, so they are made once
per lane run (per interpreter, suite size and layout) and shared: both
benchmarks leave the agent variables out of every run (:data:`AGENT_VARIABLES`),
which keeps the environment — and so the memory layout — of the shared base
identical. That is a third of the valgrind runs of the two benchmarks.

Two profiles (:func:`plan`):

- **full** (``--iterations`` :data:`FULL_FROM` or more; ``nox -s bench``,
  nightly): the :data:`SUITE_TESTS`-test suite itself in
  :func:`layouts` layouts (five at the default 40);
- **light** (fewer iterations; the main job's ``--iterations 20``): per
  layout and arm, two smaller suites of :data:`LIGHT_SIZES` tests, and the
  count of the :data:`SUITE_TESTS`-test suite **extrapolated** along the line
  through them, in one layout (:data:`LIGHT_LAYOUTS`). A generated suite is
  copies of one module shape, so a count is nearly linear in the number of
  tests: the not-loaded arm's 2,000-test count, extrapolated from 100- and
  400-test runs, was 0.2% off the measured one. The ratio of a small suite
  itself cannot be judged against the goal: a plugin's fixed cost per run
  (its import, its configuration) weighs more in it (the ratchet: +3.5% at
  400 tests, +1.7% at 2,000).

A count is deterministic for one layout but not across layouts: the
environment moves the stack and heap, and with them hash-table probing and
allocation — the same code and suite measured +1.55% to +1.98% with zero to
eight extra variables. Hence the median of pairs, and the spread reported.
"""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, cast

from lanes.bench.registry import BenchContext, BenchResult, child_environment

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.payloads.bench import BenchFigure

__all__ = [
    "AGENT_VARIABLES",
    "FULL_FROM",
    "LIGHT_SIZES",
    "SUITE_TESTS",
    "VALGRIND",
    "Count",
    "Overhead",
    "Plan",
    "WarmUp",
    "count_in",
    "extrapolate",
    "instructions",
    "layouts",
    "make_suite",
    "measure_overhead",
    "no_valgrind",
    "plan",
    "warm_up",
]

SUITE_TESTS: Final = 2000
LAYOUTS: Final = 5
"""Memory layouts, one pair of arms each: layout ``k`` adds ``k`` unused
environment variables."""
MIN_LAYOUTS: Final = 3
"""The fewest layouts of the full profile at fewer iterations than the default."""
FULL_FROM: Final = 24
"""The fewest ``--iterations`` that measure the :data:`SUITE_TESTS`-test suite itself."""
LIGHT_SIZES: Final = (100, 1000)
"""The light profile's two suite sizes. The ratchet's count is not quite linear
(it keeps a record per test): extrapolated from 100 and 400 tests it came out
0.18 points under the 2,000-test figure (+1.50% against +1.68%), so the
larger size is half the suite. The two runs of an arm cost three quarters of
one 2,000-test run."""
LIGHT_LAYOUTS: Final = 1
"""One layout: the figure is the 2,000-test suite's within the spread of the
layouts (+1.54% to +1.89% over five for the ratchet), which the full profile
measures every night."""
LAYOUT_VARIABLE: Final = "LANES_BENCH_LAYOUT"
TESTS_PER_MODULE: Final = 50
# Everything that would make a run an agent's (the governor's plugin would then
# govern it): left out of every run of every arm, so that the shared base
# run has one environment whichever benchmark asked for it.
AGENT_VARIABLES: Final = (
    "CLAUDECODE",
    "CODEX_THREAD_ID",
    "CODEX_CI",
    "CODEX_SANDBOX",
    "CODEX_SANDBOX_NETWORK_DISABLED",
    "LANES_AGENT",
    "PYTEST_CURRENT_TEST",
    "MUTANT_UNDER_TEST",
)
BASE_ARGS: Final = ("-q", "-p", "no:cacheprovider", "tests")
VALGRIND: Final = (
    "valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
)  # fmt: skip
"""The counting command's prefix: instructions only (see the module docstring)."""
# cachegrind's summary line on stderr, e.g. "==123== I   refs:      6,328,401,915".
_INSTRUCTIONS: Final = re.compile(r"I\s+refs:\s+([\d,]+)")

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


def _env() -> dict[str, str]:
    # Any CODEX_SANDBOX* variable names Codex to the governor's plugin
    # (runner/plugin.py's agent_of), not only the ones listed. The warm-up
    # fills the byte-code and assertion-rewrite caches (child_environment
    # says why it can): compiling the plugin's modules again in every measured
    # run would charge it some 2% of the suite that no installed lanekit pays.
    env = child_environment(drop=AGENT_VARIABLES, drop_prefixes=("CODEX_SANDBOX",))
    return env | {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONHASHSEED": "0"}


def warm_up(python: str, root: Path, args: list[str]) -> None:
    """One native run: fills the byte-code and assertion-rewrite caches, as any earlier run has.

    pytest rewrites a plugin distribution's modules on first import and caches
    the result; without a warm-up the first measured run would pay that once
    and call it the plugin's per-run cost.
    """
    subprocess.run(
        [python, "-m", "pytest", *args], cwd=root, env=_env(), capture_output=True, check=False
    )


def instructions(
    python: str,
    root: Path,
    args: list[str],
    layout: int = 0,
) -> tuple[int, int]:
    """(instructions executed, pytest exit code) of one fresh ``python -m pytest`` under valgrind.

    ``layout``: how many otherwise unused environment variables to add, which
    moves the process's memory layout.
    """
    env = {**_env(), **{f"{LAYOUT_VARIABLE}_{i}": "x" * (37 * i) for i in range(layout)}}
    command = [*VALGRIND, python, "-m", "pytest", *args]
    proc = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    count = count_in(proc.stderr)
    if count is None:
        msg = (
            f"cachegrind printed no instruction count (exit {proc.returncode}): "
            f"{proc.stderr[-400:]}"
        )
        raise RuntimeError(msg)
    return count, proc.returncode


def count_in(stderr: str) -> int | None:
    """The instructions executed that cachegrind's summary on ``stderr`` states, or None."""
    found = _INSTRUCTIONS.findall(stderr)
    return int(found[-1].replace(",", "")) if found else None


def layouts(iterations: int) -> int:
    """The full profile's memory layouts: :data:`LAYOUTS` at the default 40
    iterations, one fewer per 8 fewer, never under :data:`MIN_LAYOUTS`."""
    return max(MIN_LAYOUTS, min(LAYOUTS, iterations // 8))


@dataclass(frozen=True)
class Plan:
    """What one profile runs: the suite sizes per layout and arm, and the layouts."""

    sizes: tuple[int, ...]
    layouts: int

    @property
    def extrapolated(self) -> bool:
        return self.sizes != (SUITE_TESTS,)

    def describe(self) -> str:
        where = f"over {self.layouts} memory layout{'s' if self.layouts > 1 else ''}"
        if not self.extrapolated:
            return where
        small, large = self.sizes
        return f"extrapolated to {SUITE_TESTS:,} tests from {small}- and {large}-test runs, {where}"


def plan(iterations: int) -> Plan:
    """The profile for the effort asked (see the module docstring)."""
    if iterations >= FULL_FROM:
        return Plan(sizes=(SUITE_TESTS,), layouts=layouts(iterations))
    return Plan(sizes=LIGHT_SIZES, layouts=LIGHT_LAYOUTS)


def extrapolate(counts: dict[int, int], tests: int = SUITE_TESTS) -> int:
    """The count at ``tests`` on the line through two sizes' counts (or the one size's count)."""
    if tests in counts:
        return counts[tests]
    (small, low), (large, high) = sorted(counts.items())
    return round(high + (high - low) * (tests - large) / (large - small))


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


@dataclass(frozen=True)
class Overhead:
    """One plugin's measured overhead: the median of the layouts' ratios and their spread."""

    plan: Plan
    off: int  # layout 0's not-loaded count at SUITE_TESTS (extrapolated in the light profile)
    on: int
    overheads: list[float]  # sorted, one per layout
    exit_codes: list[int]

    @property
    def median(self) -> float:
        return statistics.median(self.overheads)

    def figures(self, digits: int) -> dict[str, BenchFigure]:
        figures: dict[str, BenchFigure] = {
            "tests": SUITE_TESTS,
            "layouts": self.plan.layouts,
            "instructions_off": self.off,
            "instructions_on": self.on,
            "overhead": round(self.median, digits),
            "overhead_min": round(self.overheads[0], digits),
            "overhead_max": round(self.overheads[-1], digits),
        }
        if self.plan.extrapolated:
            figures["measured_sizes"] = " and ".join(map(str, self.plan.sizes))
        return figures


def _root(ctx: BenchContext, tests: int) -> Path:
    root = ctx.scratch / f"suite-{tests}"
    if not root.exists():
        make_suite(root, tests)
    return root


Count = Callable[[str, "Path", list[str], int], tuple[int, int]]
"""(python, suite root, pytest arguments, layout) -> (instructions, exit code): :func:`instructions`."""
WarmUp = Callable[[str, "Path", list[str]], None]


def measure_overhead(
    ctx: BenchContext,
    plugin_args: tuple[str, ...],
    *,
    count: Count = instructions,
    warm: WarmUp = warm_up,
) -> Overhead:
    """The overhead of pytest with ``plugin_args`` over pytest with no plugin, by :func:`plan`.

    The not-loaded runs are memoised in ``ctx`` for the lane run: the next
    benchmark that compares against them on the same interpreter reuses them.
    """
    chosen = plan(ctx.iterations)
    enabled = (*BASE_ARGS, *plugin_args)
    for tests in chosen.sizes:
        root = _root(ctx, tests)
        for args in (BASE_ARGS, enabled):
            if ("warm", ctx.python, args, tests) not in ctx.memo:
                warm(ctx.python, root, list(args))
                ctx.memo["warm", ctx.python, args, tests] = True
    runs = [
        (args, tests, layout)
        for layout in range(chosen.layouts)
        for tests in chosen.sizes
        for args in (BASE_ARGS, enabled)
    ]

    def counted_once(run: tuple[tuple[str, ...], int, int]) -> tuple[int, int]:
        args, tests, layout = run
        key = ("instructions", ctx.python, *run)
        if key not in ctx.memo:
            ctx.memo[key] = count(ctx.python, _root(ctx, tests), list(args), layout)
        return cast("tuple[int, int]", ctx.memo[key])  # what the line above put there

    # valgrind is single-threaded and load does not change a count: two at a
    # time halve the wait.
    with ThreadPoolExecutor(max_workers=2) as pool:
        counted = dict(zip(runs, pool.map(counted_once, runs), strict=True))
    overheads = []
    first: tuple[int, int] = (0, 0)
    for layout in range(chosen.layouts):
        off, on = (
            extrapolate({tests: counted[args, tests, layout][0] for tests in chosen.sizes})
            for args in (BASE_ARGS, enabled)
        )
        overheads.append(on / off - 1)
        if layout == 0:
            first = (off, on)
    return Overhead(
        plan=chosen,
        off=first[0],
        on=first[1],
        overheads=sorted(overheads),
        exit_codes=sorted({code for _, code in counted.values()}),
    )
