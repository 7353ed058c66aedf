"""The verify ledger v2: entries, tolerant reads, guarded writes, the freshness rule."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lanes.errors import LanesError
from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.ledger import (
    CLEAN,
    LedgerEntry,
    LedgerError,
    TreeState,
    freshness,
    parse_ledger,
    read,
    record,
)

HEAD = "a" * 40
TREE = TreeState(HEAD, CLEAN)
NOW = 1_800_000_000.0


def entry(**changes: object) -> LedgerEntry:
    fields: dict[str, object] = {
        "status": "PASS",
        "ts": NOW - 60,
        "git_head": HEAD,
        "dirty_digest": CLEAN,
        "agent": "claude",
        "session_tail": "0000-a1b2",
        "duration_ms": 1234,
    }
    fields.update(changes)
    return LedgerEntry(**fields)  # type: ignore[arg-type]  # test data, shapes vary on purpose


@pytest.fixture
def ledger_path(tmp_path: Path) -> str:
    return str(tmp_path / "verify-ledger.json")


def test_record_then_read_round_trips(ledger_path: str) -> None:
    env = OSEnvironment()
    record(env, ledger_path, ledger_path + ".lock", "unit", entry())
    record(env, ledger_path, ledger_path + ".lock", "integ", entry(status="FAIL"))
    assert read(env, ledger_path) == {"unit": entry(), "integ": entry(status="FAIL")}
    on_disk = json.loads(Path(ledger_path).read_text(encoding="utf-8"))
    assert set(on_disk["unit"]) == {
        "status", "ts", "git_head", "dirty_digest", "agent", "session_tail", "duration_ms",
        "source",
    }  # fmt: skip


def test_a_newer_result_replaces_the_older(ledger_path: str) -> None:
    env = OSEnvironment()
    record(env, ledger_path, ledger_path + ".lock", "unit", entry())
    record(env, ledger_path, ledger_path + ".lock", "unit", entry(status="FAIL", ts=NOW))
    assert read(env, ledger_path)["unit"].status == "FAIL"


def test_missing_file_reads_as_empty(ledger_path: str) -> None:
    assert read(OSEnvironment(), ledger_path) == {}


@pytest.mark.parametrize("text", ["", "{not json", "[1, 2]", '"PASS"', "null"])
def test_a_corrupt_ledger_reads_as_empty_and_is_logged(
    ledger_path: str, text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANES_DEBUG", "1")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    Path(ledger_path).write_text(text, encoding="utf-8")
    assert read(OSEnvironment(), ledger_path) == {}
    log = (tmp_path / "xdg" / "lanekit" / "debug.jsonl").read_text(encoding="utf-8")
    assert "ledger-corrupt" in log


def test_a_corrupt_ledger_is_replaced_by_the_next_record(ledger_path: str) -> None:
    Path(ledger_path).write_text("{oops", encoding="utf-8")
    env = OSEnvironment()
    record(env, ledger_path, ledger_path + ".lock", "unit", entry())
    assert read(env, ledger_path) == {"unit": entry()}


def test_one_damaged_entry_costs_only_itself(ledger_path: str) -> None:
    good = entry().to_dict()
    Path(ledger_path).write_text(
        json.dumps({"unit": good, "integ": {"status": "MAYBE", "ts": 1}}), encoding="utf-8"
    )
    assert read(OSEnvironment(), ledger_path) == {"unit": entry()}


@pytest.mark.parametrize(
    "raw",
    [
        [],
        {"ts": 1},
        {"status": "pass", "ts": 1},
        {"status": "PASS", "ts": True},
        {"status": "PASS", "ts": "now"},
        {"status": "PASS", "ts": 1, "git_head": 7},
        {"status": "PASS", "ts": 1, "duration_ms": -1},
        {"status": "PASS", "ts": 1, "duration_ms": 1.5},
    ],
)
def test_strict_parse_rejects_bad_entries_with_a_hint(raw: object) -> None:
    with pytest.raises(LedgerError) as info:
        parse_ledger(json.dumps({"unit": raw}))
    assert isinstance(info.value, LanesError)
    assert "'unit'" in info.value.message
    assert info.value.hint.strip()


@pytest.mark.parametrize("text", ["", "[", "[]", "1"])
def test_strict_parse_rejects_a_bad_document(text: str) -> None:
    with pytest.raises(LedgerError):
        parse_ledger(text)


# ----------------------------------------------------------------- freshness


def test_a_pass_on_this_tree_within_max_age_is_fresh() -> None:
    assert freshness(entry(), TREE, NOW, 3600) == (True, "fresh")


@pytest.mark.parametrize(
    ("changes", "tree", "now", "reason"),
    [
        ({"status": "FAIL"}, TREE, NOW, "FAIL"),
        ({}, TreeState("b" * 40, CLEAN), NOW, "HEAD moved"),
        ({}, TreeState(HEAD, "d" * 64), NOW, "tree changed"),
        ({}, TREE, NOW + 3600, "too old"),
        ({"git_head": None}, TREE, NOW, "no tree state (v1 entry)"),
        ({"dirty_digest": None}, TREE, NOW, "no tree state (v1 entry)"),
        ({}, None, NOW, "not in a git tree"),
    ],
)
def test_stale_reasons(
    changes: dict[str, object], tree: TreeState | None, now: float, reason: str
) -> None:
    assert freshness(entry(**changes), tree, now, 3600) == (False, reason)


def test_no_entry_is_stale() -> None:
    assert freshness(None, TREE, NOW, 3600) == (False, "no entry")


def test_v1_entries_read_and_are_always_stale(ledger_path: str) -> None:
    # The v1 ledger was keyed by time only: status + ts.
    Path(ledger_path).write_text(
        json.dumps({"unit": {"status": "PASS", "ts": NOW - 1, "agent": "claude"}}),
        encoding="utf-8",
    )
    v1 = read(OSEnvironment(), ledger_path)["unit"]
    assert freshness(v1, TREE, NOW, 3600) == (False, "no tree state (v1 entry)")


# ----------------------------------------------------------------- concurrent writers

_WRITER = """
import sys
from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.ledger import LedgerEntry, record
path, prefix, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = OSEnvironment()
for i in range(count):
    record(env, path, path + ".lock", f"{prefix}{i}",
           LedgerEntry(status="PASS", ts=1.0, git_head="a" * 40, dirty_digest="clean"))
"""


@pytest.mark.integration
def test_concurrent_writers_lose_no_entry(ledger_path: str) -> None:
    count = 40
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, ledger_path, prefix, str(count)])
        for prefix in ("a", "b", "c")
    ]
    assert [proc.wait(timeout=60) for proc in procs] == [0, 0, 0]
    names = set(read(OSEnvironment(), ledger_path))
    assert names == {f"{p}{i}" for p in "abc" for i in range(count)}
