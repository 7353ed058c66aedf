"""Why the post hook recorded nothing, as ``LANES_DEBUG=1`` tells it: one
debug-log record per skipped run, naming the reason (the only trace of a run
that left the ledger untouched)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lanes.governor.classify.classifier import classify
from lanes.governor.context import StatePaths
from lanes.governor.policy.record import decide_post
from lanes.governor.policy.suites import resolve
from lanes.governor.state.ledger import LedgerEntry, record
from lanes.governor.state.tree import tree_state
from tests.governor.governor_helpers import SESSION_A, Project

COMMAND = "pytest tests/unit -q"


@pytest.fixture
def debug(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LANES_DEBUG", "1")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "lanekit" / "debug.jsonl"


def _logged(log: Path, *events: str) -> list[dict[str, object]]:
    """The records of ``events``, without the moment and the process id."""
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    chosen = [r for r in records if r["event"] in events]
    for one in chosen:
        del one["ts"], one["pid"]
    return chosen


def test_an_interrupted_run(project: Project, debug: Path) -> None:
    project.pre(COMMAND)
    project.post(COMMAND, event="PostToolUseFailure", is_interrupt=True)
    assert _logged(debug, "record-skipped") == [
        {"event": "record-skipped", "reason": "interrupted", "command": COMMAND}
    ]


def test_an_event_that_carries_no_outcome(project: Project, debug: Path) -> None:
    # Only the post events say how a run ended; any other records nothing.
    project.pre(COMMAND)
    hook = project.hook_payload("PreToolUse", COMMAND, SESSION_A)
    matches = resolve(classify(COMMAND, project.root), project.config, cwd=hook.cwd)
    assert decide_post(project.context(), hook, matches).recorded == {}
    assert _logged(debug, "record-skipped") == [
        {"event": "record-skipped", "reason": "outcome unknown", "hook_event": "PreToolUse"}
    ]


def test_a_run_the_plugin_stopped(project: Project, debug: Path) -> None:
    project.pre(COMMAND)
    project.post(COMMAND, event="PostToolUseFailure", error="Exit code 7\n")
    assert _logged(debug, "record-skipped") == [
        {"event": "record-skipped", "reason": "the runner stopped it (exit 7)"}
    ]


def test_a_backgrounded_run(project: Project, debug: Path) -> None:
    project.pre(COMMAND)
    project.post(
        COMMAND,
        tool_input={"command": COMMAND, "run_in_background": True},
        tool_response={"backgroundTaskId": "bash_1"},
    )
    assert _logged(debug, "record-skipped") == [
        {"event": "record-skipped", "reason": "backgrounded", "command": COMMAND}
    ]


def test_a_run_without_a_tree(project: Project, debug: Path) -> None:
    hook = project.hook_payload("PostToolUse", COMMAND, SESSION_A)
    matches = resolve(classify(COMMAND, project.root), project.config, cwd=hook.cwd)
    assert decide_post(project.context(tree=False), hook, matches).recorded == {}
    assert _logged(debug, "record-skipped") == [
        {"event": "record-skipped", "reason": "no tree state (not a git work tree?)"}
    ]


def test_a_run_whose_tree_changed(project: Project, debug: Path) -> None:
    project.pre(COMMAND)
    (project.root / "tests/unit/test_a.py").write_text("def test_a():\n    assert 0\n", "utf-8")
    assert project.post(COMMAND).recorded == {}
    assert _logged(debug, "record-skipped") == [
        {"event": "record-skipped", "reason": "the tree changed during the run"}
    ]


def test_a_run_the_plugin_recorded_itself(project: Project, debug: Path) -> None:
    project.pre(COMMAND)
    tree = tree_state(str(project.root))
    assert tree is not None
    files = StatePaths(project.state)
    entry = LedgerEntry(
        status="FAIL", ts=project.env.now(), git_head=tree.git_head,
        dirty_digest=tree.dirty_digest, agent="claude", source="runner",
    )  # fmt: skip
    record(project.env, files.ledger, files.ledger_guard, "unit", entry)
    assert project.post(COMMAND).recorded == {}
    assert _logged(debug, "record-skipped") == [
        {"event": "record-skipped", "reason": "the runner recorded it", "suite": "unit"}
    ]


def test_a_ledger_that_cannot_be_written(project: Project, debug: Path) -> None:
    project.pre(COMMAND)
    ledger = Path(StatePaths(project.state).ledger)
    ledger.unlink(missing_ok=True)
    ledger.mkdir()
    result = project.post(COMMAND)
    assert (result.recorded, result.released) == ({}, True)
    [failed] = _logged(debug, "record-failed")
    assert failed["suite"] == "unit"
    assert str(failed["error"]).startswith("IsADirectoryError: ")


def test_a_state_dir_others_may_write(project: Project, debug: Path) -> None:
    project.pre(COMMAND)
    Path(project.state).chmod(0o777)  # the hostile state dir under test
    result = project.post(COMMAND)
    assert (result.recorded, result.released) == ({}, False)
    [distrusted] = _logged(debug, "state-distrusted")
    assert project.state in str(distrusted["error"])


def test_each_suite_whose_write_fails_is_logged(project: Project, debug: Path) -> None:
    both = "pytest tests/unit -q && pytest tests/integ -m 'not slow'"
    project.pre(both)
    ledger = Path(StatePaths(project.state).ledger)
    ledger.unlink(missing_ok=True)
    ledger.mkdir()
    assert project.post(both).recorded == {}
    assert [r["suite"] for r in _logged(debug, "record-failed")] == ["unit", "integ"]


def test_a_command_that_ran_no_suite_leaves_no_trace(project: Project, debug: Path) -> None:
    hook = project.hook_payload("PostToolUse", "ls -la", SESSION_A)
    assert decide_post(project.context(tree=False), hook, []).recorded == {}
    assert not debug.exists() or _logged(debug, "record-skipped") == []
