"""The modelled world of one simulated run: clock, hosts, processes, clients.

What is real here and what is modelled — the governor's decision, lock and
ledger code and its files are real; the clock, process table, hosts, boot ids,
tokens and flock are modelled through the Environment seam — is written once,
in docs/architecture.md ("The torture lane: real vs modelled").

This module holds the model's state and the bookkeeping invariants need;
:mod:`lanes.torture.simenv` is the seam implementation, :mod:`lanes.torture.invariants`
the checks, :mod:`lanes.torture.harness` the scheduler loop.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from lanes.torture.program import HOSTS, ClientSpec, Op

if TYPE_CHECKING:
    from greenlet import greenlet

    from lanes.governor.context import StatePaths

__all__ = ["BOOT_IDS", "Client", "Counters", "Violation", "World"]

BOOT_IDS: Final = {HOSTS[0]: "boot-local", HOSTS[1]: "boot-remote"}
EPOCH: Final = 1_800_000_000.0


@dataclass(frozen=True)
class Violation:
    invariant: str
    message: str
    step: int


@dataclass
class Counters:
    """The contention profile of a run (compared between a run and its replay)."""

    acquired: int = 0
    held_blocks: int = 0
    dedup_blocks: int = 0
    flock_waits: int = 0
    breaks: dict[str, int] = field(default_factory=dict)
    ttl_overlaps: int = 0
    crashes: int = 0
    interrupts: int = 0
    pid_reuses: int = 0
    # Runs whose post hook met a failing ledger write (the `unwritable` end).
    unwritable: int = 0
    # Runs whose lock guard could not be taken (the `no-guard` end) and runs
    # whose ledger write met a killed hook's leftover temp file.
    unguarded: int = 0
    leftover_temps: int = 0
    # Governed pytest runs (the `plugin` word): those that took the kernel
    # run lock, and those its holder refused (pytest's exit 8).
    runner_locks: int = 0
    runner_blocks: int = 0

    def profile(self) -> tuple[object, ...]:
        return (
            self.acquired,
            self.held_blocks,
            self.dedup_blocks,
            self.flock_waits,
            tuple(sorted(self.breaks.items())),
            self.ttl_overlaps,
            self.crashes,
            self.interrupts,
            self.pid_reuses,
            self.unwritable,
            self.unguarded,
            self.leftover_temps,
            self.runner_locks,
            self.runner_blocks,
        )


class Client:
    """One simulated agent and its current incarnation (process + session)."""

    def __init__(self, index: int, spec: ClientSpec) -> None:
        self.id = index
        self.host = spec.host
        self.boot = BOOT_IDS[spec.host]
        self.program: tuple[Op, ...] = spec.program
        self.incarnation = -1
        self.pid = 0
        self.start = ""
        self.session = ""
        self.alive = False
        self.head = "h0"
        self.digest = "clean"
        self.tokens: set[str] = set()
        # The run this client is inside of (the critical section), if any.
        self.in_cs = False
        self.cs_started = 0.0
        self.cs_token = ""
        # What the scheduler needs: the next step's label, and the modelled
        # flock this client waits for at that step (None: it can always move).
        self.pending = ""
        self.waits_for: str | None = None
        self.finished = False
        self.glet: greenlet | None = None
        # Observations the invariants read.
        self.last_ledger_text: str | None = None
        self.last_lock_text: str | None = None
        self.recording: tuple[str, dict[str, object]] | None = None
        # Set for the post hook of an `unwritable` cycle: every ledger write
        # of this client fails (a full disk, a directory at the ledger path).
        self.ledger_fault = False
        # The `no-guard` end: the run lock's guard cannot be opened (a
        # directory at its path) for this client's whole cycle.
        self.guard_fault = False
        # The `leftover-temp` end: a killed hook left a temp file exactly where
        # this client's next ledger write puts its own (pid reuse).
        self.temp_fault = False
        # The program op this client is at (its boundary or inside it), and
        # how many ops it has started: the shrinker maps steps to ops by these.
        self.op_index = -1
        self.ops_started = 0
        # The PreToolUse of this client's current cycle began at this step
        # (the kernel-lock invariant asks what was held by then).
        self.pre_step = 0
        # This cycle is a governed pytest: its plugin must hold the kernel lock.
        self.plugin_run = False


class World:
    def __init__(self, seed: int, *, ttl: int, paths: StatePaths) -> None:
        self.ttl = ttl
        self.paths = paths
        self.now = EPOCH
        self.step = 0
        self.rng = random.Random(f"world:{seed}")
        # (host, pid) -> start token of the live process; absent = no process.
        self.procs: dict[tuple[str, int], str] = {}
        # (host, pid, start) -> step at which that process died.
        self.dead_at: dict[tuple[str, int, str], int] = {}
        self._next_pid = dict.fromkeys(HOSTS, 100)
        self._starts = 0
        self._tokens = 0
        self.mutex: dict[str, int] = {}
        self.clients: list[Client] = []
        self.in_cs: list[Client] = []
        self.counters = Counters()
        self.violations: list[Violation] = []
        # Shadow of the lock file's text, kept by the environment on every
        # mutation, so invariants never need an extra (unscheduled) read.
        self.lock_text: str | None = None
        # suite -> the entry of the latest ledger write for that suite.
        self.last_written: dict[str, dict[str, object]] = {}
        # The ledger text of the last write the environment reported: the file
        # on disk must always be it (a write that bypasses the seam is a bug).
        self.ledger_seen: str | None = None
        self._overlaps_seen: set[tuple[str, str]] = set()
        # The kernel run lock, modelled: flock state per path (descriptor ->
        # exclusive?), each open descriptor's (client id, path), and when the
        # current exclusive holder of each path took it (step).
        self.kflocks: dict[str, dict[int, bool]] = {}
        self.kfds: dict[int, tuple[int, str]] = {}
        self.kheld_since: dict[str, int] = {}

    # ------------------------------------------------------------------ processes

    def spawn(self, client: Client) -> None:
        """A new incarnation of ``client``: new process, new session."""
        client.incarnation += 1
        pid = self._free_pid(client.host, reuse=client.incarnation > 0)
        client.pid = pid
        client.start = self._new_start()
        client.session = f"c{client.id}i{client.incarnation}"
        client.alive = True
        self.procs[(client.host, pid)] = client.start

    def _new_start(self) -> str:
        self._starts += 1
        return f"st{self._starts}"

    def _free_pid(self, host: str, *, reuse: bool) -> int:
        dead = self.dead_pids(host)
        if reuse and dead and self.rng.random() < 0.3:
            return dead[-1]
        pid = self._next_pid[host]
        self._next_pid[host] = pid + 1
        return pid

    def dead_pids(self, host: str) -> list[int]:
        """Pids of ``host`` that died and are free again, most recent death last."""
        deaths = sorted(
            (step, pid)
            for (where, pid, _start), step in self.dead_at.items()
            if where == host and (host, pid) not in self.procs
        )
        return [pid for _step, pid in deaths]

    def kill(self, client: Client) -> None:
        # The kernel closes a dead process's descriptors: its flocks go with
        # them (the holder's text stays behind, as after a real SIGKILL).
        self.close_kfds_of(client)
        client.alive = False
        del self.procs[(client.host, client.pid)]
        self.dead_at[(client.host, client.pid, client.start)] = self.step
        self.counters.crashes += 1

    def reuse_pid(self, host: str) -> int | None:
        """Hand the most recently freed pid of ``host`` to an unrelated process."""
        dead = self.dead_pids(host)
        if not dead:
            return None
        pid = dead[-1]
        self.procs[(host, pid)] = self._new_start()
        self.counters.pid_reuses += 1
        return pid

    # ------------------------------------------------------------------ kernel lock

    def try_kflock(self, fd: int, *, exclusive: bool) -> bool:
        """flock(LOCK_NB) on ``fd``: refused when another descriptor's lock conflicts."""
        path = self.kfds[fd][1]
        holders = self.kflocks.setdefault(path, {})
        others = [ex for other, ex in holders.items() if other != fd]
        if any(others) or (exclusive and others):
            return False
        holders[fd] = exclusive
        if exclusive:
            self.kheld_since.setdefault(path, self.step)
        return True

    def close_kfd(self, fd: int) -> None:
        _owner, path = self.kfds.pop(fd)
        holders = self.kflocks.get(path, {})
        if holders.pop(fd, False):
            self.kheld_since.pop(path, None)
        os.close(fd)

    def close_kfds_of(self, client: Client) -> None:
        """A process of ``client`` ends: the kernel closes its descriptors."""
        for fd in [fd for fd, (owner, _path) in self.kfds.items() if owner == client.id]:
            self.close_kfd(fd)

    def close_all_kfds(self) -> None:
        """The end of the run: every modelled process's descriptors close."""
        for fd in list(self.kfds):
            self.close_kfd(fd)

    def kernel_holder(self, path: str) -> int | None:
        """The client holding ``path``'s kernel lock exclusively, if any."""
        for fd, exclusive in self.kflocks.get(path, {}).items():
            if exclusive:
                return self.kfds[fd][0]
        return None

    def process_start(self, host: str, pid: int) -> str | None:
        return self.procs.get((host, pid))

    def died_before(self, host: str, pid: int, start: str, step: int) -> bool:
        died = self.dead_at.get((host, pid, start))
        return died is not None and died < step

    def new_token(self, client: Client) -> str:
        self._tokens += 1
        return f"tok{self._tokens}-c{client.id}"

    # ------------------------------------------------------------------ verdicts

    def violate(self, invariant: str, message: str) -> None:
        self.violations.append(Violation(invariant, message, self.step))

    def note_overlap(self, first: str, second: str) -> bool:
        """Count a TTL overlap once per pair of lock tokens; True when new."""
        pair = (first, second) if first < second else (second, first)
        if pair in self._overlaps_seen:
            return False
        self._overlaps_seen.add(pair)
        self.counters.ttl_overlaps += 1
        return True
