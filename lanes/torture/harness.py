"""One simulated run: client fibers, the scheduler loop, the end-of-run probe.

Real vs modelled — read this before trusting a green sweep:

- **Real**: the governor's PreToolUse and PostToolUse decision paths
  (``gate.decide_pre`` / ``record.decide_post``: suite resolution, ledger
  freshness, lock acquire / token-checked release, ledger record), the
  kernel run lock's acquire / probe / release
  (:mod:`lanes.governor.state.runlock`) for governed pytest runs, and the
  lock and ledger files they read and write, in a real temporary directory.
- **Modelled** (through the governor's ``Environment`` seam): the clock,
  process liveness and start times (crashes, pid reuse), host names and boot
  ids, ownership tokens, and ``flock``, which is a scheduler-level mutex (a
  real flock between fibers of one process would block the scheduler itself);
  the kernel run lock's non-blocking flock is a table in the world, dropped
  when its descriptor closes or its process dies.
  Files are not fsynced: power loss is not modelled. Processes die only
  between operations, never inside the hook (the real-process guard,
  ``--real``, covers SIGKILL at arbitrary points).

Each client runs on its own greenlet and hands control back at every yield
point (each file operation, flock acquisition and process query of the
governor, and each operation boundary of its program). The loop below asks
the scheduler which runnable client moves next, so the scheduler's choices
(and the seed's programs) determine the run completely. Greenlets were chosen
by measurement: a switch costs about 1 µs against about 25 µs for a
thread hand-off through semaphores.

The trace signature hashes, per step, the runnable set, the chosen client and
its operation label.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from greenlet import getcurrent, greenlet

from lanes.governor.context import StatePaths
from lanes.governor.runner.exits import RunnerExit
from lanes.torture import invariants
from lanes.torture.program import HOSTS, SUITES, ClientSpec, Op
from lanes.torture.simenv import SimEnvironment
from lanes.torture.world import Client, Counters, Violation, World

if TYPE_CHECKING:
    from lanes.governor.state.runlock import KernelLock
    from lanes.torture.kernel import GovernorKernel
    from lanes.torture.scheduler import Scheduler

__all__ = ["RunResult", "TraceStep", "run_clients", "scratch_root"]

EnvFactory = Callable[[World, Client, greenlet], SimEnvironment]
# A run that takes this many steps per operation has stopped making progress.
_STEPS_PER_OP = 200
# Scheduling points inside a governed pytest's run (see _cycle).
_RUNNER_STEPS = 8


@dataclass(frozen=True)
class TraceStep:
    step: int
    client: int
    label: str
    now: float
    op: int


@dataclass
class RunResult:
    seed: int
    signature: str
    steps: int
    violations: list[Violation]
    counters: Counters
    choices: list[int]
    # (step, client, label, now, op) per step, turned into TraceSteps on
    # demand: a dataclass per step is measurable over a 700,000-step sweep.
    steps_taken: list[tuple[int, int, str, float, int]] = field(repr=False)
    ops_started: list[int] = field(repr=False)

    @property
    def trace(self) -> list[TraceStep]:
        return [TraceStep(*step) for step in self.steps_taken]

    @property
    def failed(self) -> bool:
        return bool(self.violations)

    @property
    def outcome(self) -> str:
        """The terminal invariant outcome (compared between a run and its replay)."""
        if not self.violations:
            return "ok"
        first = self.violations[0]
        return f"{first.invariant}: {first.message}"


def scratch_root() -> str:
    """Where run state directories go: tmpfs when there is one (it is fast)."""
    shm = "/dev/shm"  # noqa: S108  # a private mkdtemp below it, never a fixed name
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        return shm
    return tempfile.gettempdir()


class _Run:
    def __init__(
        self,
        seed: int,
        specs: Sequence[ClientSpec],
        *,
        ttl: int,
        kernel: GovernorKernel,
        scheduler: Scheduler,
        make_env: EnvFactory,
        state_dir: str,
    ) -> None:
        self.state_dir = state_dir
        # The governor's own file names: the model watches what the hook writes.
        paths = StatePaths(state_dir)
        self.world = World(seed, ttl=ttl, paths=paths)
        self.kernel = kernel
        self.scheduler = scheduler
        self.make_env = make_env
        self.hub = getcurrent()
        self.envs: list[SimEnvironment] = []
        for index, spec in enumerate(specs):
            self.world.clients.append(Client(index, spec))
        self.digest = hashlib.blake2b(digest_size=16)
        self.steps: list[tuple[int, int, str, float, int]] = []
        self.choices: list[int] = []

    # ------------------------------------------------------------------ clients

    def _start(self, client: Client, main: Callable[[SimEnvironment, Client], None]) -> None:
        env = self.make_env(self.world, client, self.hub)
        self.envs.append(env)
        client.glet = greenlet(lambda: main(env, client), parent=self.hub)
        # Run to the first yield point (no shared state is touched before it).
        self._switch(client)

    def _program(self, env: SimEnvironment, client: Client) -> None:
        world = self.world
        world.spawn(client)
        for index, op in enumerate(client.program):
            client.op_index = index
            env.pause(op.text())
            client.ops_started = index + 1
            if not client.alive:
                world.spawn(client)  # the agent was restarted after its crash
            self._execute(env, client, op)

    def _execute(self, env: SimEnvironment, client: Client, op: Op) -> None:
        world = self.world
        if op.kind == "cycle":
            try:
                self._cycle(env, client, op)
            finally:
                client.guard_fault = False  # the `no-guard` fault lasts one cycle
            invariants.check_ledger_seen(world)
        elif op.kind == "sleep":
            world.now += op.amount
        elif op.kind == "wait-lock":
            record = invariants.lock_record(world.lock_text)
            started = None if record is None else record.get("started_ts")
            if isinstance(started, int | float):
                world.now = max(world.now, started + world.ttl + op.amount)
        elif op.kind == "edit":
            client.digest = op.target
        elif op.kind == "commit":
            client.head = op.target
            client.digest = "clean"
        elif op.kind == "reuse":
            world.reuse_pid(client.host)
        elif op.kind == "record":
            self.kernel.record_by_hand(
                env, self.state_dir, client, op.suite, passed=op.end == "pass"
            )
            invariants.check_ledger_seen(world)

    def _cycle(self, env: SimEnvironment, client: Client, op: Op) -> None:
        world = self.world
        started_now, started_step = world.now, world.step
        client.pre_step = started_step
        client.plugin_run = op.plugin
        client.last_ledger_text = client.last_lock_text = None
        client.guard_fault = op.end == "no-guard"
        decision = self.kernel.pre_tool_use(env, self.state_dir, client, op.suite, force=op.force)
        invariants.check_decision(
            world,
            client,
            suite=op.suite,
            max_age=SUITES[op.suite],
            force=op.force,
            decision=decision,
            started_now=started_now,
            started_step=started_step,
        )
        counters = world.counters
        if decision.kind == "dedup":
            counters.dedup_blocks += 1
            return
        if decision.kind == "held":
            counters.held_blocks += 1
            return
        if op.end == "no-guard" and decision.step == "lock-skipped":
            # Without the guard a stale lock cannot be broken: the run goes
            # unlocked. Never while a live holder runs: that is a lock ignored.
            counters.unguarded += 1
            invariants.check_unguarded(world, client)
            return
        if decision.kind != "allow":
            world.violate(
                "fail-open",
                f"client {client.id}: the decision path answered step {decision.step!r} "
                "without taking the lock (an internal error failed open; LANES_DEBUG=1 logs it)",
            )
            return
        counters.acquired += 1
        previous = invariants.lock_record(client.last_lock_text)
        if previous is not None:
            why = invariants.breakable(world, client, previous) or "unjustified"
            counters.breaks[why] = counters.breaks.get(why, 0) + 1
        kernel_lock = self._runner_start(env, client, op) if op.plugin else None
        if op.plugin and kernel_lock is None:
            return
        env.pause("enter run")
        client.in_cs = True
        client.cs_started = decision.started_ts
        client.cs_token = decision.token
        world.in_cs.append(client)
        if op.plugin:
            invariants.check_runner_lock(world, client)
        world.now += op.amount  # the suite runs for a while
        if op.plugin:
            # A governed pytest's run spans several scheduling points: it is
            # where the kernel lock outlives a lapsed JSON lock (a run longer
            # than lock_ttl), so siblings must get to try while it runs.
            for _ in range(_RUNNER_STEPS):
                env.pause("run tests")
        env.pause("exit run")
        if op.plugin:
            invariants.check_runner_lock(world, client)
        client.in_cs = False
        world.in_cs.remove(client)
        if op.end == "crash":
            world.kill(client)  # the kernel lock goes with the process
            return
        if kernel_lock is not None:
            if op.end == "interrupt":
                # pytest was killed: no sessionfinish, the kernel lets go.
                world.close_kfds_of(client)
            else:
                kernel_lock.release()  # the plugin's pytest_sessionfinish
        if op.end == "interrupt":
            counters.interrupts += 1
            return
        self._post(env, client, op)

    def _runner_start(self, env: SimEnvironment, client: Client, op: Op) -> KernelLock | None:
        """pytest starts and its plugin takes the kernel run lock for the run;
        None when refused (pytest exits 8 before its first test, and the
        hook's post event releases the JSON lock and records nothing)."""
        kernel_lock = self.kernel.runner_acquire(
            env, self.state_dir, client, op.suite, force=op.force
        )
        counters = self.world.counters
        if kernel_lock is not None:
            counters.runner_locks += 1
            return kernel_lock
        counters.runner_blocks += 1
        env.pause("post " + op.suite)
        self.kernel.post_tool_use(
            env,
            self.state_dir,
            client,
            op.suite,
            force=op.force,
            passed=False,
            exit_code=RunnerExit.LOCKED,
        )
        return None

    def _post(self, env: SimEnvironment, client: Client, op: Op) -> None:
        """The post hook of a run that ended (pass, fail or a failing write)."""
        world, counters = self.world, self.world.counters
        env.pause("post " + op.suite)
        unwritable = op.end in ("unwritable", "leftover-temp")
        client.recording = (
            None
            if unwritable
            else (
                op.suite,
                {
                    "status": "FAIL" if op.end == "fail" else "PASS",
                    "git_head": client.head,
                    "dirty_digest": client.digest,
                    "session_tail": client.session,
                },
            )
        )
        client.ledger_fault = op.end == "unwritable"
        client.temp_fault = op.end == "leftover-temp"
        try:
            self.kernel.post_tool_use(
                env, self.state_dir, client, op.suite, force=op.force, passed=op.end != "fail"
            )
        finally:
            client.recording = None
            client.ledger_fault = client.temp_fault = False
            client.guard_fault = False
        if unwritable:
            if op.end == "leftover-temp":
                counters.leftover_temps += 1
            else:
                counters.unwritable += 1
            invariants.check_released(world, client)

    def _probe(self, env: SimEnvironment, client: Client) -> None:
        """After every program: a fresh local agent must get the lock — at once
        if its owner is dead, after at most one TTL if its owner lives on."""
        world = self.world
        world.spawn(client)
        for attempt in range(2):
            env.pause("probe")
            if world.lock_text is None:
                return
            if attempt:
                world.now += world.ttl
            self._cycle(env, client, Op("cycle", suite="unit", end="pass", force=True))
        runner = world.kernel_holder(world.paths.flock)
        if runner is not None and not world.violations:
            world.violate(
                "end", f"client {runner} still holds the kernel run lock after every run ended"
            )
        if world.lock_text is not None and not world.violations:
            holder = invariants.lock_record(world.lock_text) or {}
            world.violate(
                "end",
                f"a lock is left at the end (suite {holder.get('suite')!r}, session "
                f"{holder.get('session_tail')!r}) after the probe waited out the TTL",
            )

    # ------------------------------------------------------------------ loop

    def _switch(self, client: Client) -> None:
        assert client.glet is not None  # noqa: S101  # set by _start before any switch
        try:
            client.glet.switch()
        except Exception as exc:  # noqa: BLE001  # the governor crashed: that is a finding
            frames = traceback.format_exception(exc)[-3:]
            self.world.violate(
                "crash", f"client {client.id} raised {type(exc).__name__}: {''.join(frames)}"
            )
        if client.glet.dead:
            client.finished = True

    def _loop(self, active: list[Client], budget: int) -> None:
        world = self.world
        active = list(active)
        while not world.violations:
            runnable = [
                c.id for c in active if c.waits_for is None or c.waits_for not in world.mutex
            ]
            if not runnable:
                if active:
                    waits = ", ".join(f"client {c.id} on {c.pending}" for c in active)
                    world.violate("liveness", f"deadlock: no client can move ({waits})")
                return
            if world.step >= budget:
                world.violate("liveness", f"no progress after {world.step} steps")
                return
            chosen = self.scheduler.choose(runnable, world.step)
            client = world.clients[chosen]
            self.digest.update(f"{runnable}{chosen}{client.pending};".encode())
            self.steps.append((world.step, chosen, client.pending, world.now, client.op_index))
            self.choices.append(chosen)
            self._switch(client)
            if client.finished:
                active.remove(client)
            if len(world.in_cs) > 1:
                invariants.check_overlap(world)
            world.step += 1

    def run(self) -> None:
        world = self.world
        clients = list(world.clients)
        budget = _STEPS_PER_OP * (sum(len(c.program) for c in clients) + 4)
        try:
            for client in clients:
                self._start(client, self._program)
            self._loop(clients, budget)
            if not world.violations:
                probe = Client(len(clients), ClientSpec(HOSTS[0], ()))
                world.clients.append(probe)
                self._start(probe, self._probe)
                self._loop([probe], budget + 100)
        finally:
            self._teardown()

    def _teardown(self) -> None:
        for env in self.envs:
            env.closed = True
        for client in self.world.clients:
            glet = client.glet
            if glet is not None and not glet.dead:
                glet.throw()  # GreenletExit: unwinds its `with` blocks, then it is dead
        # Descriptors a stopped run left open (a kernel lock it held) close
        # with the run, as they would with its processes.
        self.world.close_all_kfds()


def run_clients(
    seed: int,
    specs: Sequence[ClientSpec],
    *,
    ttl: int,
    kernel: GovernorKernel,
    scheduler: Scheduler,
    make_env: EnvFactory = SimEnvironment,
    observe: Callable[[World], None] | None = None,
) -> RunResult:
    """Run ``specs`` to the end (or the first violation) under ``scheduler``.

    ``observe`` sees the world before the first step (scenario schedulers
    that steer by the model's state bind to it there).
    """
    state_dir = tempfile.mkdtemp(prefix="lanes-torture-", dir=scratch_root())
    try:
        run = _Run(
            seed,
            specs,
            ttl=ttl,
            kernel=kernel,
            scheduler=scheduler,
            make_env=make_env,
            state_dir=state_dir,
        )
        if observe is not None:
            observe(run.world)
        with kernel.active():
            run.run()
    finally:
        shutil.rmtree(state_dir, ignore_errors=True)
    world = run.world
    return RunResult(
        seed=seed,
        signature=run.digest.hexdigest(),
        steps=world.step,
        violations=world.violations,
        counters=world.counters,
        choices=run.choices,
        steps_taken=run.steps,
        ops_started=[c.ops_started for c in world.clients[: len(specs)]],
    )
