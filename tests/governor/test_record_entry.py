"""The post hook's production entry in-process: outside git it records and
frees nothing; from a subdirectory it reads the suite against the project
root; a lock is only ever released by the session and command that took it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from lanes.governor.classify.classifier import classify
from lanes.governor.context import HookContext, StatePaths
from lanes.governor.payload import parse_payload
from lanes.governor.policy import gate, record
from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.ledger import LedgerEntry, read
from lanes.governor.state.ledger import record as write
from lanes.governor.state.lock import parse_lock
from lanes.governor.state.tree import tree_state
from tests.governor.governor_helpers import SESSION_A, SESSION_B, Project
from tests.support.hooks import payload

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def _hook(event: str, command: str, cwd: Path) -> record.PostResult | gate.Decision:
    hook_payload = parse_payload(json.dumps(payload(command, event=event, cwd=cwd)))
    ctx = HookContext.for_hook(hook_payload, "claude", environ={})
    classification = classify(command, cwd)
    if event == "PreToolUse":
        return gate.pre_tool_use(ctx, classification, hook_payload)
    return record.post_tool_use(ctx, classification, hook_payload)


def test_outside_git_the_post_hook_records_and_frees_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANES_DEBUG", "1")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    plain = tmp_path / "plain"
    plain.mkdir()
    result = _hook("PostToolUse", "pytest -q", plain)
    assert isinstance(result, record.PostResult)
    assert (result.recorded, result.released) == ({}, False)
    # Quietly: nothing went wrong, so the debug log has no error to tell.
    log = tmp_path / "xdg" / "lanekit" / "debug.jsonl"
    assert "record-error" not in (log.read_text(encoding="utf-8") if log.exists() else "")


class FrozenClock(OSEnvironment):
    """The real files and processes, at one fixed moment."""

    def __init__(self, now: float) -> None:
        super().__init__()
        self._now = now

    def now(self) -> float:
        return self._now


def test_a_runner_record_from_the_instant_the_run_started_is_this_runs(
    project: Project,
) -> None:
    # The pytest plugin may write its record within the clock tick the hook
    # noted the start in: that record is this run's, not an older one.
    project.env = FrozenClock(1_800_000_000.0)
    command = "pytest tests/unit -q"
    assert project.pre(command).step == "lock"
    tree = tree_state(str(project.root))
    assert tree is not None
    files = StatePaths(project.state)
    entry = LedgerEntry(
        status="FAIL", ts=1_800_000_000.0, git_head=tree.git_head,
        dirty_digest=tree.dirty_digest, agent="claude", source="runner",
    )  # fmt: skip
    write(project.env, files.ledger, files.ledger_guard, "unit", entry)
    assert project.post(command).recorded == {}
    assert read(project.env, files.ledger)["unit"].status == "FAIL"


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
