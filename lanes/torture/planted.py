"""Planted bugs: the lock and ledger each broken in one way, for ``--self-check``.

A lane that never fails proves nothing. Each variant here breaks exactly one
rule of the run lock or the verify ledger; ``lanes torture --self-check``
passes only if the sweep catches every one. The variants live here, never in
``lanes.governor``: they either wrap the production functions for the span of
one run (:meth:`GovernorKernel.active`, restored afterwards) or give the
clients an environment with one property removed.

``check-then-create`` needs the guard gone too: under the guard flock a
non-exclusive create cannot race (every writer holds the guard), so the
variant is the textbook unguarded read-then-write acquisition.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from lanes.governor.context import StatePaths
from lanes.governor.state import ledger as ledger_mod
from lanes.governor.state import lock as lock_mod
from lanes.governor.state import runlock
from lanes.torture.kernel import GovernorKernel
from lanes.torture.simenv import SimEnvironment

if TYPE_CHECKING:
    from greenlet import greenlet

    from lanes.config import Config
    from lanes.governor.state.env import Environment
    from lanes.torture.world import Client, World

__all__ = ["PLANTED", "PlantedBug"]


@contextmanager
def _patched(module: object, name: str, replacement: object) -> Iterator[None]:
    original = getattr(module, name)
    setattr(module, name, replacement)
    try:
        yield
    finally:
        setattr(module, name, original)


class _NoDeadOwnerCheck(GovernorKernel):
    name = "no-dead-owner-check"

    def active(self) -> AbstractContextManager[None]:
        return _patched(lock_mod, "owner_dead", lambda _env, _record: False)


class _NoTTL(GovernorKernel):
    name = "no-ttl"

    def _make_config(self, ttl: int) -> Config:
        del ttl
        # The gate passes config.governor.lock_ttl to acquire: a TTL no run
        # ever reaches is no TTL at all (the model still knows the real one).
        return super()._make_config(10**12)


def _release_ignoring_token(
    env: Environment, lock_path: str, guard_path: str, *, token: str
) -> bool:
    del token
    # Everything but the token check as lock.release has it, the guard fault
    # included: the planted bug must be caught as a foreign lock, not as a
    # crash on a fault the real release handles.
    entered = False
    try:
        with env.locked(guard_path):
            entered = True
            if env.read(lock_path) is None:
                return False
            return env.unlink(lock_path)
    except OSError:
        if entered:
            raise
        return False


class _ReleaseIgnoresToken(GovernorKernel):
    name = "release-ignores-token"

    def active(self) -> AbstractContextManager[None]:
        return _patched(lock_mod, "release", _release_ignoring_token)


_real_acquire: Final = lock_mod.acquire


def _acquire_without_reclaim(
    env: Environment,
    lock_path: str,
    guard_path: str,
    *,
    suite: str,
    agent: str,
    session_tail: str,
    agent_pid: int,
    command: str,
    ttl: float = lock_mod.DEFAULT_TTL,
) -> lock_mod.AcquireResult:
    state = lock_mod.inspect(env, lock_path, ttl=ttl)
    record = state.record
    if state.status == "held" and record is not None and record.session_tail == session_tail:
        return lock_mod.AcquireResult(acquired=False, holder=record, why="held")
    return _real_acquire(
        env,
        lock_path,
        guard_path,
        suite=suite,
        agent=agent,
        session_tail=session_tail,
        agent_pid=agent_pid,
        command=command,
        ttl=ttl,
    )


class _NoSelfReclaim(GovernorKernel):
    name = "no-self-reclaim"

    def active(self) -> AbstractContextManager[None]:
        return _patched(lock_mod, "acquire", _acquire_without_reclaim)


class _ReleaseAfterRecord(GovernorKernel):
    """The pre-fix post hook: record, then release — so a
    ledger write that raises skips the release (the hook fails open, so the
    exception is swallowed and the lock stays until its TTL)."""

    name = "release-after-record"

    def post_tool_use(
        self,
        env: Environment,
        state_dir: str,
        client: Client,
        suite: str,
        *,
        force: bool,
        passed: bool,
        exit_code: int | None = None,
    ) -> None:
        files = StatePaths(state_dir)
        entry = ledger_mod.LedgerEntry(
            status="PASS" if passed else "FAIL",
            ts=env.now(),
            git_head=client.head,
            dirty_digest=client.digest,
            agent="claude",
            session_tail=client.session,
            duration_ms=None,
        )
        try:
            ledger_mod.record(env, files.ledger, files.ledger_guard, suite, entry)
        except OSError:
            return  # fail open, as the hook does: and the lock is never released
        super().post_tool_use(
            env, state_dir, client, suite, force=force, passed=passed, exit_code=exit_code
        )


class _CheckThenCreateEnv(SimEnvironment):
    """No guard on the lock, and "create if absent" as a read followed by a write."""

    def locked(self, path: str) -> AbstractContextManager[None]:
        if path == self.world.paths.lock_guard:
            self.pause("flock guard")
            return nullcontext()
        return super().locked(path)

    def create_exclusive(self, path: str, text: str) -> bool:
        if path != self.world.paths.lock:
            return super().create_exclusive(path, text)
        if self.read(path) is not None:
            return False
        self.replace(path, text)
        return True


class _LedgerUnlockedEnv(SimEnvironment):
    """The ledger's read-modify-replace without its flock."""

    def locked(self, path: str) -> AbstractContextManager[None]:
        if path == self.world.paths.ledger_guard:
            self.pause("flock ledger-guard")
            return nullcontext()
        return super().locked(path)


