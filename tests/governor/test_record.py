"""PostToolUse / PostToolUseFailure: auto-record and lock release."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lanes.governor.context import StatePaths
from lanes.governor.policy.record import RUNNER_STOPS
from lanes.governor.runner.exits import RunnerExit
from lanes.governor.state.ledger import LedgerEntry, read, record
from lanes.governor.state.tree import tree_state
from tests.governor.governor_helpers import SESSION_A, SESSION_B, Project


def ledger(project: Project) -> dict[str, str]:
    return {
        name: entry.status
        for name, entry in read(project.env, StatePaths(project.state).ledger).items()
    }


COMMAND = "pytest tests/unit -q"


def test_post_tool_use_records_pass_with_the_tree_and_frees_the_lock(project: Project) -> None:
    project.pre(COMMAND)
    assert project.lock_path.exists()
    result = project.post(COMMAND)
    assert result.recorded == {"unit": "PASS"}
    assert result.released
    assert not project.lock_path.exists()
    entry = read(project.env, StatePaths(project.state).ledger)["unit"]
    assert entry.dirty_digest == "clean"
    assert entry.git_head is not None
    assert len(entry.git_head) == 40
    assert entry.agent == "claude"
    assert entry.session_tail.endswith("a1b2")
    assert entry.duration_ms is not None


def test_post_tool_use_failure_records_fail_and_frees_the_lock(project: Project) -> None:
    project.pre(COMMAND)
    result = project.post(COMMAND, event="PostToolUseFailure", error="Exit code 1\n1 failed")
    assert result.recorded == {"unit": "FAIL"}
    assert result.released


def test_a_failure_event_without_exit_code_is_never_a_phantom_pass(project: Project) -> None:
    project.pre(COMMAND)
    assert project.post(COMMAND, event="PostToolUseFailure").recorded == {"unit": "FAIL"}


@pytest.mark.parametrize(
    ("response", "status"),
    [({"exit_code": 1}, "FAIL"), ({"exit_code": 0}, "PASS"), ({"exitCode": 2}, "FAIL")],
)
def test_codex_exit_codes_in_post_tool_use(
    project: Project, response: dict[str, object], status: str
) -> None:
    project.pre(COMMAND)
    result = project.post(COMMAND, tool_response={"output": "...", **response})
    assert result.recorded == {"unit": status}
    assert result.released


@pytest.mark.parametrize(
    ("event", "extra"),
    [
        ("PostToolUseFailure", {"is_interrupt": True, "error": "Interrupted"}),
        ("PostToolUse", {"tool_response": {"interrupted": True}}),
    ],
)
def test_an_interrupted_run_records_nothing_but_frees_the_lock(
    project: Project, event: str, extra: dict[str, Any]
) -> None:
    project.pre(COMMAND)
    result = project.post(COMMAND, event=event, **extra)
    assert result.recorded == {}
    assert result.released
    assert ledger(project) == {}


def test_several_suites_record_each_and_all_fail_together(project: Project) -> None:
    both = "pytest tests/unit -q && pytest tests/integ -m 'not slow'"
    project.pre(both)
    assert project.post(both).recorded == {"unit": "PASS", "integ": "PASS"}
    project.pre(f"LANES_TEST_FORCE=1 {both}")
    failed = project.post(f"LANES_TEST_FORCE=1 {both}", event="PostToolUseFailure")
    assert failed.recorded == {"unit": "FAIL", "integ": "FAIL"}
    assert ledger(project) == {"unit": "FAIL", "integ": "FAIL"}


def test_a_mention_never_clears_the_lock(project: Project) -> None:
    project.pre(COMMAND)
    for mention in (f'echo "{COMMAND}"', f"cat <<EOF\n{COMMAND}\nEOF"):
        result = project.post(mention)
        assert result.recorded == {}
        assert not result.released
    assert project.lock_path.exists()


def test_another_sessions_post_does_not_free_my_lock(project: Project) -> None:
    project.pre(COMMAND)
    result = project.post(COMMAND, session=SESSION_B)
    assert not result.released
    assert project.lock_path.exists()
    assert project.post(COMMAND, session=SESSION_A).released


def test_no_tree_no_record(project: Project) -> None:
    # A PASS must name the tree it was proven on; without one nothing is written.
    from lanes.governor.classify.classifier import classify  # noqa: PLC0415
    from lanes.governor.policy.record import decide_post  # noqa: PLC0415
    from lanes.governor.policy.suites import resolve  # noqa: PLC0415

    hook = project.hook_payload("PostToolUse", COMMAND, SESSION_A)
    matches = resolve(classify(COMMAND, project.root), project.config, cwd=hook.cwd)
    assert matches
    result = decide_post(project.context(tree=False), hook, matches)
    assert result.recorded == {}


def test_an_edit_during_the_run_voids_its_result(project: Project) -> None:
    project.pre(COMMAND)
    # Another agent edits while the suite runs: the PASS would vouch for an
    # edit the suite never saw, and a sibling would then skip the suite.
    (project.root / "tests/unit/test_a.py").write_text("def test_a():\n    assert 0\n", "utf-8")
    result = project.post(COMMAND)
    assert result.recorded == {}
    assert result.released
    assert ledger(project) == {}
    assert list(Path(project.state).glob("run-*.json")) == []
    assert project.pre(COMMAND, session=SESSION_B).action == "allow"


def test_the_start_note_is_consumed_whatever_the_outcome(project: Project) -> None:
    project.pre(COMMAND)
    assert len(list(Path(project.state).glob("run-*.json"))) == 1
    project.post(COMMAND, event="PostToolUseFailure", is_interrupt=True)
    assert list(Path(project.state).glob("run-*.json")) == []


def test_a_backgrounded_run_records_nothing_and_keeps_the_lock(project: Project) -> None:
    project.pre(COMMAND)
    # Claude Code answers a run_in_background call at once: no outcome yet.
    result = project.post(
        COMMAND,
        tool_input={"command": COMMAND, "run_in_background": True},
        tool_response={"backgroundTaskId": "bash_1"},
    )
    assert result.recorded == {}
    assert not result.released
    assert project.lock_path.exists()


def _runner_records(project: Project, status: str) -> None:
    """What the governor's pytest plugin writes at the end of the run."""
    tree = tree_state(str(project.root))
    assert tree is not None
    files = StatePaths(project.state)
    entry = LedgerEntry(
        status="PASS" if status == "PASS" else "FAIL",
        ts=project.env.now(),
        git_head=tree.git_head,
        dirty_digest=tree.dirty_digest,
        agent="claude",
        source="runner",
    )
    record(project.env, files.ledger, files.ledger_guard, "unit", entry)


