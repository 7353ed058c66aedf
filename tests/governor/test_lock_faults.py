"""The run lock off its happy path: rivals that bypass the guard, a guard that
cannot be taken, errors while the guard is held, and what the debug log says.

Written to kill the mutants the mutation lane found surviving in ``acquire``'s
code paths (docs/how-to/mutation.md). Each test drives the real lock
through the real file system; only the moment a rival writes is staged.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.lock import AcquireResult, LockRecord, acquire, parse_lock, release

TTL = 600.0


@pytest.fixture
def lock(tmp_path: Path) -> str:
    return str(tmp_path / "test-run.lock")


@pytest.fixture
def debug_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LANES_DEBUG", "1")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "lanekit" / "debug.jsonl"


def _events(log: Path) -> list[dict[str, object]]:
    lines = log.read_text(encoding="utf-8").splitlines()
    return [{k: v for k, v in json.loads(line).items() if k not in ("ts", "pid")} for line in lines]


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _rival(session: str, **changes: object) -> LockRecord:
    """Another agent's lock record: alive (this process) and fresh unless changed."""
    env = OSEnvironment()
    fields: dict[str, object] = {
        "suite": "unit",
        "agent": "codex",
        "session_tail": session,
        "agent_pid": os.getpid(),
        "agent_start": env.process_start(os.getpid()),
        "boot_id": env.boot_id(),
        "host": env.host(),
        "started_ts": env.now(),
        "token": f"token-of-{session}",
        "command": "pytest tests/unit",
    }
    fields.update(changes)
    return parse_lock(json.dumps(fields))


def _stale(session: str) -> LockRecord:
    return _rival(session, started_ts=OSEnvironment().now() - 2 * TTL)


def _take(env: OSEnvironment, lock: str, session: str) -> AcquireResult:
    return acquire(
        env,
        lock,
        lock + ".guard",
        suite="unit",
        agent="claude",
        session_tail=session,
        agent_pid=os.getpid(),
        command="pytest tests/unit -q",
        ttl=TTL,
    )


def _on_disk(lock: str) -> LockRecord:
    return parse_lock(Path(lock).read_text(encoding="utf-8"))


class Rivals(OSEnvironment):
    """The real world, where a writer that bypasses the guard creates the lock
    just before each of our exclusive creates, one rival per create, until the
    list runs out."""

    def __init__(self, *rivals: LockRecord) -> None:
        super().__init__()
        self.rivals = list(rivals)

    def create_exclusive(self, path: str, text: str) -> bool:
        if self.rivals:
            Path(path).write_text(self.rivals.pop(0).serialise(), encoding="utf-8")
        return super().create_exclusive(path, text)


class FailsOnce(OSEnvironment):
    """The real world, where one file-system call fails once (a full disk, a
    permission taken away) while the guard is held."""

    def __init__(self, call: str, error: OSError) -> None:
        super().__init__()
        self.call = call
        self.error: OSError | None = error

    def _fail(self, call: str) -> None:
        if call == self.call and self.error is not None:
            error, self.error = self.error, None
            raise error

    def create_exclusive(self, path: str, text: str) -> bool:
        self._fail("create_exclusive")
        return super().create_exclusive(path, text)

    def unlink(self, path: str) -> bool:
        self._fail("unlink")
        return super().unlink(path)


def _unguarded(lock: str) -> str:
    """Make the guard impossible to take (a directory in its place) and
    return what taking it says."""
    guard = lock + ".guard"
    Path(guard).mkdir()
    with pytest.raises(IsADirectoryError) as taken, OSEnvironment().locked(guard):
        pass
    return str(taken.value)


# ----------------------------------------------------------------- with the guard


def test_a_free_lock_is_taken_as_free_with_the_agents_start_time(lock: str) -> None:
    env = OSEnvironment()
    result = _take(env, lock, "sess-a")
    assert (result.acquired, result.why, result.holder) == (True, "free", None)
    assert result.record == _on_disk(lock)
    # The real start time, so a pid reused after a crash is told from us.
    assert result.record.agent_start == env.process_start(os.getpid())


def test_a_refusal_says_acquired_false_not_just_falsy(lock: str) -> None:
    holder = _take(OSEnvironment(), lock, "sess-a")
    refused = _take(OSEnvironment(), lock, "sess-b")
    assert refused.acquired is False
    assert (refused.why, refused.holder, refused.record) == ("held", holder.record, None)