class _LedgerInPlaceEnv(SimEnvironment):
    """The ledger written in place (truncate + write), not through the atomic
    replace the seam reports: the lane must see it, not go blind."""

    def replace(self, path: str, text: str) -> None:
        if path != self.world.paths.ledger:
            super().replace(path, text)
            return
        self.pause("write ledger in place")
        with open(path, "w", encoding="utf-8") as handle:  # the bug itself
            handle.write(text)


class _GuardlessIgnoresHolder(GovernorKernel):
    """The pre-fix behaviour: when the guard cannot be
    taken, the lock is ignored, a live holder's too."""

    name = "guardless-ignores-holder"

    def active(self) -> AbstractContextManager[None]:
        def ignore(env: Environment, lock_path: str, *_args: object, **_kwargs: object) -> object:
            env.read(lock_path)  # looks, and runs anyway
            return lock_mod.AcquireResult(acquired=False, holder=None, why="unguarded")

        return _patched(lock_mod, "_acquire_unguarded", ignore)


class _HookIgnoresRunLock(GovernorKernel):
    """The hook without its kernel-lock probe: once a long pytest
    run has outlived its JSON lock's TTL, a sibling's heavy run is let in
    while the kernel lock is still held."""

    name = "hook-ignores-runlock"

    def active(self) -> AbstractContextManager[None]:
        return _patched(runlock, "probe", lambda _env, _path: None)


_real_runlock_acquire: Final = runlock.acquire


def _acquire_then_let_go(
    env: Environment, path: str, holder: Mapping[str, object]
) -> tuple[runlock.KernelLock | None, runlock.Holder]:
    lock, found = _real_runlock_acquire(env, path, holder)
    if lock is not None:
        # The bug: the descriptor closed once the holder is written (a `with
        # open(...)` around the lock): the kernel lets go before the run starts.
        lock.release()
    return lock, found


class _RunnerLetsGo(GovernorKernel):
    name = "runner-lets-go"

    def active(self) -> AbstractContextManager[None]:
        return _patched(runlock, "acquire", _acquire_then_let_go)


EnvFactory = Callable[["World", "Client", "greenlet"], SimEnvironment]


@dataclass(frozen=True)
class PlantedBug:
    name: str
    description: str
    kernel: type[GovernorKernel] = GovernorKernel
    env: EnvFactory = SimEnvironment


PLANTED: Final = {
    bug.name: bug
    for bug in (
        PlantedBug(
            "no-dead-owner-check",
            "a dead owner's lock is never broken before its TTL",
            kernel=_NoDeadOwnerCheck,
        ),
        PlantedBug("no-ttl", "a lock never expires", kernel=_NoTTL),
        PlantedBug(
            "check-then-create",
            "acquire reads, then writes the lock, with no guard and no O_EXCL",
            env=_CheckThenCreateEnv,
        ),
        PlantedBug(
            "release-ignores-token",
            "release deletes whatever lock is there",
            kernel=_ReleaseIgnoresToken,
        ),
        PlantedBug(
            "no-self-reclaim",
            "a session's own lock blocks it like anyone else's",
            kernel=_NoSelfReclaim,
        ),
        PlantedBug(
            "release-after-record",
            "the post hook releases the lock only after a successful ledger write",
            kernel=_ReleaseAfterRecord,
        ),
        PlantedBug(
            "ledger-unlocked",
            "ledger read-modify-replace without the flock",
            env=_LedgerUnlockedEnv,
        ),
        PlantedBug(
            "ledger-in-place",
            "the ledger written in place, bypassing the atomic replace",
            env=_LedgerInPlaceEnv,
        ),
        PlantedBug(
            "guardless-ignores-holder",
            "a guard that cannot be taken makes acquire ignore a live holder",
            kernel=_GuardlessIgnoresHolder,
        ),
        PlantedBug(
            "hook-ignores-runlock",
            "the hook lets a heavy run start while a governed pytest holds the kernel lock",
            kernel=_HookIgnoresRunLock,
        ),
        PlantedBug(
            "runner-lets-go",
            "the plugin's kernel lock is let go as soon as it is taken",
            kernel=_RunnerLetsGo,
        ),
    )
}
