"""merge's figures: what a merged module says about the sweep, and that it reads back unchanged.

The check and the report read the merged module back from
``envelopes/mutation/merged.json`` (``MergedModule.from_dict``): its cost
(the sum over shards, each phase summed, the slowest shard) and its scores
must survive that trip, and shards of one sweep must come from one commit
and one configuration.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, get_args

import pytest

from lanes.mutation.merge import MergedModule, merge_shards
from lanes.mutation.provenance import Provenance
from lanes.payloads.mutation import MutationStatus
from tests.mutation.mutation_fixtures import (
    FIRST,
    PROVENANCE,
    REGISTRY,
    SECOND,
    mutant,
    shard_data,
    write_shard_envelope,
)
from tests.support.git import commit_all, head, make_repo

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture(autouse=True)
def _one_group(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_RUN_ID", raising=False)
    monkeypatch.setenv("LANES_GROUP_ID", "sweep-1")


def _merged(tmp_path: Path) -> MergedModule:
    first = shard_data("lock", "1/2", FIRST, generated=4)
    first["phases_ms"] = {"copy": 5, "mutate": 100, "read": 1}
    second = shard_data("lock", "2/2", SECOND, generated=4)
    second["phases_ms"] = {"copy": 7, "generate": 40, "mutate": 300, "read": 2}
    paths = [
        write_shard_envelope(tmp_path / "s1.json", [first]),
        write_shard_envelope(tmp_path / "s2.json", [second]),
    ]
    merged = merge_shards(paths, expect_shards=2, registry=REGISTRY)
    assert merged.problems == []
    return merged.modules["lock"]


def test_the_sweeps_cost_is_each_phase_summed_over_the_shards(tmp_path: Path) -> None:
    module = _merged(tmp_path)
    assert module.name == "lock"
    # A phase only one shard had (hash shards generate) is kept as that shard's.
    assert module.phases_ms == {"copy": 12, "mutate": 400, "read": 3, "generate": 40}
    assert module.duration_ms == 106 + 349
    assert module.slowest_shard_ms == 349


def test_the_scores_a_check_shows_name_every_figure(tmp_path: Path) -> None:
    counts = dict.fromkeys(get_args(MutationStatus), 0)
    counts.update({"killed": 1, "survived": 1, "timeout": 1, "skipped": 1})
    assert _merged(tmp_path).scores() == {
        "shards": ["1/2", "2/2"],
        "provenance": Provenance.from_dict(PROVENANCE).to_dict(),
        "counts": counts,
        "total": 4,
        "score": pytest.approx(2 / 3, abs=1e-6),
        "duration_ms": 455,
        "slowest_shard_ms": 349,
        "phases_ms": {"copy": 12, "mutate": 400, "read": 3, "generate": 40},
    }


def test_a_merged_module_reads_back_exactly_as_it_was_written(tmp_path: Path) -> None:
    module = _merged(tmp_path)
    # Through JSON, as the check reads merged.json.
    raw = json.loads(json.dumps(module.to_dict()))
    assert MergedModule.from_dict("lock", raw) == module


def test_a_merged_module_without_its_costs_reads_as_costing_nothing() -> None:
    # A merged file written before the lane recorded durations: scored, no cost.
    raw = {"shards": ["1/1"], "provenance": dict(PROVENANCE), "mutants": [mutant("k1")]}
    module = MergedModule.from_dict("lock", raw)
    assert (module.duration_ms, module.slowest_shard_ms, module.phases_ms) == (0, 0, {})
    assert module.shards == ["1/1"]


def test_the_merge_names_the_commit_its_shards_measured(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    commit = head(repo)
    paths = [
        write_shard_envelope(repo / "s1.json", [shard_data("lock", "1/2", FIRST, generated=4)]),
        write_shard_envelope(repo / "s2.json", [shard_data("lock", "2/2", SECOND, generated=4)]),
    ]
    merged = merge_shards(paths, expect_shards=2, registry=REGISTRY)
    assert merged.problems == []
    assert (merged.commit, merged.group_id) == (commit, "sweep-1")


def test_a_shard_of_another_commit_is_foreign_and_named_with_both_commits(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    old = head(repo)
    first = write_shard_envelope(repo / "s1.json", [shard_data("lock", "1/2", FIRST, generated=4)])
    (repo / "a.txt").write_text("b\n", encoding="utf-8")
    new = commit_all(repo, "two")
    second = write_shard_envelope(
        repo / "s2.json", [shard_data("lock", "2/2", SECOND, generated=4)]
    )
    merged = merge_shards([first, second], expect_shards=2, registry=REGISTRY)
    assert merged.modules == {}
    # Not a group problem: no hint about LANES_GROUP_ID here.
    assert merged.problems == [
        f"{second}: foreign shard: commit {new!r} differs from {first}'s {old!r}"
    ]


def test_a_shard_of_another_configuration_is_foreign(tmp_path: Path) -> None:
    first = write_shard_envelope(
        tmp_path / "s1.json", [shard_data("lock", "1/2", FIRST, generated=4)]
    )
    second = write_shard_envelope(
        tmp_path / "s2.json", [shard_data("lock", "2/2", SECOND, generated=4)]
    )
    document = json.loads(second.read_text(encoding="utf-8"))
    theirs = document["config_hash"]
    document["config_hash"] = "sha256:" + "e" * 64
    second.write_text(json.dumps(document), encoding="utf-8")
    merged = merge_shards([first, second], expect_shards=2, registry=REGISTRY)
    assert merged.problems == [
        (
            f"{second}: foreign shard: config_hash {'sha256:' + 'e' * 64!r} differs from "
            f"{first}'s {theirs!r}"
        )
    ]


def test_a_duplicated_shard_names_both_files_and_the_rest_still_counts(tmp_path: Path) -> None:
    first = write_shard_envelope(
        tmp_path / "s1.json", [shard_data("lock", "1/2", FIRST, generated=4)]
    )
    # A re-run job uploaded shard 1 again, in one envelope with shard 2.
    rerun = write_shard_envelope(
        tmp_path / "rerun.json",
        [
            shard_data("lock", "1/2", FIRST, generated=4),
            shard_data("lock", "2/2", SECOND, generated=4),
        ],
    )
    merged = merge_shards([first, rerun], expect_shards=3, registry=REGISTRY)
    assert merged.modules == {}
    assert merged.problems == [f"module 'lock' shard 1/2 appears twice: {first} and {rerun}"]
