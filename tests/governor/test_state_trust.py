"""Trust and the exclusive create (a guard that cannot be opened must never hide a live holder).

- A state dir or file another user can write is refused: dedup, lock and
  recording fail open, a full-sweep override (which must be audited there)
  fails closed with a message saying why.
- An override that cannot be audited is not honoured (an unaudited override would leave no trace of a full sweep).
- The production exclusive create is tested directly: twice → refused, a
  rival appearing mid-acquire → "raced"; a guard that cannot be taken never
  makes a live holder's lock ignored.
- Which step decides a PreToolUse when two would block.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lanes.config import load_config
from lanes.governor.state import ledger as ledger_mod
from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.lock import AcquireResult, acquire, inspect, release
from tests.governor.governor_helpers import SESSION_B, Project
from tests.support.git import git

REASON = "release candidate check"
OVERRIDE = {"LANES_FULL_SWEEP_OK": "1", "LANES_OVERRIDE_REASON": REASON}
UNIT = "pytest tests/unit -q"


def _green(project: Project) -> None:
    assert project.run(UNIT).action == "allow"
    assert project.pre(UNIT).step == "dedup"


# ------------------------------------- a guard that cannot be opened never hides a holder


def test_a_world_writable_state_dir_is_ignored_for_advice(project: Project) -> None:
    _green(project)
    Path(project.state).chmod(0o777)  # the hostile setup under test
    decision = project.pre(UNIT)
    assert (decision.action, decision.step) == ("allow", "state-distrusted")
    assert not project.lock_path.exists()  # no lock taken in a dir others can write
    assert project.post(UNIT).recorded == {}  # nothing recorded into it either


def test_a_world_writable_ledger_is_not_trusted(project: Project) -> None:
    _green(project)
    (Path(project.state) / "verify-ledger.json").chmod(0o666)
    assert project.pre(UNIT).step == "state-distrusted"


@pytest.mark.parametrize(
    ("mode", "step"),
    [
        (0o757, "state-distrusted"),  # others may write, the group may not: still hostile
        (0o775, "dedup"),  # a shared group's directory: trusted, the PASS still counts
    ],
)
def test_the_state_dir_is_distrusted_when_others_can_write_it_not_the_group(
    project: Project, mode: int, step: str
) -> None:
    _green(project)
    Path(project.state).chmod(mode)  # the setup under test
    assert project.pre(UNIT).step == step


def test_an_override_in_an_untrusted_state_dir_is_refused_with_the_reason(
    project: Project,
) -> None:
    Path(project.state).chmod(0o777)
    decision = project.pre("pytest", environ=OVERRIDE)
    assert (decision.action, decision.step) == ("block", "sweep-audit")
    assert "cannot be audited" in decision.message
    assert "writable by other users" in decision.message
    assert project.audit() == []


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_ledger_owned_by_another_user_is_not_trusted(project: Project) -> None:
    _green(project)
    os.chown(Path(project.state) / "verify-ledger.json", 65534, 65534)
    assert project.pre(UNIT).step == "state-distrusted"


def test_an_override_that_cannot_be_audited_is_not_honoured(project: Project) -> None:
    # The audit cannot be written: audit.jsonl unwritable (here: a directory in its place).
    (Path(project.state) / "audit.jsonl").mkdir()
    decision = project.pre("pytest", environ=OVERRIDE)
    assert (decision.action, decision.step) == ("block", "sweep-audit")
    assert "audit.jsonl cannot be written" in decision.message
    assert not project.lock_path.exists()


# ----------------------------------------------------------------- decision order


def _whole_root_suite(project: Project) -> None:
    """A suite that is the whole test root: running it is also a full sweep."""
    (project.root / "pyproject.toml").write_text(
        '[tool.lanes.suites.all]\npaths = ["tests"]\ncommand = "pytest tests"\n',
        encoding="utf-8",
    )
    git(project.root, "commit", "-qam", "one suite")
    project.config = load_config(cwd=project.root)


def test_a_full_sweep_of_a_green_suite_is_decided_by_the_sweep_step(project: Project) -> None:
    _whole_root_suite(project)
    assert project.pre("pytest tests", environ=OVERRIDE).action == "allow"
    project.post("pytest tests")
    assert len(project.audit()) == 1
    # Both the sweep gate and dedup would block: the sweep decides (step 1).
    blocked = project.pre("pytest tests")
    assert (blocked.action, blocked.step) == ("block", "sweep")
    assert len(project.audit()) == 1
    # With the override, the sweep step lets it through; then dedup blocks
    # the re-run of a suite green on this exact tree, so nothing ran and
    # nothing is audited (only overrides that run are audited).
    again = project.pre("pytest tests", environ=OVERRIDE)
    assert (again.action, again.step) == ("block", "dedup")
    assert len(project.audit()) == 1


# ----------------------------------------------------------------- the real exclusive create


def test_the_production_exclusive_create_refuses_an_existing_file(tmp_path: Path) -> None:
    env = OSEnvironment()
    path = str(tmp_path / "test-run.lock")
    assert env.create_exclusive(path, "first\n") is True
    assert env.create_exclusive(path, "second\n") is False
    assert Path(path).read_text(encoding="utf-8") == "first\n"
    (tmp_path / "link").symlink_to(tmp_path / "victim")
    assert env.create_exclusive(str(tmp_path / "link"), "x") is False
    assert not (tmp_path / "victim").exists()


class RivalAppears(OSEnvironment):
    """The real world, where a writer that bypasses the guard creates the lock
    between our read and our exclusive create."""

    def __init__(self, rival: str) -> None:
        super().__init__()
        self.rival = rival

    def create_exclusive(self, path: str, text: str) -> bool:
        Path(path).write_text(self.rival, encoding="utf-8")
        return super().create_exclusive(path, text)


def _take(env: OSEnvironment, lock: str, session: str) -> AcquireResult:
    return acquire(
        env,
        lock,
        lock + ".guard",
        suite="unit",
        agent="claude",
        session_tail=session,
        agent_pid=os.getpid(),
        command=UNIT,
    )


def test_a_rival_appearing_mid_acquire_makes_it_raced(tmp_path: Path) -> None:
    lock = str(tmp_path / "test-run.lock")
    holder = _take(OSEnvironment(), str(tmp_path / "other.lock"), "rival-sess")
    assert holder.record is not None
    rival = holder.record.serialise()
    result = _take(RivalAppears(rival), lock, "our-session")
    assert (result.acquired, result.why) == (False, "raced")
    assert result.holder == holder.record
    assert Path(lock).read_text(encoding="utf-8") == rival  # the rival's file wins


def test_a_guard_that_cannot_be_taken_never_ignores_a_live_holder(tmp_path: Path) -> None:
    env = OSEnvironment()
    lock = str(tmp_path / "test-run.lock")
    Path(lock + ".guard").mkdir()  # the sidecar cannot be opened
    first = _take(env, lock, "session-one")
    assert (first.acquired, first.why) == (True, "free")  # the exclusive create alone
    second = _take(env, lock, "session-two")
    assert (second.acquired, second.why) == (False, "held")
    assert first.record is not None
    # Released only under the guard: unguarded, a sibling's lock taken between
    # our read and our unlink would be deleted (found by the torture lane).
    assert not release(env, lock, lock + ".guard", token=first.record.token)
    assert inspect(env, lock).status == "held"


def test_a_guard_that_cannot_be_taken_never_breaks_a_stale_lock(tmp_path: Path) -> None:
    env = OSEnvironment()
    lock = str(tmp_path / "test-run.lock")
    Path(lock).write_text("garbage", encoding="utf-8")
    Path(lock + ".guard").mkdir()
    result = _take(env, lock, "session-one")
    assert (result.acquired, result.why) == (False, "unguarded")
    assert Path(lock).read_text(encoding="utf-8") == "garbage"


def test_the_gate_blocks_on_a_live_holder_even_without_the_guard(project: Project) -> None:
    assert project.pre(UNIT).action == "allow"  # session A holds the lock
    guard = Path(project.lock_path.as_posix() + ".guard")
    guard.unlink()
    guard.mkdir()
    decision = project.pre(UNIT, session=SESSION_B)
    assert (decision.action, decision.step) == ("block", "lock")


# ----------------------------------------------------------------- the ledger's symlink test


def test_a_symlink_at_the_ledger_path_is_never_written_through(tmp_path: Path) -> None:
    env = OSEnvironment()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    ledger = tmp_path / "verify-ledger.json"
    ledger.symlink_to(victim)
    assert ledger_mod.read(env, str(ledger)) == {}  # refused, not followed
    entry = ledger_mod.LedgerEntry(
        status="PASS", ts=env.now(), git_head="a" * 40, dirty_digest=ledger_mod.CLEAN
    )
    ledger_mod.record(env, str(ledger), str(ledger) + ".lock", "unit", entry)
    assert victim.read_text(encoding="utf-8") == "precious"
    assert not ledger.is_symlink()
    assert json.loads(ledger.read_text(encoding="utf-8"))["unit"]["status"] == "PASS"
