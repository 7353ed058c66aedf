"""What the gate tells an agent it stopped, word for word, and the records it
leaves: the run lock's holder, a dedup hit's unknown author, an override that
cannot be audited, the audit line and the debug log's events."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lanes.config import load_config
from lanes.governor.classify.classifier import classify
from lanes.governor.context import HookContext, StatePaths
from lanes.governor.payload import parse_payload
from lanes.governor.policy import gate
from lanes.governor.policy.suites import resolve
from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.ledger import LedgerEntry, record
from lanes.governor.state.lock import parse_lock
from lanes.governor.state.tree import tree_state
from tests.governor.governor_helpers import SESSION_A, SESSION_B, Project
from tests.support.hooks import payload

REASON = "release candidate check"
OVERRIDE = f'LANES_FULL_SWEEP_OK=1 LANES_OVERRIDE_REASON="{REASON}" pytest'


@pytest.fixture
def debug(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The debug log this test's governor writes (``LANES_DEBUG=1``)."""
    monkeypatch.setenv("LANES_DEBUG", "1")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "lanekit" / "debug.jsonl"


def _events(log: Path, event: str) -> list[dict[str, object]]:
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return [r for r in records if r["event"] == event]


@pytest.mark.parametrize(
    ("seconds", "told"),
    [
        (-5.0, "0 s"),
        (0.5, "0 s"),
        (59.9, "59 s"),
        (60.0, "1 min"),
        (7199.0, "119 min"),
        (7200.0, "2.0 h"),
        (9000.0, "2.5 h"),
        (3_600_000.0, "1000.0 h"),
    ],
)
def test_ages_are_told_in_seconds_then_minutes_then_hours(seconds: float, told: str) -> None:
    assert gate.ago(seconds) == told


def test_the_run_lock_names_its_holder_and_when_it_frees(project: Project) -> None:
    # A long command is cut for the message; the lock frees by lock_ttl
    # (1800 s by default) at the latest, counted from when it was taken.
    command = f"{OVERRIDE} {'-q ' * 60}".strip()
    assert project.pre(command).action == "allow"
    blocked = project.pre(command, session=SESSION_B)
    assert (blocked.action, blocked.step) == ("block", "lock")
    assert blocked.message == (
        f"run lock held: claude (session …a1b2, pid {os.getpid()}) has been running "
        f"(full sweep) for 0 s (`{command[:119]}…`). It frees when that run finishes, "
        "when its agent exits, or at the latest in 29 min (lock_ttl). Do something else "
        "meanwhile and retry; heavy suites belong under `nice -n 19`. "
        "`lanes governor status` shows the holder."
    )


def test_a_lock_whose_holder_cannot_be_read_still_says_what_to_do() -> None:
    assert gate._lock_message(None, 0.0, 1800.0) == (
        "run lock is held by another run — wait for it to finish, or check "
        "`lanes governor status`; run heavy suites under `nice -n 19`"
    )


def test_a_pass_by_an_unnamed_agent_without_a_session_is_still_told(project: Project) -> None:
    tree = tree_state(str(project.root))
    assert tree is not None
    files = StatePaths(project.state)
    entry = LedgerEntry(
        status="PASS", ts=project.env.now() - 90, git_head=tree.git_head,
        dirty_digest=tree.dirty_digest, agent="", session_tail="",
    )  # fmt: skip
    record(project.env, files.ledger, files.ledger_guard, "unit", entry)
    assert project.pre("pytest tests/unit -q").message == (
        "unit green 1 min ago by someone (session …????) on this exact tree — "
        "reuse that result, or prefix LANES_TEST_FORCE=1 to re-run"
    )


def test_the_audit_line_is_one_sorted_json_object(project: Project) -> None:
    before = project.env.now()
    assert project.pre(OVERRIDE).action == "allow"
    [line] = Path(StatePaths(project.state).audit).read_text(encoding="utf-8").splitlines()
    fields = json.loads(line)
    assert list(fields) == sorted(fields)
    assert fields["cwd"] == str(project.root)
    assert before <= fields["ts"] <= project.env.now()
    assert fields["reason"] == REASON


