"""The governor's pytest plugin outside an agent: ``governor-plugin-overhead``, a gating goal.

Installing lanekit loads the plugin (:mod:`lanes.governor.runner.plugin`) in
every pytest run of every project in that environment, a human's included,
where it must decide "inert" and cost next to nothing. Measured as
``slow-plugin-overhead`` is (:mod:`lanes.bench.valgrind`: the same generated
2,000-test suite, instructions executed under valgrind, a fresh interpreter
per arm, the median of the memory layouts; the not-loaded runs are shared
with that benchmark):

- *not loaded*: ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``;
- *loaded, inert*: the same plus ``-p lanes.governor``, with no agent
  variable in the environment (the bench's own ``CLAUDECODE`` and friends are
  left out of both arms).

Goal: overhead ≤ 1% (median), **gating**. Without valgrind: ``miss``.
Reproduce: ``lanes bench --only governor-plugin-overhead``.
"""

from __future__ import annotations

from typing import Final

from lanes.bench.registry import BenchContext, BenchResult, benchmark
from lanes.bench.valgrind import SUITE_TESTS, measure_overhead, no_valgrind

__all__ = ["governor_plugin_overhead"]

OVERHEAD_GOAL: Final = 0.01


@benchmark(
    "governor-plugin-overhead",
    f"pytest on a generated {SUITE_TESTS}-test suite outside an agent: the governor's "
    "plugin loaded (inert) vs not loaded, instructions executed (valgrind)",
)
def governor_plugin_overhead(ctx: BenchContext) -> BenchResult:
    goal = f"instruction overhead <= {OVERHEAD_GOAL:.0%}"
    missing = no_valgrind(goal)
    if missing is not None:
        return missing
    # Every run leaves the agent variables out (valgrind.AGENT_VARIABLES):
    # with one set, the plugin would govern the run instead of staying inert.
    measured = measure_overhead(ctx, ("-p", "lanes.governor"))
    overhead = measured.median
    figures = measured.figures(5)
    if measured.exit_codes != [0]:
        note = f"the generated suite did not pass in every run (exit codes {measured.exit_codes})"
        return BenchResult(figures=figures, goal=goal, verdict="fail", note=note)
    low, high = measured.overheads[0], measured.overheads[-1]
    spread = f"{low:+.3%} to {high:+.3%} {measured.plan.describe()}"
    if overhead > OVERHEAD_GOAL:
        note = (
            f"the inert governor plugin costs {overhead:.2%} more instructions than pytest "
            f"alone (median; {spread})"
        )
        return BenchResult(figures=figures, goal=goal, verdict="fail", note=note)
    return BenchResult(
        figures=figures, goal=goal, verdict="pass", note=f"{overhead:+.3%} ({spread})"
    )
