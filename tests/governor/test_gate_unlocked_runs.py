"""The gate's run lock around the edges: runs it lets through unlocked (no
session id, a guard it cannot take) still note the tree they start on; two
suites in one command share one lock; two fresh passes are both named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from lanes.governor.classify.classifier import classify
from lanes.governor.context import StatePaths
from lanes.governor.payload import parse_payload
from lanes.governor.policy.gate import decide_pre
from lanes.governor.policy.suites import resolve
from lanes.governor.state.lock import parse_lock
from lanes.governor.state.run_notes import run_path
from tests.governor.governor_helpers import SESSION_A, SESSION_B, Project

if TYPE_CHECKING:
    import pytest

UNIT = "pytest tests/unit -q"
INTEG = "pytest tests/integ -m 'not slow'"


def _note(project: Project, command: str, tail: str) -> dict[str, object]:
    path = Path(run_path(project.state, tail, command))
    note: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return note


def test_a_run_without_a_session_id_runs_unlocked_and_notes_its_tree(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANES_DEBUG", "1")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    raw = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": UNIT},
            "cwd": str(project.root),
        }
    )
    classification = classify(UNIT, project.root)
    matches = resolve(classification, project.config, cwd=str(project.root))
    decision = decide_pre(project.context(), classification, parse_payload(raw), matches)
    assert (decision.action, decision.step) == ("allow", "lock-skipped")
    assert not project.lock_path.exists()
    assert _note(project, UNIT, "")["suites"] == ["unit"]
    log = tmp_path / "xdg" / "lanekit" / "debug.jsonl"
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    [skipped] = [r for r in records if r["event"] == "lock-skipped"]
    assert (skipped["reason"], skipped["command"]) == ("payload has no session_id", UNIT)


def test_a_guard_that_cannot_be_taken_over_a_dead_lock_runs_unlocked(project: Project) -> None:
    # A stale lock cannot be broken safely without the guard: the run goes
    # ahead unlocked rather than block everyone until lock_ttl.
    files = StatePaths(project.state)
    Path(files.lock_guard).mkdir()
    Path(files.lock).write_text("{not a lock", encoding="utf-8")
    decision = project.pre(UNIT)
    assert (decision.action, decision.step) == ("allow", "lock-skipped")
    assert Path(files.lock).read_text(encoding="utf-8") == "{not a lock"
    assert _note(project, UNIT, SESSION_A[-12:])["suites"] == ["unit"]


def test_a_locked_run_notes_its_tree_and_suites(project: Project) -> None:
    decision = project.pre(UNIT)
    assert (decision.action, decision.step) == ("allow", "lock")
    note = _note(project, UNIT, SESSION_A[-12:])
    assert note["suites"] == ["unit"]
    assert isinstance(note["tree"], dict)


def test_two_suites_in_one_command_share_one_lock(project: Project) -> None:
    both = f"{UNIT} && {INTEG}"
    assert project.pre(both).step == "lock"
    assert parse_lock(project.lock_path.read_text(encoding="utf-8")).suite == "unit, integ"
    assert _note(project, both, SESSION_A[-12:])["suites"] == ["unit", "integ"]


def test_two_fresh_passes_are_both_named(project: Project) -> None:
    both = f"{UNIT} && {INTEG}"
    project.run(both)
    blocked = project.pre(both)
    assert (blocked.action, blocked.step) == ("block", "dedup")
    first, second = blocked.message.split("\n")
    assert first.startswith("unit green ")
    assert second.startswith("integ green ")


def _debug_events(tmp_path: Path, event: str) -> list[dict[str, object]]:
    log = tmp_path / "xdg" / "lanekit" / "debug.jsonl"
    if not log.exists():
        return []
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return [r for r in records if r["event"] == event]


def test_an_expired_lock_is_broken_and_the_break_is_logged(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANES_DEBUG", "1")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert project.pre(UNIT, session=SESSION_B).step == "lock"
    stale = json.loads(project.lock_path.read_text(encoding="utf-8"))
    stale["started_ts"] = 0.0  # taken long before lock_ttl: expired
    project.lock_path.write_text(json.dumps(stale), encoding="utf-8")
    assert _debug_events(tmp_path, "lock-broken") == []
    decision = project.pre(UNIT)
    assert (decision.action, decision.step) == ("allow", "lock")
    [broken] = _debug_events(tmp_path, "lock-broken")
    assert broken["why"] == "expired"
    assert parse_lock(project.lock_path.read_text(encoding="utf-8")).session_tail == SESSION_A[-12:]


def test_taking_a_free_lock_or_ones_own_again_breaks_nothing(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANES_DEBUG", "1")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert project.pre(UNIT).step == "lock"
    assert project.pre(UNIT).step == "lock"  # the same session, its post not yet seen
    assert _debug_events(tmp_path, "lock-broken") == []
