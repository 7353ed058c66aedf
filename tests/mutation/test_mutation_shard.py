"""Shards are a stable hash of the key: the same mutants on every machine, covering all, disjoint."""

from __future__ import annotations

import pytest

from lanes.errors import UsageError
from lanes.mutation.shard import Shard, parse_shard, shard_of

KEYS = [f"lanes/governor/state/lock.py::acquire::{i:012x}" for i in range(200)]


def test_partition_is_pinned_so_a_changed_hash_is_noticed() -> None:
    # Recorded once; if these move, shard I/N means different mutants on
    # machines running different lanekit versions: a merge of mixed shards
    # would double-count or drop mutants.
    assert [shard_of(key, 3) for key in KEYS[:8]] == [1, 3, 2, 2, 3, 2, 3, 1]


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_shards_cover_every_key_exactly_once(count: int) -> None:
    held = [Shard(i, count).select(KEYS) for i in range(1, count + 1)]
    flat = [key for shard in held for key in shard]
    assert sorted(flat) == sorted(KEYS)
    assert all(shard for shard in held)  # 200 keys: no shard is empty


def test_parse_shard_accepts_i_of_n_and_names_bad_values() -> None:
    assert parse_shard(" 2 / 3 ") == Shard(2, 3)
    for text in ("0/2", "3/2", "1/0", "two/3", "1-2"):
        with pytest.raises(UsageError, match="--shard") as excinfo:
            parse_shard(text)
        assert excinfo.value.hint
