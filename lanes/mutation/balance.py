"""How many shards a planned module gets, and which mutants each holds: by estimated cost.

A mutant's cost is mutmut's own estimate (``estimated_worst_case_time``): the
recorded durations of the tests mapped to its function, plus the fixed price
of the forked test run mutmut starts for it; a mutant no test covers costs
nothing (mutmut marks it "no tests" without running anything). The shards are
filled greedily, most expensive mutant first, each into the shard with the
least load so far (the longest-processing-time rule: within 4/3 of the best
split). Ties break on the key and on the shard's index, so the membership is a
pure function of the plan's (key, cost) pairs: every machine that reads the
same plan computes the same shards.

A module with fewer mutants than ``shard_threshold`` is one shard, whatever
the registry says: its shards would each pay the copy, mutmut's start-up, the
test collection and the clean run for a handful of mutants (measured on a
48-mutant module: two hash shards cost 2.16x the CPU of one run).
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

__all__ = ["FORK_COST_MS", "estimate_costs", "partition", "planned_shards"]

# What one mutant costs beyond its tests' own durations: mutmut forks a worker
# and pytest runs its session hooks for the mapped tests. A round figure: the
# estimate only weighs mutants against each other. On python-dateutil's
# relativedelta (939 mutants) the true price was nearer 100 ms of CPU, and the
# two shards this figure made still came within 6% of each other's CPU
# (docs/explanation/measurements.md).
FORK_COST_MS: Final = 50
_MARK: Final = "__mutmut_"


def estimate_costs(stats: Mapping[str, Any], names: Iterable[str]) -> dict[str, int]:
    """mutmut's name -> estimated milliseconds, from ``mutants/mutmut-stats.json``."""
    tests_by_function = stats.get("tests_by_mangled_function_name", {})
    durations = stats.get("duration_by_test", {})
    costs: dict[str, int] = {}
    for name in names:
        tests = tests_by_function.get(name.rpartition(_MARK)[0], ())
        if not tests:
            costs[name] = 0
            continue
        seconds = sum(float(durations.get(test, 0.0)) for test in tests)
        costs[name] = FORK_COST_MS + round(seconds * 1000)
    return costs


def planned_shards(generated: int, asked: int, threshold: int) -> tuple[int, str]:
    """(shards the module runs in, why it differs from ``asked``; empty when it does not)."""
    if asked <= 1:
        return 1, ""
    if generated < threshold:
        return 1, (
            f"not sharded: {generated} mutants, below shard_threshold {threshold} "
            f"(the registry asks for {asked} shards)"
        )
    if generated < asked:
        return generated, (
            f"{generated} shards: fewer mutants than the {asked} shards the registry asks for"
        )
    return asked, ""


def partition(costs: Sequence[tuple[str, int]], count: int) -> list[list[str]]:
    """The keys of each of ``count`` shards (index 0 is shard 1), balanced by cost."""
    shards: list[list[str]] = [[] for _ in range(count)]
    loads = [(0, index) for index in range(count)]  # already a heap
    for key, cost in sorted(costs, key=lambda item: (-item[1], item[0])):
        load, index = heapq.heappop(loads)
        shards[index].append(key)
        heapq.heappush(loads, (load + cost, index))
    return [sorted(keys) for keys in shards]
