"""merge's refusals, word for word: each names the file, the module and the value it refused.

A merge that fails is read by someone looking at a red CI job: the problem
must say which artifact, which module and what was wrong with it, and one
refusal must never hide the next one.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import pytest

from lanes.errors import UsageError
from lanes.mutation.merge import collect_envelope_paths, merge_shards, outside_registry
from tests.mutation.mutation_fixtures import (
    FIRST,
    REGISTRY,
    SECOND,
    mutant,
    shard_data,
    write_merged_envelope,
    write_shard_envelope,
)

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.payloads.mutation import MutationModuleShard

COUNT_PROBLEM = (
    "expected {expected} shard(s) (--expect-shards), found {found}: a shard job did not "
    "upload its envelope, or the matrix changed"
)


@pytest.fixture(autouse=True)
def _one_group(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_RUN_ID", raising=False)
    monkeypatch.setenv("LANES_GROUP_ID", "sweep-1")


def _edit(path: Path, **fields: Any) -> Path:
    """Rewrite top-level fields of a written envelope, as a hand-edited artifact would."""
    document = json.loads(path.read_text(encoding="utf-8"))
    document.update(fields)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _shard(tmp_path: Path, name: str, *shards: MutationModuleShard) -> Path:
    return write_shard_envelope(tmp_path / name, list(shards))


def test_a_file_that_is_not_json_is_named_as_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "s1.json"
    path.write_text("not json at all", encoding="utf-8")
    merged = merge_shards([path], expect_shards=1, registry=REGISTRY)
    assert merged.modules == {}
    first, *rest = merged.problems
    assert first.startswith(f"{path}: not a readable lane envelope (envelope {str(path)!r}")
    # Nothing was loaded, so the count is the next thing said, not "no envelopes".
    assert rest == [COUNT_PROBLEM.format(expected=1, found=0)]


def test_an_envelope_that_breaks_the_schema_names_its_first_violation(tmp_path: Path) -> None:
    path = _shard(tmp_path, "s1.json", shard_data("lock", "1/1", FIRST, generated=2))
    document = json.loads(path.read_text(encoding="utf-8"))
    del document["run_id"]
    path.write_text(json.dumps(document), encoding="utf-8")
    merged = merge_shards([path], expect_shards=1, registry=REGISTRY)
    assert merged.problems == [
        f"{path}: not a valid lane envelope: $: 'run_id' is a required property",
        COUNT_PROBLEM.format(expected=1, found=0),
    ]


def test_another_kind_of_mutation_envelope_is_named_by_its_kind(tmp_path: Path) -> None:
    # The merged envelope of an earlier merge, passed back in by mistake.
    path = write_merged_envelope(tmp_path / "merged.json", {})
    merged = merge_shards([path], expect_shards=1, registry=REGISTRY)
    assert merged.problems[0] == (
        f"{path}: foreign file: lane 'mutation', kind 'merged' (expected a mutation shard)"
    )


def test_a_shard_whose_lane_failed_without_an_error_is_refused_as_crashed(
    tmp_path: Path,
) -> None:
    # stage "complete" with result "fail": the shard finished but did not pass.
    path = _edit(
        _shard(tmp_path, "s1.json", shard_data("lock", "1/1", FIRST, generated=2)),
        result="fail",
    )
    merged = merge_shards([path], expect_shards=1, registry=REGISTRY)
    assert merged.modules == {}
    assert merged.problems == [
        f"{path}: crashed shard (stage 'complete'): ?: no verdict",
        COUNT_PROBLEM.format(expected=1, found=0),
    ]


def test_no_inputs_at_all_say_so() -> None:
    merged = merge_shards([], expect_shards=1, registry=REGISTRY)
    assert merged.problems == [
        "no shard envelopes found in the merge inputs",
        COUNT_PROBLEM.format(expected=1, found=0),
    ]


def test_the_merge_lists_the_shard_files_it_read(tmp_path: Path) -> None:
    first = _shard(tmp_path, "s1.json", shard_data("lock", "1/2", FIRST, generated=4))
    second = _shard(tmp_path, "s2.json", shard_data("lock", "2/2", SECOND, generated=4))
    merged = merge_shards([first, second], expect_shards=2, registry=REGISTRY)
    assert merged.problems == []
    assert merged.shard_files == [str(first), str(second)]
    assert merged.group_id == "sweep-1"


def test_a_malformed_shard_spec_names_the_module_and_the_next_shard_still_counts(
    tmp_path: Path,
) -> None:
    # One envelope can carry several modules' shards: a bad spec in the first
    # must not stop the merge from reading the rest.
    path = _shard(
        tmp_path,
        "s1.json",
        shard_data("lock", "0/2", FIRST, generated=2),
        shard_data("lock", "2/2", SECOND, generated=2),
    )
    merged = merge_shards([path], expect_shards=2, registry=REGISTRY)
    assert merged.problems == [
        (
            f"{path}: module 'lock': shard '0/2' is out of range: I must be between 1 and N, "
            "and N at least 1"
        ),
        "module 'lock': missing shard(s) 1 of 2",
    ]


def test_shards_that_disagree_on_the_count_are_named_with_both_counts(tmp_path: Path) -> None:
    paths = [
        _shard(tmp_path, "s1.json", shard_data("lock", "1/2", FIRST, generated=4)),
        _shard(tmp_path, "s2.json", shard_data("lock", "2/3", SECOND, generated=4)),
    ]
    merged = merge_shards(paths, expect_shards=2, registry=REGISTRY)
    assert merged.problems == ["module 'lock': shards disagree on the shard count: [2, 3]"]


def test_every_missing_shard_is_named(tmp_path: Path) -> None:
    path = _shard(tmp_path, "s2.json", shard_data("lock", "2/3", SECOND, generated=4))
    merged = merge_shards([path], expect_shards=1, registry=REGISTRY)
    assert merged.problems == ["module 'lock': missing shard(s) 1, 3 of 3"]


def test_a_shard_with_other_provenance_is_named_foreign(tmp_path: Path) -> None:
    paths = [
        _shard(tmp_path, "s1.json", shard_data("lock", "1/2", FIRST, generated=4)),
        _shard(
            tmp_path,
            "s2.json",
            shard_data("lock", "2/2", SECOND, generated=4, mutmut="3.9.0"),
        ),
    ]
    merged = merge_shards(paths, expect_shards=2, registry=REGISTRY)
    assert merged.problems == [
        (
            "module 'lock': foreign shard: the shards ran different mutmut, Python, registry, "
            "configuration or source (their provenance differs)"
        )
    ]


def test_a_mutant_two_shards_both_report_is_named_with_the_second_file(tmp_path: Path) -> None:
    first = _shard(tmp_path, "s1.json", shard_data("lock", "1/2", FIRST, generated=4))
    again = _shard(tmp_path, "s2.json", shard_data("lock", "2/2", FIRST, generated=4))
    merged = merge_shards([first, again], expect_shards=2, registry=REGISTRY)
    assert merged.modules == {}
    assert merged.problems == [f"module 'lock': mutant k1 reported twice (again in {again})"]


def test_plans_that_cannot_be_ordered_still_make_a_refusal_not_a_crash(tmp_path: Path) -> None:
    # A shard is someone else's file: one that claims a cost balance without
    # a plan is refused like any other mismatch, never a TypeError.
    shards = [
        shard_data("lock", "1/2", FIRST, generated=4),
        shard_data("lock", "2/2", SECOND, generated=4),
    ]
    for data, plan in zip(shards, ["plan-a", None], strict=True):
        data["sharding"] = {
            "strategy": "cost",
            "plan": plan,
            "plan_ms": 0,
            "estimated_ms": 0,
            "note": "",
        }
    paths = [_shard(tmp_path, f"s{i}.json", data) for i, data in enumerate(shards, 1)]
    merged = merge_shards(paths, expect_shards=2, registry=REGISTRY)
    assert merged.problems == [
        (
            "module 'lock': foreign shard: the shards chose their mutants differently "
            "(strategy and plan: [('cost', 'plan-a'), ('cost', None)]); every shard of a sweep "
            "runs from one plan"
        )
    ]


def test_a_module_outside_the_registry_lists_what_is_registered(tmp_path: Path) -> None:
    path = _shard(
        tmp_path,
        "s1.json",
        shard_data("tree", "1/1", FIRST, generated=2),
        shard_data("trust", "1/1", SECOND, generated=2),
    )
    merged = merge_shards([path], expect_shards=2, registry=REGISTRY)
    registered = {"lock": ("pkg/calc.py",), "ledger": ("pkg/ledger.py",)}
    # Every foreign module is named, not only the first.
    assert merged.problems == [
        f"module {name!r} is not in [tool.lanes.mutation.modules] (registered: lock): "
        "a foreign shard"
        for name in ("tree", "trust")
    ]
    read = merge_shards([path], expect_shards=2, registry={**REGISTRY, **registered})
    assert "(registered: ledger, lock)" in read.problems[0]
    nothing = merge_shards([path], expect_shards=2, registry={})
    assert "(registered: none)" in nothing.problems[0]


def test_a_mutant_path_outside_its_module_lists_the_modules_paths(tmp_path: Path) -> None:
    stray = [mutant("k1"), mutant("k2")]
    stray[1]["path"] = "pkg/other.py"
    path = _shard(tmp_path, "s1.json", shard_data("lock", "1/1", stray, generated=2))
    merged = merge_shards([path], expect_shards=1, registry=REGISTRY)
    assert merged.problems == [
        (
            "module 'lock': a mutant names path 'pkg/other.py', which is not one of the module's "
            "registry paths (pkg/calc.py); it is not read"
        )
    ]
    # Read back against a registry where the module has two paths: both are listed.
    accepted = merge_shards(
        [path], expect_shards=1, registry={"lock": ("pkg/calc.py", "pkg/other.py")}
    )
    assert accepted.problems == []
    module = accepted.modules["lock"]
    assert outside_registry({"lock": module}, {"lock": ("pkg/calc.py", "pkg/util.py")}) == [
        (
            "module 'lock': a mutant names path 'pkg/other.py', which is not one of the module's "
            "registry paths (pkg/calc.py, pkg/util.py); it is not read"
        )
    ]


def test_merge_inputs_are_files_as_given_and_the_json_files_under_directories(
    tmp_path: Path,
) -> None:
    named = tmp_path / "named.txt"
    named.write_text("{}", encoding="utf-8")
    artifacts = tmp_path / "artifacts"
    (artifacts / "b").mkdir(parents=True)
    (artifacts / "a").mkdir()
    (artifacts / "b" / "s2.json").write_text("{}", encoding="utf-8")
    (artifacts / "a" / "s1.json").write_text("{}", encoding="utf-8")
    (artifacts / "a" / "notes.md").write_text("", encoding="utf-8")
    (artifacts / "dir.json").mkdir()  # a directory named like a shard is not one
    assert collect_envelope_paths([named, artifacts]) == [
        named,
        artifacts / "a" / "s1.json",
        artifacts / "b" / "s2.json",
    ]


@pytest.mark.parametrize("exists", [True, False])
def test_a_merge_input_that_is_no_shard_is_a_usage_error_naming_it(
    tmp_path: Path, exists: bool
) -> None:
    path = tmp_path / "shards.json"
    if exists:
        os.mkfifo(path)  # there, but neither a file nor a directory
    with pytest.raises(UsageError) as caught:
        collect_envelope_paths([path])
    what = "is not a regular file or a directory" if exists else "does not exist"
    assert caught.value.message == f"merge input {str(path)!r} {what}"
    assert caught.value.hint == "pass the directories the shard jobs' artifacts were downloaded to"
