"""The governor's pytest plugin outside an agent: ``governor-plugin-overhead``, a gating goal.

Installing lanekit loads the plugin (:mod:`lanes.governor.runner.plugin`) in
every pytest run of every project in that environment, a human's included,
where it must decide "inert" and cost next to nothing. Measured as
``slow-plugin-overhead`` is (:mod:`lanes.bench.slow`: the same generated
2,000-test suite, instructions executed under callgrind, a fresh interpreter
per arm, the median of five memory layouts, three in the main job's profile):

- *not loaded*: ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``;
- *loaded, inert*: the same plus ``-p lanes.governor``, with no agent
  variable in the environment (the bench's own ``CLAUDECODE`` and friends are
  left out of both arms).

Goal: overhead ≤ 1% (median), **gating**. Without valgrind: ``miss``.
Reproduce: ``lanes bench --only governor-plugin-overhead``.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Final

from lanes.bench.registry import BenchContext, BenchResult, benchmark
from lanes.bench.slow import SUITE_TESTS, instructions, layouts, make_suite, no_valgrind, warm_up

__all__ = ["governor_plugin_overhead"]

OVERHEAD_GOAL: Final = 0.01
# Everything that would make the run an agent's (the plugin would then govern it).
_AGENT_VARIABLES: Final = (
    "CLAUDECODE",
    "CODEX_THREAD_ID",
    "CODEX_CI",
    "CODEX_SANDBOX",
    "CODEX_SANDBOX_NETWORK_DISABLED",
    "LANES_AGENT",
    "PYTEST_CURRENT_TEST",
    "MUTANT_UNDER_TEST",
)


@benchmark(
    "governor-plugin-overhead",
    f"pytest on a generated {SUITE_TESTS}-test suite outside an agent: the governor's "
    "plugin loaded (inert) vs not loaded, instructions executed (callgrind)",
)
def governor_plugin_overhead(ctx: BenchContext) -> BenchResult:
    goal = f"instruction overhead <= {OVERHEAD_GOAL:.0%}"
    missing = no_valgrind(goal)
    if missing is not None:
        return missing
    root = Path(tempfile.mkdtemp(prefix="lanes-bench-governor-"))
    drop = _AGENT_VARIABLES
    try:
        make_suite(root, SUITE_TESTS)
        base = ["-q", "-p", "no:cacheprovider", "tests"]
        loaded = [*base, "-p", "lanes.governor"]
        for args in (base, loaded):
            warm_up(ctx.python, root, args, drop)
        count = layouts(ctx.iterations)
        runs = [(args, layout) for layout in range(count) for args in (base, loaded)]
        with ThreadPoolExecutor(max_workers=2) as pool:
            counts = list(
                pool.map(
                    lambda run: instructions(ctx.python, root, run[0], run[1], drop=drop), runs
                )
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    pairs = [(counts[i][0], counts[i + 1][0]) for i in range(0, len(counts), 2)]
    overheads = sorted(on / off - 1 for off, on in pairs)
    overhead = statistics.median(overheads)
    off, on = pairs[0]
    figures: dict[str, float | int | str | bool | None] = {
        "tests": SUITE_TESTS,
        "layouts": count,
        "instructions_off": off,
        "instructions_on": on,
        "overhead": round(overhead, 5),
        "overhead_min": round(overheads[0], 5),
        "overhead_max": round(overheads[-1], 5),
    }
    codes = sorted({code for _, code in counts})
    if codes != [0]:
        note = f"the generated suite did not pass in every run (exit codes {codes})"
        return BenchResult(figures=figures, goal=goal, verdict="fail", note=note)
    spread = f"{overheads[0]:+.3%} to {overheads[-1]:+.3%} over {count} memory layouts"
    if overhead > OVERHEAD_GOAL:
        note = (
            f"the inert governor plugin costs {overhead:.2%} more instructions than pytest "
            f"alone (median; {spread})"
        )
        return BenchResult(figures=figures, goal=goal, verdict="fail", note=note)
    return BenchResult(
        figures=figures, goal=goal, verdict="pass", note=f"{overhead:+.3%} ({spread})"
    )
