"""PreToolUse decisions in order: full-sweep gate, dedup, run lock, allow.

Driven in-process through :func:`decide_pre` / :func:`decide_post` with the
real classifier, the real OS environment and real git repositories; the
end-to-end `lanes hook` subprocess path is in test_gate_e2e.py.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from lanes.config import load_config
from lanes.governor.classify.classifier import classify
from lanes.governor.context import HookContext, StatePaths
from lanes.governor.payload import parse_payload
from lanes.governor.policy.gate import decide_pre
from lanes.governor.policy.suites import resolve
from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.lock import inspect, parse_lock
from lanes.governor.state.run_notes import run_path
from tests.governor.governor_helpers import SESSION_A, SESSION_B, Project, make_repo
from tests.support.git import git
from tests.support.hooks import payload

DEDUP = re.compile(
    r"^unit green \d+ s ago by claude \(session …a1b2\) on this exact tree — "
    r"reuse that result, or prefix LANES_TEST_FORCE=1 to re-run$"
)


# ----------------------------------------------------------------- 1. full-sweep gate


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("pytest", "no path selector"),
        ("pytest -q -x", "no path selector"),
        ("uv run pytest tests/", "the whole test root"),
        ("python -m pytest tests/unit tests/integ tests/other", "3 path selectors"),
        ("python -m unittest", "no path selector"),
    ],
)
def test_full_sweeps_are_blocked(project: Project, command: str, why: str) -> None:
    decision = project.pre(command)
    assert decision.action == "block"
    assert decision.step == "sweep"
    assert decision.exit_code == 2
    assert why in decision.message
    assert "LANES_FULL_SWEEP_OK=1" in decision.message
    assert not project.lock_path.exists()


@pytest.mark.parametrize(
    "command", ["pytest tests/unit", "pytest tests/unit tests/integ", "go test ./...", "ls"]
)
def test_not_sweeps_of_gated_runners_pass_the_gate(project: Project, command: str) -> None:
    assert project.pre(command).step != "sweep"


REASON = "release candidate check"


def test_inline_override_allows_audits_and_locks(project: Project) -> None:
    command = f'LANES_FULL_SWEEP_OK=1 LANES_OVERRIDE_REASON="{REASON}" pytest'
    decision = project.pre(command)
    assert decision.action == "allow"
    [line] = project.audit()
    assert line["reason"] == REASON
    assert line["command"] == command
    assert line["session"] == SESSION_A
    assert line["agent"] == "claude"
    assert line["event"] == "full-sweep-override"
    assert parse_lock(project.lock_path.read_text(encoding="utf-8")).suite == "(full sweep)"


def test_an_override_the_lock_then_blocks_is_not_audited(project: Project) -> None:
    # the audit line was written before the run lock was asked, so
    # an override that never ran was logged (44 lines for 8 real overrides).
    assert project.pre("pytest tests/unit -q").action == "allow"  # session A holds the lock
    command = f'LANES_FULL_SWEEP_OK=1 LANES_OVERRIDE_REASON="{REASON}" pytest'
    blocked = project.pre(command, session=SESSION_B)
    assert (blocked.action, blocked.step) == ("block", "lock")
    assert project.audit() == []
    project.lock_path.unlink()  # A's run ended
    assert project.pre(command, session=SESSION_B).action == "allow"
    assert len(project.audit()) == 1


def test_environment_override_allows(project: Project) -> None:
    environ = {"LANES_FULL_SWEEP_OK": "1", "LANES_OVERRIDE_REASON": REASON}
    assert project.pre("pytest", environ=environ).action == "allow"
    assert len(project.audit()) == 1


def test_a_14_character_reason_is_refused_and_15_accepted(project: Project) -> None:
    short = "x" * 14
    decision = project.pre(f'LANES_FULL_SWEEP_OK=1 LANES_OVERRIDE_REASON="{short}" pytest')
    assert decision.action == "block"
    assert "14 characters; at least 15" in decision.message
    assert project.audit() == []
    ok = project.pre(f'LANES_FULL_SWEEP_OK=1 LANES_OVERRIDE_REASON="{"x" * 15}" pytest')
    assert ok.action == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "LANES_FULL_SWEEP_OK=1 pytest",
        f'LANES_FULL_SWEEP_OK=0 LANES_OVERRIDE_REASON="{REASON}" pytest',
        f'LANES_OVERRIDE_REASON="{REASON}" pytest',
        f'echo LANES_FULL_SWEEP_OK=1 LANES_OVERRIDE_REASON="{REASON}"; pytest',
        f'LANES_FULL_SWEEP_OK=1 LANES_OVERRIDE_REASON="{REASON}" true && pytest',
    ],
)
def test_incomplete_overrides_are_refused(project: Project, command: str) -> None:
    assert project.pre(command).action == "block"


def test_outside_git_a_sweep_runs_with_advice(tmp_path: Path) -> None:
    # No repository and no state dir: no ledger, tree or lock to protect and
    # no suite to sweep, so a scratch directory's `pytest` runs, with advice.
    plain = tmp_path / "plain"
    plain.mkdir()
    config = load_config(cwd=plain)
    hook = parse_payload(json.dumps(payload("pytest", event="PreToolUse", cwd=plain)))
    ctx = HookContext.modelled(
        OSEnvironment(), state_dir=None, settings=config, tree=None, agent="claude", agent_pid=1
    )
    classification = classify("pytest", plain)
    decision = decide_pre(ctx, classification, hook, resolve(classification, config, cwd=hook.cwd))
    assert decision.action == "allow"
    assert decision.step == "outside-git"
    assert "not in a git work tree" in decision.message


# ----------------------------------------------------------------- 2. dedup


def test_a_fresh_pass_blocks_the_same_suite(project: Project) -> None:
    assert project.run("pytest tests/unit -q").action == "allow"
    decision = project.pre("pytest tests/unit -q", session=SESSION_B)
    assert decision.action == "block"
    assert decision.step == "dedup"
    assert DEDUP.match(decision.message), decision.message


@pytest.mark.parametrize(
    "same",
    [
        "pytest tests/unit",
        "pytest -x -v ./tests/unit/ --tb=short -p no:cacheprovider",
        "nice -n 19 uv run python -m pytest -n 2 tests/unit",
        "pytest tests/unit -q 2>&1 | tail -5",
    ],
)
def test_flags_that_select_nothing_do_not_matter(project: Project, same: str) -> None:
    project.run("pytest tests/unit -q")
    assert project.pre(same, session=SESSION_B).step == "dedup"


@pytest.mark.parametrize(
    "other",
    [
        "pytest tests/unit -k slow",
        "pytest tests/unit -m slow",
        "pytest tests/unit/test_a.py",
        "pytest tests/unit tests/integ",
    ],
)
def test_a_different_selection_is_not_the_suite(project: Project, other: str) -> None:
    project.run("pytest tests/unit -q")
    assert project.pre(other, session=SESSION_B).step != "dedup"


def test_the_marker_expression_is_part_of_the_suite(project: Project) -> None:
    project.run("pytest tests/integ -m 'not slow'")
    assert project.pre('pytest -m "not slow" tests/integ', session=SESSION_B).step == "dedup"
    assert project.pre("pytest tests/integ", session=SESSION_B).step != "dedup"


@pytest.mark.parametrize(
    ("command", "environ"),
    [
        ("LANES_TEST_FORCE=1 pytest tests/unit -q", {}),
        ("pytest tests/unit -q", {"LANES_TEST_FORCE": "1"}),
        ("export LANES_TEST_FORCE=1 && pytest tests/unit -q", {}),
    ],
)
def test_force_skips_dedup(project: Project, command: str, environ: dict[str, str]) -> None:
    project.run("pytest tests/unit -q")
    assert project.pre(command, session=SESSION_B, environ=environ).action == "allow"


def test_a_prefix_of_another_command_does_not_force(project: Project) -> None:
    project.run("pytest tests/unit -q")
    # In the shell, `VAR=1 true` sets VAR for `true` only.
    decision = project.pre("LANES_TEST_FORCE=1 true; pytest tests/unit -q", session=SESSION_B)
    assert decision.step == "dedup"


def test_a_tracked_edit_invalidates_the_pass(project: Project) -> None:
    project.run("pytest tests/unit -q")
    (project.root / "tests/unit/test_a.py").write_text("def test_a():\n    assert 1\n", "utf-8")
    assert project.pre("pytest tests/unit -q", session=SESSION_B).action == "allow"


def test_an_untracked_edit_invalidates_the_pass(project: Project) -> None:
    new = project.root / "tests/unit/test_new.py"
    new.write_text("def test_new():\n    pass\n", "utf-8")
    project.run("pytest tests/unit -q")
    new.write_text("def test_new():\n    assert 0\n", "utf-8")
    assert project.pre("pytest tests/unit -q", session=SESSION_B).action == "allow"


def test_a_commit_invalidates_the_pass(project: Project) -> None:
    project.run("pytest tests/unit -q")
    (project.root / "x.py").write_text("x = 1\n", "utf-8")
    git(project.root, "add", "x.py")
    git(project.root, "commit", "-q", "-m", "x")
    assert project.pre("pytest tests/unit -q", session=SESSION_B).action == "allow"


def test_a_fail_does_not_block(project: Project) -> None:
    command = "pytest tests/unit -q"
    project.pre(command)
    project.post(command, event="PostToolUseFailure", error="Exit code 1\nFAILED")
    assert project.pre(command, session=SESSION_B).action == "allow"


def test_a_command_suite_is_deduplicated_but_never_locked(project: Project) -> None:
    assert project.pre("make verify").action == "allow"
    assert not project.lock_path.exists()
    project.post("make verify")
    decision = project.pre("nice -n 19 make verify", session=SESSION_B)
    assert decision.step == "dedup"
    assert decision.message.startswith("verify green ")
    assert project.pre("make verify-fast", session=SESSION_B).action == "allow"


@pytest.mark.parametrize(
    "mention",
    [
        'echo "pytest tests/unit"',
        "git commit -m 'pytest tests/unit -q'",
        "cat <<EOF\npytest tests/unit -q\nEOF",
        "grep -r 'make verify' .",
    ],
)
def test_a_mention_neither_blocks_nor_records_nor_locks(project: Project, mention: str) -> None:
    assert project.pre(mention).action == "allow"
    assert not project.lock_path.exists()
    assert project.post(mention).recorded == {}
    assert project.pre("pytest tests/unit -q", session=SESSION_B).action == "allow"


def test_a_corrupt_ledger_fails_open(project: Project) -> None:
    Path(StatePaths(project.state).ledger).write_text("{garbage", "utf-8")
    assert project.pre("pytest tests/unit -q").action == "allow"


def test_an_internal_error_in_dedup_or_lock_fails_open(project: Project, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("", "utf-8")
    project.state = str(blocker)  # every state path is now under a regular file
    decision = project.pre("pytest tests/unit -q")
    assert decision.action == "allow"
    assert decision.step == "error"


# ----------------------------------------------------------------- 3. run lock


def test_the_first_run_takes_the_lock_and_a_sibling_is_blocked(project: Project) -> None:
    first = project.pre("pytest tests/unit -q")
    assert first.action == "allow"
    assert first.lock is not None
    held = parse_lock(project.lock_path.read_text(encoding="utf-8"))
    assert (held.suite, held.agent, held.agent_pid) == ("unit", "claude", os.getpid())
    sibling = project.pre("pytest tests/integ -m 'not slow'", session=SESSION_B)
    assert sibling.action == "block"
    assert sibling.step == "lock"
    for part in ("claude", "…a1b2", "running unit", "at the latest", "nice -n 19"):
        assert part in sibling.message


def test_own_session_is_never_blocked_by_its_own_lock(project: Project) -> None:
    assert project.pre("pytest tests/unit -q").action == "allow"
    # The post hook never came (say the call was cancelled); the same
    # session's next run reclaims instead of blocking itself.
    assert project.pre("pytest tests/integ -m 'not slow'").action == "allow"


def test_a_corrupt_lock_fails_open(project: Project) -> None:
    project.lock_path.write_text("][", "utf-8")
    assert project.pre("pytest tests/unit -q").action == "allow"
    assert inspect(project.env, str(project.lock_path)).status == "held"


def test_lock_false_suites_take_no_lock(tmp_path: Path) -> None:
    pyproject = '[tool.lanes.suites.unit]\npaths = ["tests/unit"]\nlock = false\n'
    project = Project.__new__(Project)
    project.root = make_repo(tmp_path / "repo", pyproject)
    project.state = str(project.root / ".git" / "lanes")
    Path(project.state).mkdir()
    project.config = load_config(cwd=project.root)
    project.env = OSEnvironment()
    assert project.pre("pytest tests/unit").action == "allow"
    assert not project.lock_path.exists()
    # Unlocked, the run still notes the tree it starts on: its pass is keyed
    # by that tree, not by whatever the tree is when it ends.
    note = Path(run_path(project.state, SESSION_A[-12:], "pytest tests/unit"))
    assert json.loads(note.read_text(encoding="utf-8"))["suites"] == ["unit"]


def test_the_dedup_message_reads_as_in_the_issue(project: Project) -> None:
    from lanes.governor.state.ledger import LedgerEntry, record  # noqa: PLC0415
    from lanes.governor.state.tree import tree_state  # noqa: PLC0415

    tree = tree_state(str(project.root))
    assert tree is not None
    files = StatePaths(project.state)
    entry = LedgerEntry(
        status="PASS", ts=project.env.now() - 7 * 60 - 5, git_head=tree.git_head,
        dirty_digest=tree.dirty_digest, agent="claude", session_tail="0000-a1b2",
    )  # fmt: skip
    record(project.env, files.ledger, files.ledger_guard, "unit", entry)
    assert project.pre("pytest tests/unit -q").message == (
        "unit green 7 min ago by claude (session …a1b2) on this exact tree — "
        "reuse that result, or prefix LANES_TEST_FORCE=1 to re-run"
    )


def test_a_pass_older_than_max_age_does_not_block(project: Project) -> None:
    from lanes.governor.state.ledger import LedgerEntry, record  # noqa: PLC0415
    from lanes.governor.state.tree import tree_state  # noqa: PLC0415

    tree = tree_state(str(project.root))
    assert tree is not None
    files = StatePaths(project.state)
    entry = LedgerEntry(
        status="PASS", ts=project.env.now() - 3601, git_head=tree.git_head,
        dirty_digest=tree.dirty_digest, agent="claude", session_tail="0000-a1b2",
    )  # fmt: skip
    record(project.env, files.ledger, files.ledger_guard, "unit", entry)
    assert project.pre("pytest tests/unit -q").action == "allow"
