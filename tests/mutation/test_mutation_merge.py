"""merge: module scores from complete shard sets, and a refusal (never a partial score) otherwise."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

import pytest

from lanes.errors import UsageError
from lanes.mutation.merge import collect_envelope_paths, merge_shards
from tests.mutation.mutation_fixtures import (
    FIRST,
    REGISTRY,
    SECOND,
    mutant,
    shard_data,
    write_shard_envelope,
)

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.payloads.mutation import MutationModuleShard, MutationMutant


@pytest.fixture(autouse=True)
def _one_group(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_RUN_ID", raising=False)
    monkeypatch.setenv("LANES_GROUP_ID", "sweep-1")


def _two_shards(tmp_path: Path) -> list[Path]:
    return [
        write_shard_envelope(
            tmp_path / "a" / "s1.json", [shard_data("lock", "1/2", FIRST, generated=4)]
        ),
        write_shard_envelope(
            tmp_path / "b" / "s2.json", [shard_data("lock", "2/2", SECOND, generated=4)]
        ),
    ]


def test_complete_shards_merge_into_one_score(tmp_path: Path) -> None:
    _two_shards(tmp_path)
    merged = merge_shards(collect_envelope_paths([tmp_path]), expect_shards=2, registry=REGISTRY)
    assert merged.problems == []
    lock = merged.modules["lock"].to_dict()
    assert lock["shards"] == ["1/2", "2/2"]
    # (killed 1 + timeout 1) / (4 - skipped 1)
    assert lock["score"] == pytest.approx(2 / 3, abs=1e-6)
    assert [m["key"] for m in lock["mutants"]] == ["k1", "k2", "k3", "k4"]


def test_missing_shard_fails_with_no_score(tmp_path: Path) -> None:
    first, _ = _two_shards(tmp_path)
    merged = merge_shards([first], expect_shards=2, registry=REGISTRY)
    assert merged.modules == {}
    assert any("missing shard(s) 2 of 2" in p for p in merged.problems)
    assert any("expected 2 shard(s)" in p for p in merged.problems)


def test_expected_count_catches_a_module_whose_every_shard_is_missing(tmp_path: Path) -> None:
    paths = _two_shards(tmp_path)
    merged = merge_shards(paths, expect_shards=3, registry=REGISTRY)
    assert merged.modules == {}
    expected = (
        "expected 3 shard(s) (--expect-shards), found 2: a shard job did not upload its "
        "envelope, or the matrix changed"
    )
    assert merged.problems == [expected]


def test_duplicated_shard_fails(tmp_path: Path) -> None:
    paths = _two_shards(tmp_path)
    again = write_shard_envelope(
        tmp_path / "c" / "s1-again.json", [shard_data("lock", "1/2", FIRST, generated=4)]
    )
    merged = merge_shards([*paths, again], expect_shards=3, registry=REGISTRY)
    assert merged.modules == {}
    assert any("shard 1/2 appears twice" in p for p in merged.problems)


def test_crashed_shard_fails(tmp_path: Path) -> None:
    first, _ = _two_shards(tmp_path)
    crashed = write_shard_envelope(tmp_path / "c" / "s2.json", [], crash=True)
    merged = merge_shards([first, crashed], expect_shards=2, registry=REGISTRY)
    assert merged.modules == {}
    assert any(
        "crashed shard (stage 'error'): RuntimeError: mutmut died" in p for p in merged.problems
    )


def test_shard_of_another_run_is_foreign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = write_shard_envelope(
        tmp_path / "s1.json", [shard_data("lock", "1/2", FIRST, generated=4)]
    )
    monkeypatch.setenv("LANES_GROUP_ID", "last-week")
    stale = write_shard_envelope(
        tmp_path / "s2.json", [shard_data("lock", "2/2", SECOND, generated=4)]
    )
    merged = merge_shards([first, stale], expect_shards=2, registry=REGISTRY)
    assert merged.modules == {}
    assert any(
        "foreign shard: group_id 'last-week'" in p and "LANES_GROUP_ID" in p
        for p in merged.problems
    )


def test_shard_with_other_provenance_or_count_is_foreign(tmp_path: Path) -> None:
    first = write_shard_envelope(
        tmp_path / "s1.json", [shard_data("lock", "1/2", FIRST, generated=4)]
    )
    other = write_shard_envelope(
        tmp_path / "s2.json",
        [shard_data("lock", "2/2", SECOND, generated=4, source_digest="sha256:" + "d" * 64)],
    )
    merged = merge_shards([first, other], expect_shards=2, registry=REGISTRY)
    assert any("their provenance differs" in p for p in merged.problems)
    short = write_shard_envelope(
        tmp_path / "s3.json", [shard_data("lock", "2/2", SECOND[:1], generated=4)]
    )
    merged = merge_shards([first, short], expect_shards=2, registry=REGISTRY)
    assert merged.problems == ["module 'lock': the shards hold 3 mutants but mutmut generated 4"]


def test_another_lanes_envelope_is_foreign(tmp_path: Path) -> None:
    first, second = _two_shards(tmp_path)
    other = write_shard_envelope(tmp_path / "fuzz.json", [], lane="probe")
    merged = merge_shards([first, second, other], expect_shards=2, registry=REGISTRY)
    assert merged.modules == {}
    assert any("foreign file: lane 'probe'" in p for p in merged.problems)


def test_a_mutant_path_outside_the_registry_is_refused(tmp_path: Path) -> None:
    # a shard's mutant path is data; `check` embedded whatever file it
    # named (/proc/self/environ) into the uploaded Stryker report.
    hostile = [mutant("k1"), mutant("k2")]
    hostile[0]["path"] = "/proc/self/environ"
    hostile[1]["path"] = "pkg/../../etc/hostname"
    path = write_shard_envelope(
        tmp_path / "s1.json", [shard_data("lock", "1/1", hostile, generated=2)]
    )
    merged = merge_shards([path], expect_shards=1, registry=REGISTRY)
    assert merged.modules == {}
    assert any("'/proc/self/environ'" in p and "pkg/calc.py" in p for p in merged.problems)
    assert any("'pkg/../../etc/hostname'" in p for p in merged.problems)


def test_a_module_outside_the_registry_is_refused(tmp_path: Path) -> None:
    path = write_shard_envelope(
        tmp_path / "s1.json", [shard_data("ledger", "1/1", FIRST, generated=2)]
    )
    merged = merge_shards([path], expect_shards=1, registry=REGISTRY)
    assert merged.modules == {}
    assert any(
        "module 'ledger' is not in [tool.lanes.mutation.modules]" in p for p in merged.problems
    )


@pytest.mark.parametrize("spec", ["1/100000000000", "0/2", "3/2"])
def test_a_shard_spec_out_of_bounds_is_a_problem_at_once(tmp_path: Path, spec: str) -> None:
    # 1/100000000000 made the merge enumerate 10^11 shard indexes (9 GB in 60 s).
    path = write_shard_envelope(
        tmp_path / "s1.json", [shard_data("lock", spec, FIRST, generated=2)]
    )
    # This process's CPU time, not the wall clock: a busy machine stretches the
    # wall clock of a millisecond merge, but only enumerating 10^11 indexes
    # burns seconds of CPU here.
    started = time.process_time()
    merged = merge_shards([path], expect_shards=1, registry=REGISTRY)
    assert time.process_time() - started < 5
    assert merged.modules == {}
    assert any(repr(spec) in p for p in merged.problems), merged.problems


def test_a_fifo_merge_input_is_named_for_what_it_is(tmp_path: Path) -> None:
    # a FIFO was reported as "does not exist".
    fifo = tmp_path / "shards.json"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match="is not a regular file or a directory"):
        collect_envelope_paths([fifo])
    with pytest.raises(UsageError, match="does not exist"):
        collect_envelope_paths([tmp_path / "absent"])


def _planned(shard: str, mutants: list[MutationMutant], plan: str | None) -> MutationModuleShard:
    data = shard_data("lock", shard, mutants, generated=4)
    data["sharding"] = {
        "strategy": "cost" if plan else "hash",
        "plan": plan,
        "plan_ms": 7000 if plan else 0,
        "estimated_ms": 300,
        "note": "",
    }
    return data


def test_shards_of_one_plan_count_the_plan_once(tmp_path: Path) -> None:
    paths = [
        write_shard_envelope(tmp_path / "s1.json", [_planned("1/2", FIRST, "plan-a")]),
        write_shard_envelope(tmp_path / "s2.json", [_planned("2/2", SECOND, "plan-a")]),
    ]
    merged = merge_shards(paths, expect_shards=2, registry=REGISTRY)
    assert merged.problems == []
    lock = merged.modules["lock"]
    # Each shard's own phases (106 ms) and the plan's generation and mapping, once.
    assert lock.phases_ms["plan"] == 7000
    assert lock.duration_ms == 2 * 106 + 7000
    assert lock.slowest_shard_ms == 106


@pytest.mark.parametrize("other", ["plan-b", None])
def test_shards_that_chose_their_mutants_differently_do_not_merge(
    tmp_path: Path, other: str | None
) -> None:
    paths = [
        write_shard_envelope(tmp_path / "s1.json", [_planned("1/2", FIRST, "plan-a")]),
        write_shard_envelope(tmp_path / "s2.json", [_planned("2/2", SECOND, other)]),
    ]
    merged = merge_shards(paths, expect_shards=2, registry=REGISTRY)
    assert merged.modules == {}
    assert any("the shards chose their mutants differently" in p for p in merged.problems)
