"""The run lock: record format, liveness rule, acquisition, release, races."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from lanes.errors import LanesError
from lanes.governor.state.env import UNKNOWN_START, OSEnvironment
from lanes.governor.state.lock import (
    AcquireResult,
    LockError,
    LockRecord,
    acquire,
    inspect,
    owner_dead,
    parse_lock,
    release,
)

RACER = Path(__file__).with_name("lock_racer.py")
TOKEN = "t0k3n"  # noqa: S105  # a lock token, not a password
OTHER_TOKEN = "someone-else"  # noqa: S105  # same


class ShiftedClock(OSEnvironment):
    """The real world, ``offset`` seconds later."""

    def __init__(self, offset: float) -> None:
        super().__init__()
        self.offset = offset

    def now(self) -> float:
        return super().now() + self.offset


@pytest.fixture
def env() -> OSEnvironment:
    return OSEnvironment()


@pytest.fixture
def paths(tmp_path: Path) -> tuple[str, str]:
    lock = str(tmp_path / "test-run.lock")
    return lock, lock + ".guard"


def take(
    env: OSEnvironment,
    paths: tuple[str, str],
    session: str,
    *,
    pid: int | None = None,
    ttl: float = 1800,
) -> AcquireResult:
    return acquire(
        env,
        *paths,
        suite="unit",
        agent="claude",
        session_tail=session,
        agent_pid=os.getpid() if pid is None else pid,
        command="pytest tests/unit -q",
        ttl=ttl,
    )


def token_of(result: AcquireResult) -> str:
    assert result.record is not None
    return result.record.token


def write_record(path: str, **changes: object) -> LockRecord:
    env = OSEnvironment()
    fields: dict[str, object] = {
        "suite": "unit",
        "agent": "codex",
        "session_tail": "other-sess",
        "agent_pid": os.getpid(),
        "agent_start": env.process_start(os.getpid()),
        "boot_id": env.boot_id(),
        "host": env.host(),
        "started_ts": env.now(),
        "token": TOKEN,
        "command": "pytest tests/unit",
    }
    fields.update(changes)
    Path(path).write_text(json.dumps(fields), encoding="utf-8")
    return parse_lock(json.dumps(fields))


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


# ----------------------------------------------------------------- the record


def test_record_round_trips(env: OSEnvironment, paths: tuple[str, str]) -> None:
    result = take(env, paths, "sess-a")
    assert result.acquired
    record = parse_lock(Path(paths[0]).read_text(encoding="utf-8"))
    assert record == result.record
    assert set(record.to_dict()) == {
        "suite", "agent", "session_tail", "agent_pid", "agent_start",
        "boot_id", "host", "started_ts", "token", "command",
    }  # fmt: skip
    assert parse_lock(record.serialise()) == record


_STRINGS = ("suite", "agent", "session_tail", "agent_start", "boot_id", "host", "token", "command")
_VALID: dict[str, object] = {**dict.fromkeys(_STRINGS, "x"), "agent_pid": 1, "started_ts": 1.0}


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[]",
        "null",
        '{"suite": "unit"}',
        json.dumps({**_VALID, "agent_pid": True}),
        json.dumps({**_VALID, "agent_pid": "12"}),
        json.dumps({**_VALID, "started_ts": "yesterday"}),
        json.dumps({**_VALID, "suite": 1}),
        json.dumps({**_VALID, "token": None}),
        json.dumps(_VALID).replace("1.0", "1e400"),
    ],
)
def test_garbage_is_a_typed_error_with_a_hint(text: str) -> None:
    with pytest.raises(LockError) as info:
        parse_lock(text)
    assert isinstance(info.value, LanesError)
    assert isinstance(info.value, ValueError)
    assert info.value.hint.strip()


def test_extra_fields_from_a_newer_writer_are_tolerated(paths: tuple[str, str]) -> None:
    record = write_record(paths[0], future_field=[1, 2])
    assert parse_lock(Path(paths[0]).read_text(encoding="utf-8")) == record


# ----------------------------------------------------------------- acquire / held


def test_first_caller_acquires_and_second_session_is_refused(
    env: OSEnvironment, paths: tuple[str, str]
) -> None:
    first = take(env, paths, "sess-a")
    second = take(env, paths, "sess-b")
    assert first.acquired
    assert not second.acquired
    assert second.why == "held"
    assert second.holder == first.record
    assert inspect(env, paths[0]).status == "held"


def test_own_session_reclaims_at_once(env: OSEnvironment, paths: tuple[str, str]) -> None:
    first = take(env, paths, "sess-a")
    again = take(env, paths, "sess-a")
    assert again.acquired
    assert again.why == "own-session"
    assert token_of(again) != token_of(first)


def test_an_empty_session_never_reclaims_another_empty_session(
    env: OSEnvironment, paths: tuple[str, str]
) -> None:
    assert take(env, paths, "").acquired
    assert not take(env, paths, "").acquired


def test_ttl_bounds_a_live_owner(paths: tuple[str, str]) -> None:
    take(OSEnvironment(), paths, "sess-a", ttl=600)
    later = ShiftedClock(601)
    assert inspect(later, paths[0], ttl=600).status == "expired"
    result = take(later, paths, "sess-b", ttl=600)
    assert result.acquired
    assert result.why == "expired"


def test_a_start_far_in_the_future_does_not_hold_forever(paths: tuple[str, str]) -> None:
    write_record(paths[0], started_ts=OSEnvironment().now() + 10_000)
    assert inspect(OSEnvironment(), paths[0], ttl=1800).status == "expired"


# ----------------------------------------------------------------- liveness


def test_a_gone_pid_on_this_host_and_boot_is_dead(
    env: OSEnvironment, paths: tuple[str, str]
) -> None:
    record = write_record(paths[0], agent_pid=dead_pid())
    assert owner_dead(env, record)
    assert inspect(env, paths[0]).status == "owner-dead"
    result = take(env, paths, "sess-b")
    assert result.acquired
    assert result.why == "owner-dead"


def test_a_reused_pid_with_another_start_time_is_dead(
    env: OSEnvironment, paths: tuple[str, str]
) -> None:
    # Our own pid is alive, but the record says it started at another time:
    # the pid was recycled, the owner is gone.
    record = write_record(paths[0], agent_pid=os.getpid(), agent_start="1")
    assert owner_dead(env, record)
    assert take(env, paths, "sess-b").acquired


def test_the_same_pid_and_start_is_alive(env: OSEnvironment, paths: tuple[str, str]) -> None:
    record = write_record(paths[0])
    assert not owner_dead(env, record)
    assert not take(env, paths, "sess-b").acquired


@pytest.mark.parametrize("start", [UNKNOWN_START, ""])
def test_an_unknown_recorded_start_counts_as_alive(env: OSEnvironment, start: str) -> None:
    record = LockRecord(
        suite="unit", agent="a", session_tail="s", agent_pid=os.getpid(), agent_start=start,
        boot_id=env.boot_id(), host=env.host(), started_ts=env.now(), token=TOKEN, command="c",
    )  # fmt: skip
    assert not owner_dead(env, record)


@pytest.mark.parametrize("field", ["host", "boot_id"])
def test_another_hosts_lock_is_not_broken_before_its_ttl(
    paths: tuple[str, str], field: str
) -> None:
    # Its pid is gone *here*, which says nothing about the machine it ran on.
    write_record(paths[0], agent_pid=dead_pid(), **{field: "elsewhere"})
    env = OSEnvironment()
    assert inspect(env, paths[0]).status == "held"
    assert not take(env, paths, "sess-b").acquired
    later = ShiftedClock(1801)
    assert take(later, paths, "sess-b").acquired


@pytest.mark.integration
def test_a_sigkilled_owner_is_replaced_at_once(env: OSEnvironment, paths: tuple[str, str]) -> None:
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert take(env, paths, "sess-owner", pid=owner.pid).acquired
        assert not take(env, paths, "sess-b").acquired
        owner.send_signal(signal.SIGKILL)
        owner.wait()
        result = take(env, paths, "sess-b")
        assert result.acquired
        assert result.why == "owner-dead"
    finally:
        owner.kill()
        owner.wait()


# ----------------------------------------------------------------- damage


def test_an_unreadable_lock_fails_open(env: OSEnvironment, paths: tuple[str, str]) -> None:
    Path(paths[0]).write_text("{half a rec", encoding="utf-8")
    assert inspect(env, paths[0]).status == "unreadable"
    result = take(env, paths, "sess-a")
    assert result.acquired
    assert result.why == "unreadable"


def test_a_planted_symlink_is_neither_followed_nor_written_through(
    env: OSEnvironment, paths: tuple[str, str], tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    Path(paths[0]).symlink_to(victim)
    assert inspect(env, paths[0]).status == "unreadable"
    assert take(env, paths, "sess-a").acquired
    assert victim.read_text(encoding="utf-8") == "precious"
    assert not Path(paths[0]).is_symlink()


# ----------------------------------------------------------------- release


def test_release_deletes_only_a_lock_with_our_token(
    env: OSEnvironment, paths: tuple[str, str]
) -> None:
    mine = take(env, paths, "sess-a")
    assert not release(env, *paths, token=OTHER_TOKEN)
    assert Path(paths[0]).exists()
    assert release(env, *paths, token=token_of(mine))
    assert not Path(paths[0]).exists()
    assert not release(env, *paths, token=token_of(mine))


def test_a_late_release_does_not_free_the_successors_lock(paths: tuple[str, str]) -> None:
    env = OSEnvironment()
    old = take(env, paths, "sess-a", ttl=60)
    later = ShiftedClock(61)
    successor = take(later, paths, "sess-b", ttl=60)
    assert successor.acquired
    assert not release(later, *paths, token=token_of(old))
    assert parse_lock(Path(paths[0]).read_text(encoding="utf-8")) == successor.record


def test_release_of_garbage_or_nothing_is_false(env: OSEnvironment, paths: tuple[str, str]) -> None:
    assert not release(env, *paths, token=OTHER_TOKEN)
    Path(paths[0]).write_text("garbage", encoding="utf-8")
    assert not release(env, *paths, token=OTHER_TOKEN)


# ----------------------------------------------------------------- races


@pytest.mark.integration
def test_two_processes_racing_exactly_one_wins_every_round(tmp_path: Path) -> None:
    rounds = 150
    procs = [
        subprocess.Popen(
            [sys.executable, str(RACER), str(tmp_path), me, other, str(rounds)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for me, other in (("a", "b"), ("b", "a"))
    ]
    outputs = [proc.communicate(timeout=60)[0] for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0]
    won = [dict(line.split() for line in out.splitlines()) for out in outputs]
    for r in range(rounds):
        assert int(won[0][str(r)]) + int(won[1][str(r)]) == 1, (
            f"round {r}: {won[0][str(r)]}, {won[1][str(r)]}"
        )