def test_the_runners_record_of_the_same_run_wins_over_the_post_event(project: Project) -> None:
    # Regression: pytest failed (the runner recorded FAIL) but the agent's shell
    # swallowed the status (`pytest ...; true`): the hook must not count the
    # run a second time, let alone as a PASS.
    project.pre(COMMAND)
    _runner_records(project, "FAIL")
    result = project.post(COMMAND)
    assert result.recorded == {}
    assert result.released
    assert ledger(project) == {"unit": "FAIL"}


def test_a_runner_record_older_than_this_run_is_overwritten(project: Project) -> None:
    # (A FAIL: a PASS on this tree would dedup the re-run at PreToolUse.)
    _runner_records(project, "FAIL")
    assert project.pre(COMMAND).action == "allow"
    result = project.post(COMMAND)
    assert result.recorded == {"unit": "PASS"}
    assert ledger(project) == {"unit": "PASS"}


@pytest.mark.parametrize("code", [int(code) for code in RunnerExit])
def test_a_run_the_pytest_plugin_stopped_records_nothing(project: Project, code: int) -> None:
    # The hook let `pytest tests/unit` through; the plugin stopped it before
    # its first test (a sweep, a dedup, a held lock): no FAIL proven.
    project.pre(COMMAND)
    result = project.post(COMMAND, event="PostToolUseFailure", error=f"Exit code {code}\n")
    assert result.recorded == {}
    assert ledger(project) == {}


def test_the_hooks_runner_stops_are_the_plugins_exit_statuses() -> None:
    assert set(RUNNER_STOPS) == {int(code) for code in RunnerExit}


INTEG = "pytest tests/integ -m 'not slow'"


def test_two_commands_of_one_session_each_keep_their_own_start_note(project: Project) -> None:
    # The unit suite runs in the background on the clean tree; the agent then
    # edits and starts the integ suite. The unit run never saw the edit, so
    # its PASS must not vouch for the edited tree (it would if the two runs
    # shared one note: the second start would overwrite the first).
    project.pre("pytest tests/unit -q")
    (project.root / "tests/unit/test_a.py").write_text("def test_a():\n    assert 0\n", "utf-8")
    assert project.pre(INTEG).action == "allow"
    assert len(list(Path(project.state).glob("run-*.json"))) == 2
    assert project.post("pytest tests/unit -q").recorded == {}
    assert project.post(INTEG).recorded == {"integ": "PASS"}
    assert list(Path(project.state).glob("run-*.json")) == []
