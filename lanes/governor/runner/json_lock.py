"""The hook's JSON run lock, as the runner plugin sees it: a non-Python heavy run.

A governed pytest holds the kernel run lock (:mod:`lanes.governor.state.runlock`)
for its heavy runs; the runs pytest cannot hold it for — ``npm test``, ``cargo
test``, ``make verify`` — hold the hook's JSON lock
(:mod:`lanes.governor.state.lock`) instead. "Never two heavy runs" spans both,
so a heavy pytest run refuses while the JSON lock is held, by the JSON lock's
own liveness rule (:func:`lanes.governor.state.lock.inspect`: the TTL, and the
owner's pid and start time), unless the holder is this run's own:

- the same agent session (the JSON lock's own reclaim rule), when the agent
  exposes its session to the shell; or
- the owning agent process is an ancestor of this pytest: its own hook took
  the lock for this very command (``LANES_FULL_SWEEP_OK=1 pytest``), or a
  wrapper this agent started runs pytest inside (``nox -s tests``, ``make
  verify``). A process cannot wait for itself.

Ordering against the hook (which acquires the JSON lock and then probes the
kernel lock, :func:`lanes.governor.policy.gate.decide_pre`): the plugin takes
the kernel lock first and then reads the JSON lock. Each side takes its own
lock before it looks at the other's, so in any interleaving at least one of
two racing heavy runs sees the other and stops.
"""

from __future__ import annotations

import os

from lanes.governor.state import lock as lock_mod
from lanes.governor.state.env import UNKNOWN_START
from lanes.governor.state.owner import parent_of

TYPE_CHECKING = False  # not typing.TYPE_CHECKING, as everywhere in the governor
if TYPE_CHECKING:
    from lanes.governor.state.env import Environment
    from lanes.governor.state.lock import LockRecord

__all__ = ["foreign_holder", "refusal"]

# Deeper than agent -> shell -> wrapper -> ... -> pytest ever nests.
_MAX_DEPTH = 32


def _is_ancestor(env: Environment, record: LockRecord) -> bool:
    """Whether the lock's owning agent process is an ancestor of this one
    (the same pid with the recorded start time: a reused pid is not it)."""
    if record.host != env.host() or record.boot_id != env.boot_id():
        return False
    pid = os.getpid()
    for _ in range(_MAX_DEPTH):
        info = parent_of(pid)
        if info is None or info[0] <= 0 or info[0] == pid:
            return False
        pid = info[0]
        if pid == record.agent_pid:
            start = env.process_start(pid)
            return record.agent_start in ("", UNKNOWN_START) or start == record.agent_start
    return False


def foreign_holder(
    env: Environment, lock_path: str, *, ttl: float, session_tail: str
) -> LockRecord | None:
    """The live holder of the JSON run lock at ``lock_path`` when it is not
    this run's own (module docstring), else None."""
    state = lock_mod.inspect(env, lock_path, ttl=ttl)
    record = state.record
    if state.status != "held" or record is None:
        return None
    if session_tail and record.session_tail == session_tail:
        return None
    if _is_ancestor(env, record):
        return None
    return record


def refusal(record: LockRecord, now: float, ttl: float) -> str:
    """The message of a heavy pytest run the JSON lock refuses."""
    from lanes.governor.policy.gate import ago
    from lanes.governor.state.shown import shown

    age = record.age(now)
    return (
        f"run lock held: {shown(record.agent)} (pid {record.agent_pid}, session "
        f"…{shown(record.session_tail[-4:]) or '????'}) has been running "
        f"{shown(record.suite)} for {ago(age)} (`{shown(record.command.strip(), 120)}`), "
        "a run the hook's lock holds. It frees when that run finishes, when its agent "
        f"exits, or at the latest in {ago(ttl - age)} (lock_ttl). Do something else "
        "meanwhile and retry; `lanes governor status` shows the holder."
    )
