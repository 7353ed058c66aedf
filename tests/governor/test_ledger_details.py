"""What the verify ledger says about damage, what it writes, and what its debug log records.

Written to kill the mutants the mutation lane found surviving in the ledger
(docs/how-to/mutation.md): error messages and hints, the zero-duration
bound, empty agent fields, the written layout, and the debug log's records
of a dropped entry, a corrupt file and an unreadable one.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.ledger import (
    LedgerEntry,
    LedgerError,
    TreeState,
    freshness,
    parse_ledger,
    read,
    record,
)

if TYPE_CHECKING:
    from pathlib import Path

GOOD = {"status": "PASS", "ts": 100.0, "git_head": "a" * 40, "dirty_digest": None}
HINT = "re-run the suite (or `lanes governor record SUITE pass|fail`) to overwrite it"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([1], "expected a JSON object, got list"),
        ({**GOOD, "status": "ok"}, "status must be 'PASS' or 'FAIL', got 'ok'"),
        ({**GOOD, "ts": "later"}, "ts must be a finite number of seconds, got 'later'"),
        ({**GOOD, "agent": 3}, "agent must be a string, got 3"),
        ({**GOOD, "duration_ms": -1}, "duration_ms must be a non-negative integer or null, got -1"),
    ],
)
def test_a_damaged_entry_names_its_suite_field_and_value(raw: object, message: str) -> None:
    with pytest.raises(LedgerError) as excinfo:
        parse_ledger(json.dumps({"unit": raw}))
    assert str(excinfo.value) == f"verify ledger entry 'unit': {message}"
    assert excinfo.value.hint == HINT


def test_a_file_that_is_no_ledger_says_so() -> None:
    with pytest.raises(LedgerError) as excinfo:
        parse_ledger("[]")
    assert str(excinfo.value) == "verify ledger must hold a JSON object, got list"


def test_zero_duration_and_empty_agent_fields_are_kept_as_they_are() -> None:
    entries = parse_ledger(json.dumps({"unit": {**GOOD, "duration_ms": 0}, "e2e": GOOD}))
    assert sorted(entries) == ["e2e", "unit"]
    assert entries["unit"].duration_ms == 0
    assert (entries["e2e"].agent, entries["e2e"].session_tail) == ("", "")


def test_the_ledger_is_written_sorted_and_indented(tmp_path: Path) -> None:
    env = OSEnvironment()
    path = str(tmp_path / "ledger.json")
    entry = LedgerEntry.from_dict("unit", GOOD)
    record(env, path, path + ".guard", "unit", entry)
    record(env, path, path + ".guard", "e2e", entry)
    text = (tmp_path / "ledger.json").read_text(encoding="utf-8")
    expected = json.dumps(
        {"e2e": entry.to_dict(), "unit": entry.to_dict()}, indent=2, sort_keys=True
    )
    assert text == expected + "\n"


@pytest.fixture
def debug_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LANES_DEBUG", "1")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "lanekit" / "debug.jsonl"


def _events(log: Path) -> list[dict[str, object]]:
    lines = log.read_text(encoding="utf-8").splitlines()
    return [{k: v for k, v in json.loads(line).items() if k not in ("ts", "pid")} for line in lines]


def test_a_dropped_entry_is_logged_with_the_file_and_the_reason(
    tmp_path: Path, debug_log: Path
) -> None:
    path = tmp_path / "ledger.json"
    path.write_text(json.dumps({"unit": GOOD, "e2e": {**GOOD, "status": "?"}}), encoding="utf-8")
    assert sorted(read(OSEnvironment(), str(path))) == ["unit"]
    assert _events(debug_log) == [
        {
            "event": "ledger-entry-dropped",
            "path": str(path),
            "error": "verify ledger entry 'e2e': status must be 'PASS' or 'FAIL', got '?'",
        }
    ]


def test_a_corrupt_or_unreadable_ledger_is_logged_and_read_as_empty(
    tmp_path: Path, debug_log: Path
) -> None:
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text("[1, 2]", encoding="utf-8")
    unreadable = tmp_path / "dir.json"
    unreadable.mkdir()  # reading a directory raises an OSError
    assert read(OSEnvironment(), str(corrupt)) == {}
    assert read(OSEnvironment(), str(unreadable)) == {}
    events = _events(debug_log)
    assert events[0] == {
        "event": "ledger-corrupt",
        "path": str(corrupt),
        "error": "verify ledger must hold a JSON object, got list",
    }
    assert events[1]["event"] == "ledger-unreadable"
    assert events[1]["path"] == str(unreadable)
    assert events[1]["error"] == f"{unreadable} is not a regular file"


def test_an_entry_exactly_max_age_old_is_still_fresh() -> None:
    entry = LedgerEntry.from_dict("unit", {**GOOD, "dirty_digest": "clean"})
    tree = TreeState("a" * 40, "clean")
    assert freshness(entry, tree, now=100.0 + 60, max_age=60) == (True, "fresh")
    assert freshness(entry, tree, now=100.0 + 60.001, max_age=60) == (False, "too old")


def test_a_tree_state_is_a_value() -> None:
    tree = TreeState("a" * 40, "d1")
    assert (tree.git_head, tree.dirty_digest) == ("a" * 40, "d1")
    assert tree == TreeState("a" * 40, "d1")
    assert tree != TreeState("a" * 40, "d2")
    assert tree.__eq__("a") is NotImplemented
    assert len({tree, TreeState("a" * 40, "d1"), TreeState("b" * 40, "d1")}) == 2
    assert tree.to_dict() == {"git_head": "a" * 40, "dirty_digest": "d1"}
