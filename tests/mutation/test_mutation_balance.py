"""Shards balanced by estimated cost: reproducible from the plan, balanced, and small modules whole."""

from __future__ import annotations

import random

import pytest

from lanes.mutation.balance import FORK_COST_MS, estimate_costs, partition, planned_shards

COSTS = [
    (f"pkg/m.py::f{i}::{i:012x}", cost) for i, cost in enumerate([900, 50, 50, 400, 0, 350, 60])
]


def test_each_key_lands_in_exactly_one_shard_whatever_the_input_order() -> None:
    shards = partition(COSTS, 3)
    assert sorted(key for shard in shards for key in shard) == sorted(key for key, _ in COSTS)
    shuffled = COSTS[:]
    random.Random(7).shuffle(shuffled)  # noqa: S311  # a fixed shuffle, not a secret
    # Membership is a function of the (key, cost) pairs alone: every machine agrees.
    assert partition(shuffled, 3) == shards


def test_the_most_expensive_mutants_are_spread_and_the_loads_stay_within_one_mutant() -> None:
    costs = dict(COSTS)
    shards = partition(COSTS, 2)
    loads = [sum(costs[key] for key in shard) for shard in shards]
    assert sorted(loads) == [900, 910]
    # Not a hash split: the two dearest mutants never share a shard.
    assert not any(
        {"pkg/m.py::f0::000000000000", "pkg/m.py::f3::000000000003"} <= set(s) for s in shards
    )
    many = [(f"k{i:04d}", (i * 37) % 101) for i in range(500)]
    loads = [sum(dict(many)[k] for k in shard) for shard in partition(many, 4)]
    assert max(loads) - min(loads) <= 100  # the longest-processing-time rule's bound


def test_more_shards_than_mutants_leaves_some_empty() -> None:
    assert partition([("a", 5)], 3) == [["a"], [], []]


@pytest.mark.parametrize(
    ("generated", "asked", "threshold", "expected", "note"),
    [
        (500, 2, 100, 2, ""),
        (100, 2, 100, 2, ""),
        (
            99,
            2,
            100,
            1,
            "not sharded: 99 mutants, below shard_threshold 100 (the registry asks for 2 shards)",
        ),
        (48, 1, 100, 1, ""),
        (3, 4, 1, 3, "3 shards: fewer mutants than the 4 shards the registry asks for"),
        (
            0,
            4,
            1,
            1,
            "not sharded: 0 mutants, below shard_threshold 1 (the registry asks for 4 shards)",
        ),
    ],
)
def test_a_module_below_the_threshold_is_one_shard_and_says_why(
    generated: int, asked: int, threshold: int, expected: int, note: str
) -> None:
    assert planned_shards(generated, asked, threshold) == (expected, note)


def test_cost_is_mutmuts_estimate_plus_the_fork_and_nothing_without_tests() -> None:
    stats = {
        "tests_by_mangled_function_name": {"pkg.m.x_f": ["t::a", "t::b"], "pkg.m.x_g": []},
        "duration_by_test": {"t::a": 0.25, "t::b": 0.5},
    }
    names = ["pkg.m.x_f__mutmut_1", "pkg.m.x_g__mutmut_1", "pkg.m.x_h__mutmut_2"]
    assert estimate_costs(stats, names) == {
        "pkg.m.x_f__mutmut_1": FORK_COST_MS + 750,
        "pkg.m.x_g__mutmut_1": 0,
        "pkg.m.x_h__mutmut_2": 0,
    }
