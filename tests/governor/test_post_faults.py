"""Faults on the post path and the lock: release never depends on recording,
and a payload without a session never takes a lock it
could not release (it could never tell its own lock from another agent's)."""

from __future__ import annotations

import json
from pathlib import Path

from lanes.governor.classify.classifier import classify
from lanes.governor.context import StatePaths
from lanes.governor.payload import parse_payload
from lanes.governor.policy.gate import decide_pre
from lanes.governor.policy.record import decide_post
from lanes.governor.policy.suites import resolve
from tests.governor.governor_helpers import SESSION_A, SESSION_B, Project

UNIT = "pytest tests/unit -q"
INTEG = "pytest tests/integ -m 'not slow'"


def test_a_ledger_that_cannot_be_written_still_frees_the_lock(project: Project) -> None:
    # The repro: the ledger path is a directory, so recording raises.
    Path(StatePaths(project.state).ledger).mkdir()
    assert project.pre(UNIT, session=SESSION_A).action == "allow"
    assert project.lock_path.exists()
    result = project.post(UNIT, session=SESSION_A)
    assert result.released
    assert result.recorded == {}
    assert not project.lock_path.exists()
    # A sibling is not blocked by a lock nobody holds any more.
    assert project.pre(INTEG, session=SESSION_B).action == "allow"


def test_a_failed_ledger_write_is_not_reported_as_recorded(project: Project) -> None:
    ledger = Path(StatePaths(project.state).ledger)
    ledger.mkdir()
    project.pre(UNIT)
    assert "unit" not in project.post(UNIT).recorded


def _pre_without_session(project: Project, command: str) -> object:
    raw = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "cwd": str(project.root),
        }
    )
    classification = classify(command, project.root)
    return decide_pre(
        project.context(),
        classification,
        parse_payload(raw),
        resolve(classification, project.config, cwd=str(project.root)),
    )


def _post_without_session(project: Project, command: str) -> object:
    raw = json.dumps(
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "cwd": str(project.root),
        }
    )
    return decide_post(
        project.context(),
        parse_payload(raw),
        resolve(classify(command, project.root), project.config, cwd=str(project.root)),
    )


def test_a_payload_without_session_takes_no_lock(project: Project) -> None:
    decision = _pre_without_session(project, UNIT)
    assert getattr(decision, "action", None) == "allow"
    assert not project.lock_path.exists()
    _post_without_session(project, UNIT)
    # The same agent's next run, and a sibling's, are not blocked.
    assert getattr(_pre_without_session(project, INTEG), "action", None) == "allow"
    assert project.pre(INTEG, session=SESSION_B).action == "allow"
