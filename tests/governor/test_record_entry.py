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


class SteppingClock(OSEnvironment):
    """The real files and processes, at a moment the test moves."""

    def __init__(self, now: float) -> None:
        super().__init__()
        self.moment = now

    def now(self) -> float:
        return self.moment


def test_a_locked_run_records_how_long_it_took(project: Project) -> None:
    clock = SteppingClock(1_800_000_000.0)
    project.env = clock
    command = "pytest tests/unit -q"
    assert project.pre(command).step == "lock"
    clock.moment += 2.5
    assert project.post(command).recorded == {"unit": "PASS"}
    files = StatePaths(project.state)
    assert read(project.env, files.ledger)["unit"].duration_ms == 2500
    # Ended within the tick it started in: no time at all, not a millisecond.
    assert project.pre(f"LANES_TEST_FORCE=1 {command}").step == "lock"
    assert project.post(f"LANES_TEST_FORCE=1 {command}").recorded == {"unit": "PASS"}
    assert read(project.env, files.ledger)["unit"].duration_ms == 0


def test_a_run_that_took_no_lock_records_no_duration(project: Project) -> None:
    # Another session's lock says nothing about how long this run took.
    assert project.pre("pytest tests/unit -q", session=SESSION_B).step == "lock"
    assert project.pre("make verify").action == "allow"
    result = project.post("make verify")
    assert (result.recorded, result.released) == ({"verify": "PASS"}, False)
    files = StatePaths(project.state)
    assert read(project.env, files.ledger)["verify"].duration_ms is None


def test_a_suite_the_runner_recorded_does_not_stop_the_next_one(project: Project) -> None:
    both = "pytest tests/unit -q && pytest tests/integ -m 'not slow'"
    assert project.pre(both).step == "lock"
    tree = tree_state(str(project.root))
    assert tree is not None
    files = StatePaths(project.state)
    entry = LedgerEntry(
        status="FAIL", ts=project.env.now(), git_head=tree.git_head,
        dirty_digest=tree.dirty_digest, agent="claude", source="runner",
    )  # fmt: skip
    write(project.env, files.ledger, files.ledger_guard, "unit", entry)
    assert project.post(both).recorded == {"integ": "PASS"}


def test_the_post_hook_without_a_state_dir_or_for_a_background_run_frees_nothing(
    project: Project,
) -> None:
    command = "pytest tests/unit -q"
    stateless = HookContext.modelled(
        project.env, state_dir=None, settings=project.config, tree=None, agent="claude",
        agent_pid=1,
    )  # fmt: skip
    hook = project.hook_payload("PostToolUse", command, SESSION_A)
    result = record.decide_post(stateless, hook, [])
    assert (result.recorded, result.released) == ({}, False)
    assert project.pre(command).step == "lock"
    background = project.post(
        command,
        tool_input={"command": command, "run_in_background": True},
        tool_response={"backgroundTaskId": "bash_1"},
    )
    assert background.released is False
    other = project.post(command, session=SESSION_B)
    assert (other.recorded, other.released) == ({"unit": "PASS"}, False)
