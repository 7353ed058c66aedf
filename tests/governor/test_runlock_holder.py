"""Who holds the kernel run lock, as a refused agent reads it, and the lock's edges.

- The refusal names the holder in one line: agent, pid, the session's tail,
  host, suite, for how long, the command (cut at 120 characters); what the
  holder did not write is said plainly ("an unknown agent", "pid ?", "a heavy
  run"), never invented.
- Releasing clears the holder's text before letting go.
- A reader's shared lock is waited out for a few tries; one held past them
  refuses the run with an unknown holder, never a run without the lock.
- A holder that cannot write its record lets the lock go and raises.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from lanes.governor.context import StatePaths
from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.runlock import Holder, acquire

ENV = OSEnvironment()
FULL = {
    "suite": "unit",
    "agent": "claude",
    "session": "session-1234abcd",
    "pid": 4242,
    "started_ts": 100.0,
    "host": "build-7",
    "command": "pytest tests/unit -q",
}


def test_a_holder_is_named_in_one_line() -> None:
    assert Holder(FULL).describe(130.9) == (
        "claude (pid 4242, session …abcd, host build-7) is running unit for 30 s "
        "(`pytest tests/unit -q`)"
    )


def test_what_the_holder_did_not_write_is_said_plainly() -> None:
    assert Holder({}).describe(10.0) == "an unknown agent (pid ?) is running a heavy run"


def test_a_start_in_the_future_reads_as_just_now() -> None:
    assert (
        Holder({**FULL, "started_ts": 200})
        .describe(100.0)
        .endswith(" is running unit for 0 s (`pytest tests/unit -q`)")
    )


@pytest.mark.parametrize("started", [True, "100", None])
def test_a_start_that_is_not_a_time_is_left_out(started: object) -> None:
    assert " for " not in Holder({**FULL, "started_ts": started}).describe(130.0)


def test_a_long_command_is_cut_at_120_characters() -> None:
    command = "pytest " + "x" * 200
    line = Holder({**FULL, "command": command}).describe(130.0)
    assert line.endswith(f" (`{command[:120]}`)")


@pytest.mark.parametrize("text", ["", "not json", "[1]", "{"])
def test_a_holder_text_that_is_no_record_is_an_unknown_holder(text: str) -> None:
    holder = Holder.parse(text)
    assert holder.fields == dict.fromkeys(FULL)
    assert repr(holder) == f"Holder({dict.fromkeys(FULL)!r})"


def test_release_clears_the_holders_text_before_letting_go(tmp_path: Path) -> None:
    path = str(tmp_path / StatePaths.FLOCK)
    lock, holder = acquire(ENV, path, FULL)
    assert lock is not None
    assert (lock.path, lock.held, holder.fields) == (path, True, FULL)
    assert Holder.parse(Path(path).read_text(encoding="utf-8")).fields == FULL
    lock.release()
    assert (lock.held, Path(path).read_text(encoding="utf-8")) == (False, "")
    lock.release()  # idempotent


class _Probing(OSEnvironment):
    """The world with a reader's shared lock on the file that lets go after ``lets_go`` pauses."""

    def __init__(self, path: str, lets_go: int) -> None:
        super().__init__()
        self.pauses = 0
        self._lets_go = lets_go
        self._reader: int | None = os.open(path, os.O_RDONLY | os.O_CREAT, 0o600)
        fcntl.flock(self._reader, fcntl.LOCK_SH)

    def flock_retry_pause(self) -> None:
        self.pauses += 1
        if self.pauses == self._lets_go and self._reader is not None:
            os.close(self._reader)
            self._reader = None

    def close(self) -> None:
        if self._reader is not None:
            os.close(self._reader)


def test_a_reader_that_lets_go_in_time_does_not_refuse_the_run(tmp_path: Path) -> None:
    path = str(tmp_path / StatePaths.FLOCK)
    env = _Probing(path, lets_go=1)
    lock, _ = acquire(env, path, FULL)
    assert lock is not None
    assert env.pauses == 1
    lock.release()


def test_a_reader_past_every_try_refuses_the_run_with_an_unknown_holder(tmp_path: Path) -> None:
    path = str(tmp_path / StatePaths.FLOCK)
    env = _Probing(path, lets_go=99)
    try:
        lock, holder = acquire(env, path, FULL)
    finally:
        env.close()
    assert (lock, holder.fields) == (None, dict.fromkeys(FULL))
    assert env.pauses == 4  # five tries, four pauses between them


class _Unwritable(OSEnvironment):
    def flock_write(self, fd: int, text: str) -> None:
        raise OSError(28, "No space left on device")


def test_a_holder_that_cannot_write_its_record_lets_the_lock_go(tmp_path: Path) -> None:
    path = str(tmp_path / StatePaths.FLOCK)
    with pytest.raises(OSError, match="No space left"):
        acquire(_Unwritable(), path, FULL)
    lock, _ = acquire(ENV, path, FULL)
    assert lock is not None
    lock.release()