@pytest.mark.parametrize("why", ["expired", "owner-dead"])
def test_a_stale_lock_created_mid_acquire_is_broken_and_ours_written(lock: str, why: str) -> None:
    if why == "expired":
        rival = _stale("late-writer")
    else:
        rival = _rival("dead-writer", agent_pid=_dead_pid())
    result = _take(Rivals(rival), lock, "our-session")
    assert result.acquired is True
    assert (result.why, result.holder) == (why, None)
    assert result.record is not None
    assert result.record.session_tail == "our-session"
    assert _on_disk(lock) == result.record


def test_a_live_lock_created_mid_acquire_wins_and_is_never_broken(lock: str) -> None:
    rival = _rival("rival-sess")
    result = _take(Rivals(rival), lock, "our-session")
    assert result.acquired is False
    assert (result.why, result.holder, result.record) == ("raced", rival, None)
    assert _on_disk(lock) == rival


def test_a_second_rival_after_breaking_a_stale_one_wins(lock: str) -> None:
    stale, live = _stale("late-writer"), _rival("second-rival")
    result = _take(Rivals(stale, live), lock, "our-session")
    assert result.acquired is False
    assert (result.why, result.holder) == ("raced", live)
    assert _on_disk(lock) == live


def test_an_error_while_writing_under_the_guard_is_raised_not_run_unguarded(lock: str) -> None:
    env = FailsOnce("create_exclusive", OSError(errno.ENOSPC, "No space left on device"))
    with pytest.raises(OSError, match="No space left"):
        _take(env, lock, "sess-a")
    assert not Path(lock).exists()


# ----------------------------------------------------------------- without the guard


def test_without_the_guard_our_own_sessions_lock_is_neither_reclaimed_nor_held(
    lock: str,
) -> None:
    _unguarded(lock)
    mine = _take(OSEnvironment(), lock, "sess-a")
    again = _take(OSEnvironment(), lock, "sess-a")
    assert again.acquired is False
    assert (again.why, again.holder) == ("unguarded", mine.record)


def test_without_the_guard_a_live_holder_is_named(lock: str) -> None:
    _unguarded(lock)
    holder = _take(OSEnvironment(), lock, "sess-a")
    refused = _take(OSEnvironment(), lock, "sess-b")
    assert (refused.acquired, refused.why, refused.holder) == (False, "held", holder.record)


def test_without_the_guard_an_empty_session_never_takes_another_empty_sessions_lock(
    lock: str,
) -> None:
    _unguarded(lock)
    holder = _take(OSEnvironment(), lock, "")
    refused = _take(OSEnvironment(), lock, "")
    assert (refused.acquired, refused.why, refused.holder) == (False, "held", holder.record)


def test_without_the_guard_a_stale_lock_is_left_and_its_record_returned(lock: str) -> None:
    _unguarded(lock)
    stale = _stale("crashed")
    Path(lock).write_text(stale.serialise(), encoding="utf-8")
    result = _take(OSEnvironment(), lock, "sess-a")
    assert (result.acquired, result.why, result.holder) == (False, "unguarded", stale)
    assert _on_disk(lock) == stale


def test_without_the_guard_a_rival_created_mid_acquire_wins(lock: str) -> None:
    _unguarded(lock)
    rival = _rival("rival-sess")
    result = _take(Rivals(rival), lock, "our-session")
    assert result.acquired is False
    assert (result.why, result.holder, result.record) == ("raced", rival, None)
    assert _on_disk(lock) == rival


def test_a_guard_that_cannot_be_taken_is_in_the_debug_log(lock: str, debug_log: Path) -> None:
    error = _unguarded(lock)
    result = _take(OSEnvironment(), lock, "sess-a")
    assert result.acquired
    assert result.record is not None
    assert not release(OSEnvironment(), lock, lock + ".guard", token=result.record.token)
    assert _events(debug_log) == [
        {"event": "lock-guard-unavailable", "path": lock, "error": error},
        {"event": "lock-release-skipped", "path": lock, "error": error},
    ]


# ----------------------------------------------------------------- release


def test_an_error_while_deleting_under_the_guard_is_raised(lock: str) -> None:
    mine = _take(OSEnvironment(), lock, "sess-a")
    assert mine.record is not None
    env = FailsOnce("unlink", PermissionError(errno.EACCES, "Permission denied"))
    with pytest.raises(PermissionError):
        release(env, lock, lock + ".guard", token=mine.record.token)
    assert _on_disk(lock) == mine.record
