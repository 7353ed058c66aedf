"""The post hook's production entry in-process: outside git it records and
frees nothing; from a subdirectory it reads the suite against the project
root; a lock is only ever released by the session and command that took it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from lanes.governor.classify.classifier import classify
from lanes.governor.context import HookContext
from lanes.governor.payload import parse_payload
from lanes.governor.policy import gate, record
from lanes.governor.state.ledger import read
from lanes.governor.state.lock import parse_lock
from tests.governor.governor_helpers import SESSION_A, SESSION_B, Project
from tests.support.hooks import payload

if TYPE_CHECKING:
    from pathlib import Path


def _hook(event: str, command: str, cwd: Path) -> record.PostResult | gate.Decision:
    hook_payload = parse_payload(json.dumps(payload(command, event=event, cwd=cwd)))
    ctx = HookContext.for_hook(hook_payload, "claude", environ={})
    classification = classify(command, cwd)
    if event == "PreToolUse":
        return gate.pre_tool_use(ctx, classification, hook_payload)
    return record.post_tool_use(ctx, classification, hook_payload)


def test_outside_git_the_post_hook_records_and_frees_nothing(tmp_path: Path) -> None:
    result = _hook("PostToolUse", "pytest -q", tmp_path)
    assert isinstance(result, record.PostResult)
    assert (result.recorded, result.released) == ({}, False)


def test_a_run_from_a_subdirectory_is_recorded_and_frees_its_lock(project: Project) -> None:
    # `pytest unit` in tests/ is the suite `unit` (tests/unit from the root).
    tests = project.root / "tests"
    decision = _hook("PreToolUse", "pytest unit -q", tests)
    assert isinstance(decision, gate.Decision)
    assert (decision.action, decision.step) == ("allow", "lock")
    assert project.lock_path.exists()
    result = _hook("PostToolUse", "pytest unit -q", tests)
    assert isinstance(result, record.PostResult)
    assert (result.recorded, result.released) == ({"unit": "PASS"}, True)
    assert not project.lock_path.exists()
    entry = read(project.env, str(project.root / ".git" / "lanes" / "verify-ledger.json"))["unit"]
    assert (entry.status, entry.agent) == ("PASS", "claude")


def test_only_the_session_that_took_the_lock_releases_it(project: Project) -> None:
    command = "pytest tests/unit -q"
    assert project.pre(command, session=SESSION_A).step == "lock"
    held = parse_lock(project.lock_path.read_text(encoding="utf-8"))
    other = project.hook_payload("PostToolUse", command, SESSION_B)
    assert record.release_own_lock(project.context(), other, held) is False
    assert project.lock_path.exists()
    own = project.hook_payload("PostToolUse", command, SESSION_A)
    assert record.release_own_lock(project.context(), own, held) is True
    assert not project.lock_path.exists()


def test_without_a_state_dir_nothing_is_released(project: Project) -> None:
    command = "pytest tests/unit -q"
    assert project.pre(command).step == "lock"
    held = parse_lock(project.lock_path.read_text(encoding="utf-8"))
    stateless = HookContext.modelled(
        project.env,
        state_dir=None,
        settings=project.config,
        tree=None,
        agent="claude",
        agent_pid=1,
    )
    own = project.hook_payload("PostToolUse", command, SESSION_A)
    assert record.release_own_lock(stateless, own, held) is False
    assert project.lock_path.exists()
