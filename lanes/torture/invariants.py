"""The invariants a simulated run must keep, checked as things happen.

Each check is written against the *model* (who is alive, what each client
was granted, what was written when), never by asking the governor's own
functions for their opinion: a bug in ``owner_dead`` must not be able to
vouch for itself.

1. ``mutual-exclusion``: two clients are never in the critical section while
   both hold an unexpired lock. Overlap after a live holder's TTL expired is
   the TTL's documented trade-off: counted (``ttl_overlaps``), not failed —
   except past a governed pytest's kernel run lock, which has no TTL: a run
   whose PreToolUse began after that lock was taken never joins it, on
   either layer.
2. ``liveness``: a lock whose owner is provably dead, or whose TTL has
   passed, or that the caller's own session holds, never blocks an acquire;
   no deadlock (checked by the harness); the end-of-run probe can always
   take the lock.
3. ``foreign-lock``: no client removes or overwrites a live lock it does not
   own (breaking an expired, dead-owner or own-session lock is allowed).
4. ``ledger``: every write parses; no lost update (each suite's entry is the
   one its latest write put there); a PASS is never fresh for a tree state
   other than the one it was recorded on; a forced run is never deduplicated.
5. ``end``: no lock is left behind once the probe has run (nor a kernel lock).
6. ``runner-lock``: a governed pytest run holds the kernel run lock from the
   moment it enters its run until it leaves it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lanes.torture.kernel import Decision
    from lanes.torture.world import Client, World

__all__ = [
    "breakable",
    "check_decision",
    "check_overlap",
    "check_runner_lock",
    "ledger_written",
    "lock_created",
    "lock_overwritten",
    "lock_record",
    "lock_removed",
]


def lock_record(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def breakable(world: World, client: Client, record: dict[str, Any]) -> str | None:
    """Why ``client`` may remove ``record`` right now, or None if it may not."""
    if record.get("token") in client.tokens:
        return "own token"
    started = record.get("started_ts")
    if not isinstance(started, int | float):
        return "damaged"
    age = world.now - started
    if age >= world.ttl or age <= -world.ttl:
        return "expired"
    if record.get("session_tail") and record.get("session_tail") == client.session:
        return "own session"
    if record.get("host") == client.host and record.get("boot_id") == client.boot:
        pid = record.get("agent_pid")
        start = record.get("agent_start")
        if isinstance(pid, int) and world.process_start(client.host, pid) != start:
            return "owner dead"
    return None


def _owner(world: World, record: dict[str, Any]) -> str:
    token = record.get("token")
    who = next((c.id for c in world.clients if token in c.tokens), None)
    return f"client {who}" if who is not None else f"token {token!r}"


def lock_created(world: World, client: Client, text: str) -> None:
    world.lock_text = text
    record = lock_record(text)
    if record is not None and isinstance(record.get("token"), str):
        client.tokens.add(record["token"])


def lock_overwritten(world: World, client: Client, text: str) -> None:
    previous = lock_record(world.lock_text)
    if previous is not None and breakable(world, client, previous) is None:
        world.violate(
            "foreign-lock",
            f"client {client.id} overwrote the live lock of {_owner(world, previous)} "
            f"(suite {previous.get('suite')!r}, age {world.now - previous['started_ts']:.0f}s)",
        )
    lock_created(world, client, text)


def lock_removed(world: World, client: Client) -> None:
    previous = lock_record(world.lock_text)
    if previous is not None and breakable(world, client, previous) is None:
        world.violate(
            "foreign-lock",
            f"client {client.id} removed the live lock of {_owner(world, previous)} "
            f"(suite {previous.get('suite')!r}, age {world.now - previous['started_ts']:.0f}s)",
        )
    world.lock_text = None


def ledger_written(world: World, client: Client, text: str) -> None:
    try:
        document = json.loads(text)
    except ValueError as exc:
        world.violate("ledger", f"client {client.id} wrote a ledger that is not JSON: {exc}")
        return
    if not isinstance(document, dict):
        world.violate("ledger", f"client {client.id} wrote a ledger that is not an object")
        return
    if client.recording is not None:
        suite, entry = client.recording
        world.last_written[suite] = entry
    for suite, entry in world.last_written.items():
        landed = document.get(suite)
        if not isinstance(landed, dict) or any(landed.get(k) != v for k, v in entry.items()):
            world.violate(
                "ledger",
                f"lost update: client {client.id}'s write dropped suite {suite!r}'s latest "
                f"entry {entry!r} (the file has {landed!r})",
            )


def check_ledger_seen(world: World) -> None:
    """The ledger on disk is the last one written through the environment.

    Torture sees only the writes that pass through its modelled seam; a
    writer that bypasses it (a direct, in-place write) would make the lane
    blind instead of red. So every record is counted as a seen write, and
    the file must always hold the last of them.
    """
    try:
        with open(world.paths.ledger, encoding="utf-8", errors="replace") as handle:
            on_disk: str | None = handle.read()
    except FileNotFoundError:
        on_disk = None
    except OSError as exc:
        world.violate("ledger", f"the ledger cannot be read back: {exc}")
        return
    if on_disk != world.ledger_seen:
        world.violate(
            "ledger",
            "the ledger on disk is not the last write the environment saw: "
            "something wrote it without Environment.replace (in place, not atomically)",
        )


def check_unguarded(world: World, client: Client) -> None:
    """A run let through unlocked because the guard could not be taken: never
    past a live holder's lock it read. A holder that
    took the lock after the read is the documented cost of running unguarded,
    as with any run that fails open."""
    record = lock_record(client.last_lock_text)
    if record is None:
        return
    started = record.get("started_ts")
    # Modelled time moves only between ops, so "now" is when the lock was read.
    live = isinstance(started, int | float) and world.now - started < world.ttl
    holders = [c for c in world.in_cs if c.cs_token == record.get("token")]
    if live and holders:
        world.violate(
            "lock",
            f"client {client.id} ran unlocked past client {holders[0].id}'s live lock "
            "because the guard could not be taken",
        )


def check_released(world: World, client: Client) -> None:
    """After a finished run whose ledger write failed: its lock is gone (release
    never depends on recording: a failed write must not leave every sibling blocked)."""
    record = lock_record(world.lock_text)
    if record is not None and record.get("token") == client.cs_token:
        world.violate(
            "release",
            f"client {client.id}'s run finished but its lock ({client.cs_token}) is still "
            "held after a failed ledger write: every sibling waits until lock_ttl",
        )


def check_runner_lock(world: World, client: Client) -> None:
    """A governed pytest in its run holds the kernel run lock (asked of the
    modelled flock table, not of the lock's own code)."""
    holder = world.kernel_holder(world.paths.flock)
    if holder != client.id:
        who = "nobody" if holder is None else f"client {holder}"
        world.violate(
            "runner-lock",
            f"client {client.id}'s governed pytest is inside its run without the kernel "
            f"run lock (held by {who}): the plugin must hold it for the whole run",
        )


def _past_kernel_lock(world: World, first: Client, second: Client) -> str | None:
    """Why ``second`` joined ``first``'s run past its kernel lock, or None."""
    path = world.paths.flock
    since = world.kheld_since.get(path)
    if since is None or world.kernel_holder(path) != first.id or second.pre_step <= since:
        return None
    return (
        f"client {second.id} started a run (its PreToolUse at step {second.pre_step}) while "
        f"client {first.id}'s governed pytest held the kernel run lock (taken at step "
        f"{since}): that lock has no TTL, every heavy run must wait for it"
    )


def check_overlap(world: World) -> None:
    """Mutual exclusion, after every step (only called with >= 2 inside)."""
    inside = world.in_cs
    for i, first in enumerate(inside):
        for second in inside[i + 1 :]:
            past = _past_kernel_lock(world, first, second) or _past_kernel_lock(
                world, second, first
            )
            if past is not None:
                world.violate("mutual-exclusion", past)
                continue
            live = (
                world.now - first.cs_started < world.ttl
                and world.now - second.cs_started < world.ttl
            )
            if live:
                world.violate(
                    "mutual-exclusion",
                    f"clients {first.id} and {second.id} are both running a suite, "
                    f"each holding an unexpired lock ({first.cs_token}, {second.cs_token})",
                )
            else:
                world.note_overlap(first.cs_token, second.cs_token)


def check_decision(
    world: World,
    client: Client,
    *,
    suite: str,
    max_age: int,
    force: bool,
    decision: Decision,
    started_now: float,
    started_step: int,
) -> None:
    """The PreToolUse outcome against what the model knew when the call began."""
    if decision.kind == "dedup":
        if force:
            world.violate("ledger", f"client {client.id}: LANES_TEST_FORCE=1 run deduplicated")
            return
        document = lock_record(client.last_ledger_text) or {}
        entry = document.get(suite)
        ok = (
            isinstance(entry, dict)
            and entry.get("status") == "PASS"
            and entry.get("git_head") == client.head
            and entry.get("dirty_digest") == client.digest
            and isinstance(entry.get("ts"), int | float)
            and started_now - entry["ts"] <= max_age
        )
        if not ok:
            world.violate(
                "ledger",
                f"client {client.id} on tree {client.head}/{client.digest} was told suite "
                f"{suite!r} is green, but the ledger it read has {entry!r}",
            )
        return
    # The lock the decision was based on: the last one this client read. A
    # block by the kernel lock's probe comes after the client took (and gave
    # back) its own JSON lock: the last text it read is then its own record.
    judged = decision.kind == "held" and decision.step == "lock"
    holder = lock_record(client.last_lock_text) if judged else None
    if holder is None:
        return
    started = holder.get("started_ts")
    if isinstance(started, int | float) and started_now - started >= world.ttl:
        world.violate(
            "liveness",
            f"client {client.id} blocked by a lock {started_now - started:.0f}s old "
            f"(TTL {world.ttl}s): an expired lock must free",
        )
    elif holder.get("session_tail") == client.session:
        world.violate(
            "liveness",
            f"client {client.id} blocked by its own session's lock ({client.session}): "
            "a session must reclaim its own lock at once",
        )
    elif holder.get("host") == client.host and holder.get("boot_id") == client.boot:
        pid = holder.get("agent_pid")
        start = holder.get("agent_start")
        if (
            isinstance(pid, int)
            and isinstance(start, str)
            and world.died_before(client.host, pid, start, started_step)
        ):
            world.violate(
                "liveness",
                f"client {client.id} blocked by the lock of pid {pid} (start {start}), "
                "which had died: a dead owner's lock must be taken at once, not after the TTL",
            )
