"""Failure artifacts and the corpus file: what a user can break in them is a typed error."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from lanes.errors import StateError, UsageError
from lanes.fuzz.artifacts import (
    CORPUS_FORMAT,
    SavedCase,
    append_to_corpus,
    load_artifact,
    load_corpus,
    save_failure,
)
from lanes.fuzz.engine import Failure
from lanes.fuzz.watchdog import CaseOutcome

if TYPE_CHECKING:
    from pathlib import Path


def _failure(value: object) -> Failure:
    outcome = CaseOutcome("untyped", 0.001, "KeyError", "'x'", "Traceback ...")
    return Failure(target="payload", value=value, outcome=outcome, seed=7, iterations=10)


def test_saved_failure_reads_back_with_its_commands(tmp_path: Path) -> None:
    value = {"raw": b"\xff\x00", "nan": float("inf"), "$bytes": "not a tag"}
    summary = save_failure(_failure(value), tmp_path / "envelopes" / "fuzz", root=tmp_path)
    assert summary["repro"] == f"lanes fuzz --input-file {summary['artifact']}"
    assert summary["promote"] == summary["repro"] + " --append-corpus"
    case = load_artifact(tmp_path / summary["artifact"])
    assert (case.target, case.value, case.kind, case.error) == (
        "payload",
        value,
        "untyped",
        "KeyError: 'x'",
    )


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (None, UsageError),  # no such file
        ("{not json", StateError),
        ("[1, 2]", StateError),
        ('{"format": "something else", "target": "x", "input": 1}', UsageError),
        ('{"format": "lanekit.fuzz-case", "target": "x", "input": {"$bytes": "!!"}}', UsageError),
    ],
)
def test_a_broken_artifact_is_a_typed_error(
    tmp_path: Path, text: str | None, error: type[Exception]
) -> None:
    path = tmp_path / "case.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(error) as caught:
        load_artifact(path)
    assert getattr(caught.value, "hint", "").strip()


def test_corpus_appends_atomically_and_deduplicates(tmp_path: Path) -> None:
    corpus = tmp_path / "baselines" / "fuzz-regressions.json"
    assert load_corpus(corpus) == []
    case = SavedCase(target="lock", value="{", kind="untyped", source=tmp_path / "a.json")
    assert append_to_corpus(corpus, case, note="first")
    assert not append_to_corpus(corpus, case, note="again")
    assert append_to_corpus(
        corpus, SavedCase("lock", "}", "stall", tmp_path / "b.json"), note="second"
    )
    document = json.loads(corpus.read_text(encoding="utf-8"))
    assert document["format"] == CORPUS_FORMAT
    assert [entry["note"] for entry in document["entries"]] == ["first", "second"]
    assert [entry.value for entry in load_corpus(corpus)] == ["{", "}"]
    assert list(corpus.parent.iterdir()) == [corpus]  # no temp or lock files left behind


@pytest.mark.parametrize(
    "document",
    [
        {"format": CORPUS_FORMAT, "version": 2, "entries": []},
        {"format": CORPUS_FORMAT, "version": 1, "entries": [{"target": "lock"}]},
        {"format": CORPUS_FORMAT, "version": 1},
    ],
)
def test_a_damaged_corpus_is_a_state_error(tmp_path: Path, document: dict[str, object]) -> None:
    corpus = tmp_path / "fuzz-regressions.json"
    corpus.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(StateError) as caught:
        load_corpus(corpus)
    assert caught.value.hint.strip()


def test_artifacts_and_the_corpus_are_not_written_through_a_symlinked_directory(
    tmp_path: Path,
) -> None:
    # writes under the project never follow a symlinked directory out.
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "envelopes").symlink_to(outside)
    (project / "baselines").symlink_to(outside)
    with pytest.raises(StateError, match="cannot write") as caught:
        save_failure(_failure("x"), project / "envelopes" / "fuzz", root=project)
    assert caught.value.hint
    case = SavedCase(target="kv", value="", kind="untyped", source=project / "case.json")
    with pytest.raises(StateError, match="outside the project"):
        append_to_corpus(
            project / "baselines" / "fuzz-regressions.json", case, note="n", root=project
        )
    assert list(outside.iterdir()) == []
