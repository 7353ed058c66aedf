"""What `inspect` reports for each lock state, at the TTL's edges, and what a damaged record says.

Written to kill the mutants the mutation lane found surviving in the lock
(docs/how-to/mutation.md): the age and record each state carries, the
TTL's closed bounds, and error messages that name the field and the value.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import pytest

from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.lock import LockError, LockRecord, inspect, parse_lock

if TYPE_CHECKING:
    from pathlib import Path

STARTED = 1_000_000.0
TTL = 100.0


class FrozenClock(OSEnvironment):
    """The real process table and host, at a fixed time."""

    def __init__(self, now: float) -> None:
        super().__init__()
        self._now = now

    def now(self) -> float:
        return self._now


def _record(env: OSEnvironment, **changes: object) -> dict[str, object]:
    fields: dict[str, object] = {
        "suite": "unit",
        "agent": "claude",
        "session_tail": "abcd",
        "agent_pid": os.getpid(),
        "agent_start": env.process_start(os.getpid()) or "",
        "boot_id": env.boot_id(),
        "host": env.host(),
        "started_ts": STARTED,
        "token": "t-1",
        "command": "pytest -q",
    }
    fields.update(changes)
    return fields


def _inspect_at(tmp_path: Path, age: float, **changes: object) -> tuple[str, object, object]:
    env = FrozenClock(STARTED + age)
    path = tmp_path / "run.lock"
    path.write_text(json.dumps(_record(env, **changes)), encoding="utf-8")
    state = inspect(env, str(path), ttl=TTL)
    return state.status, state.age, state.record


def test_an_absent_lock_is_absent_with_nothing_else(tmp_path: Path) -> None:
    state = inspect(FrozenClock(STARTED), str(tmp_path / "none.lock"), ttl=TTL)
    assert (state.status, state.record, state.age) == ("absent", None, None)


@pytest.mark.parametrize(
    ("age", "status"),
    [
        (TTL - 1, "held"),
        (TTL, "expired"),  # the TTL is a closed bound on both sides
        (-TTL + 1, "held"),
        (-TTL, "expired"),
    ],
)
def test_the_ttl_bounds_the_age_inclusively(tmp_path: Path, age: float, status: str) -> None:
    seen, seen_age, record = _inspect_at(tmp_path, age)
    assert (seen, seen_age) == (status, age)
    assert isinstance(record, LockRecord)
    assert record.session_tail == "abcd"


def test_a_dead_owners_lock_carries_its_record_and_age(tmp_path: Path) -> None:
    # Same host and boot, a start time the pid does not have: a reused pid.
    status, age, record = _inspect_at(tmp_path, 5.0, agent_start="not-this-start")
    assert (status, age) == ("owner-dead", 5.0)
    assert isinstance(record, LockRecord)
    assert record.agent_start == "not-this-start"


def test_a_record_serialises_with_sorted_keys() -> None:
    record = parse_lock(json.dumps(_record(OSEnvironment())))
    text = record.serialise()
    assert text.endswith("}\n")
    assert list(json.loads(text)) == sorted(json.loads(text))
    assert text.index('"agent"') < text.index('"command"') < text.index('"suite"')


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"agent_pid": -1}, "agent_pid must be an integer from 0 to 2**31-1, got -1"),
        ({"agent_pid": 2**31}, f"agent_pid must be an integer from 0 to 2**31-1, got {2**31}"),
        ({"agent_pid": True}, "agent_pid must be an integer from 0 to 2**31-1, got True"),
        ({"started_ts": "soon"}, "started_ts must be a finite number, got 'soon'"),
        ({"token": 7}, "token must be a string, got 7"),
    ],
)
def test_a_damaged_field_is_named_with_its_value(changes: dict[str, object], message: str) -> None:
    with pytest.raises(LockError) as excinfo:
        parse_lock(json.dumps(_record(OSEnvironment(), **changes)))
    assert str(excinfo.value) == f"run lock file is not a lock record: {message}"
    assert excinfo.value.hint == (
        "the file was not written by lanekit or is damaged; `lanes governor unlock` removes it"
    )


def test_a_missing_field_is_named() -> None:
    fields = _record(OSEnvironment())
    del fields["host"]
    with pytest.raises(
        LockError, match=r"^run lock file is not a lock record: missing field 'host'$"
    ):
        parse_lock(json.dumps(fields))


@pytest.mark.parametrize("pid", [0, 2**31 - 1])
def test_the_pid_range_is_closed_at_both_ends(pid: int) -> None:
    assert parse_lock(json.dumps(_record(OSEnvironment(), agent_pid=pid))).agent_pid == pid


def test_text_that_is_no_record_says_what_it_is() -> None:
    with pytest.raises(LockError) as excinfo:
        parse_lock("[1]")
    assert str(excinfo.value) == (
        "run lock file is not a lock record: the text must hold a JSON object, got list"
    )
