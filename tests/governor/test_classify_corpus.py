"""The realistic corpus (``corpus/ci_commands.jsonl``): real CI commands of
real projects, classified in-process and through ``lanes classify --jsonl``."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from lanes.governor.classify.classifier import classify
from tests.support.processes import lanes_command

CORPUS = Path(__file__).parent / "corpus" / "ci_commands.jsonl"
_RUNNERS_FIELD = "runners"


def _entries() -> list[dict[str, object]]:
    with CORPUS.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


ENTRIES = _entries()


def test_corpus_is_well_formed_and_spans_ecosystems() -> None:
    assert len(ENTRIES) >= 60
    for entry in ENTRIES:
        assert set(entry) == {"command", "scope", _RUNNERS_FIELD, "source"}
        assert entry["scope"] in ("none", "filtered", "full")
        assert isinstance(entry["source"], str)
        assert "/" in entry["source"].partition(":")[0]  # owner/repo
    runners = {runner for entry in ENTRIES for runner in entry[_RUNNERS_FIELD]}  # type: ignore[attr-defined]  # a list of str in the file
    assert len(runners) >= 12
    assert {entry["scope"] for entry in ENTRIES} == {"none", "filtered", "full"}


@pytest.mark.parametrize("entry", ENTRIES, ids=[str(e["source"]) for e in ENTRIES])
def test_corpus_entry_in_process(entry: dict[str, object]) -> None:
    result = classify(str(entry["command"]))
    assert result.scope == entry["scope"]
    assert [inv.runner for inv in result.invocations] == entry[_RUNNERS_FIELD]


@pytest.mark.integration
def test_corpus_through_one_lanes_classify_jsonl_process(tmp_path: Path) -> None:
    lines = "".join(json.dumps(entry["command"]) + "\n" for entry in ENTRIES)
    done = subprocess.run(
        [*lanes_command(), "classify", "--jsonl", "--root", str(tmp_path)],
        input=lines,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(results) == len(ENTRIES)
    for entry, result in zip(ENTRIES, results, strict=True):
        assert set(result) == {"scope", "invocations"}
        assert result["scope"] == entry["scope"], entry["source"]
        assert [inv["runner"] for inv in result["invocations"]] == entry[_RUNNERS_FIELD]
        for invocation in result["invocations"]:
            assert {"runner", "scope", "selectors", "segment"} <= set(invocation)