def test_an_override_that_cannot_be_audited_is_refused_with_the_reason(
    tmp_path: Path, debug: Path
) -> None:
    # A state path long enough that the message cuts the problem at 300 characters.
    project = Project(tmp_path / ("d" * 150) / ("e" * 150) / "repo")
    audit = StatePaths(project.state).audit
    Path(audit).mkdir()  # a directory where the log should be: the append fails
    decision = project.pre(OVERRIDE)
    assert (decision.action, decision.step) == ("block", "sweep-audit")
    problem = f"{audit} cannot be written (Is a directory)"
    assert len(problem) > 300
    assert decision.message == (
        f"full-sweep override not honoured: it cannot be audited — {problem[:299]}…. "
        "Fix the state directory (it must be yours and not writable by others: "
        "`lanes governor status` shows it), then retry."
    )
    [failed] = _events(debug, "audit-failed")
    assert failed["error"] == problem
    # The lock the override took is given back: the next session may run.
    assert not project.lock_path.exists()


def test_an_override_in_a_state_dir_others_may_write_is_refused(project: Project) -> None:
    Path(project.state).chmod(0o777)  # the hostile state dir under test
    decision = project.pre(OVERRIDE)
    assert (decision.action, decision.step) == ("block", "sweep-audit")
    assert "writable by others" in decision.message
    assert not Path(StatePaths(project.state).audit).exists()


def test_an_override_outside_git_is_logged_as_not_audited(tmp_path: Path, debug: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    config = load_config(cwd=plain)
    hook = parse_payload(json.dumps(payload(OVERRIDE, event="PreToolUse", cwd=plain)))
    ctx = HookContext.modelled(
        OSEnvironment(), state_dir=None, settings=config, tree=None, agent="claude", agent_pid=1
    )
    classification = classify(OVERRIDE, plain)
    matches = resolve(classification, config, cwd=hook.cwd)
    assert gate.decide_pre(ctx, classification, hook, matches).action == "allow"
    [skipped] = _events(debug, "audit-skipped")
    assert skipped["reason"] == "no state dir (not a git work tree)"


def test_a_session_holding_the_lock_is_shown_by_its_last_four_characters(
    project: Project,
) -> None:
    assert project.pre("pytest tests/unit -q", session=SESSION_A).action == "allow"
    assert "(session …a1b2," in project.pre("pytest tests/unit -q", session=SESSION_B).message


def test_a_state_dir_others_may_write_is_ignored_and_logged(project: Project, debug: Path) -> None:
    Path(project.state).chmod(0o777)  # the hostile state dir under test
    decision = project.pre("pytest tests/unit -q")
    assert (decision.action, decision.step) == ("allow", "state-distrusted")
    [distrusted] = _events(debug, "state-distrusted")
    assert project.state in str(distrusted["error"])
    assert not project.lock_path.exists()


def test_the_lock_keeps_the_last_twelve_characters_of_the_session(project: Project) -> None:
    session = "a-very-long-session-id-" + "0123456789ab"
    assert project.pre("pytest tests/unit -q", session=session).action == "allow"
    holder = parse_lock(project.lock_path.read_text(encoding="utf-8"))
    assert holder.session_tail == "0123456789ab"


def test_the_hook_entry_writes_a_block_to_stderr_and_allows_silently(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    command = "pytest tests/unit -q"
    hook = parse_payload(json.dumps(payload(command, event="PreToolUse", cwd=project.root)))
    ctx = HookContext.for_hook(hook, "claude", environ={})
    first = gate.pre_tool_use(ctx, classify(command, project.root), hook)
    assert (first.action, first.step, first.exit_code) == ("allow", "lock", 0)
    assert capsys.readouterr().err == ""
    other = parse_payload(
        json.dumps(payload(command, event="PreToolUse", cwd=project.root, session=SESSION_B))
    )
    ctx = HookContext.for_hook(other, "claude", environ={})
    blocked = gate.pre_tool_use(ctx, classify(command, project.root), other)
    assert (blocked.action, blocked.step, blocked.exit_code) == ("block", "lock", 2)
    assert capsys.readouterr().err == blocked.message + "\n"


def test_two_overrides_in_one_command_are_audited_with_both_reasons(project: Project) -> None:
    second = "second reason for this run"
    command = f'{OVERRIDE}; LANES_FULL_SWEEP_OK=1 LANES_OVERRIDE_REASON="{second}" pytest'
    assert project.pre(command).action == "allow"
    [line] = project.audit()
    assert line["reason"] == f"{REASON}; {second}"


def test_an_internal_error_is_logged_with_its_type_and_the_command(
    project: Project, tmp_path: Path, debug: Path
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("", "utf-8")
    project.state = str(blocker)  # every state path is now under a regular file
    decision = project.pre("pytest tests/unit -q")
    assert (decision.action, decision.step) == ("allow", "error")
    [error] = _events(debug, "gate-error")
    assert error["command"] == "pytest tests/unit -q"
    assert str(error["error"]).startswith("NotADirectoryError: ")
