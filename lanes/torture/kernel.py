"""The code under torture: the governor's real PreToolUse and PostToolUse paths,
and the runner plugin's kernel run lock.

:class:`GovernorKernel` drives :func:`lanes.governor.policy.gate.decide_pre` and
:func:`lanes.governor.policy.record.decide_post` — the functions ``lanes hook``
runs — with a modelled environment and a modelled tree state. Suite
resolution, the ledger's freshness rule, the lock's liveness rule, recording
and the token-checked release are all the production code.

A governed pytest (a ``plugin`` cycle) then takes the kernel run lock as the
plugin does (:meth:`GovernorKernel.runner_acquire`: the holder record of
``RunGovernor._take_lock`` and the production :func:`lanes.governor.state.runlock.acquire`
over the modelled descriptors and flock); the plugin's pytest wiring itself
is not modelled (its pytester tests cover it).

Planted-bug variants (:mod:`lanes.torture.planted`) subclass it and change one
thing each.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal, assert_never

from lanes.config import Config, parse_config
from lanes.governor.context import HookContext, StatePaths
from lanes.governor.payload import HookPayload
from lanes.governor.policy import gate, record
from lanes.governor.policy.suites import resolve
from lanes.governor.state import ledger as ledger_mod
from lanes.governor.state import runlock
from lanes.governor.state.ledger import TreeState
from lanes.torture.program import SUITES

if TYPE_CHECKING:
    from lanes.governor.classify.model import Classification
    from lanes.governor.policy.gate import Step
    from lanes.governor.state.env import Environment
    from lanes.governor.state.runlock import KernelLock
    from lanes.torture.world import Client

__all__ = ["AGENT", "PROJECT_ROOT", "Decision", "GovernorKernel", "suite_command"]

AGENT: Final = "claude"
# The modelled project's root: only ever used as a path string (suite paths
# are normalised against it), never opened.
PROJECT_ROOT: Final = "/torture/project"
# What the kernel makes of a PreToolUse decision.
Kind = Literal["allow", "held", "dedup", "other"]


@dataclass(frozen=True)
class Decision:
    kind: Kind
    step: Step
    """The rule that decided, as the gate named it: matched against that closed
    set, so a misspelt step is a type error, not a branch that never runs."""
    token: str = ""
    started_ts: float = 0.0
    message: str = ""


def suite_command(suite: str, *, force: bool) -> str:
    prefix = "LANES_TEST_FORCE=1 " if force else ""
    return f"{prefix}pytest tests/{suite} -q"


def _config(ttl: int) -> Config:
    suites = {
        name: {"paths": [f"tests/{name}"], "command": f"pytest tests/{name} -q", "max_age": age}
        for name, age in SUITES.items()
    }
    table = {"suites": suites, "governor": {"lock_ttl": ttl}}
    return parse_config(table, root=Path(PROJECT_ROOT))


class GovernorKernel:
    """The production decision path (:mod:`lanes.governor.policy.gate`, :mod:`lanes.governor.policy.record`)."""

    name = "governor"

    def __init__(self, *, ttl: int) -> None:
        self.config = self._make_config(ttl)
        from lanes.governor.classify.classifier import classify  # noqa: PLC0415  # the hook's classifier

        # Classified once, up front: a classifier that cannot read these
        # commands is a setup failure of the lane, not a finding of one seed.
        self._classified: dict[str, Classification] = {
            command: classify(command, PROJECT_ROOT)
            for suite in SUITES
            for command in (suite_command(suite, force=False), suite_command(suite, force=True))
        }

    def _make_config(self, ttl: int) -> Config:
        return _config(ttl)

    def active(self) -> AbstractContextManager[None]:
        """The span in which this kernel's code is in force (planted bugs patch here)."""
        return nullcontext()

    def _context(self, env: Environment, state_dir: str, client: Client) -> HookContext:
        """The hook call's world as the hook builds it, over the modelled
        Environment, with the client's tree and pid instead of git and /proc."""
        return HookContext.modelled(
            env,
            state_dir=state_dir,
            settings=self.config,
            tree=TreeState(client.head, client.digest),
            agent=AGENT,
            agent_pid=client.pid,
        )

    def _classify(self, command: str) -> Classification:
        return self._classified[command]

    def _payload(
        self, event: str, command: str, session: str, exit_code: int | None
    ) -> HookPayload:
        return HookPayload(
            event=event,
            tool_name="Bash",
            command=command,
            session_id=session,
            cwd=PROJECT_ROOT,
            exit_code=exit_code,
            interrupted=False,
        )

    def pre_tool_use(
        self, env: Environment, state_dir: str, client: Client, suite: str, *, force: bool
    ) -> Decision:
        command = suite_command(suite, force=force)
        classification = self._classify(command)
        payload = self._payload("PreToolUse", command, client.session, None)
        decision = gate.decide_pre(
            self._context(env, state_dir, client),
            classification,
            payload,
            resolve(classification, self.config, cwd=payload.cwd),
        )
        if decision.action == "allow":
            lock = decision.lock
            if lock is None:
                return Decision("other", decision.step, message=decision.message)
            return Decision("allow", decision.step, token=lock.token, started_ts=lock.started_ts)
        # Every step the gate can name is placed here: a step added to
        # gate.Step fails type checking until the model says what it means.
        kind: Kind
        match decision.step:
            case "dedup":
                kind = "dedup"
            case "lock" | "runner-lock":
                kind = "held"
            case (
                "sweep"
                | "sweep-audit"
                | "outside-git"
                | "allow"
                | "error"
                | "state-distrusted"
                | "lock-skipped"
            ):
                kind = "other"
            case unknown:
                assert_never(unknown)
        return Decision(kind, decision.step, message=decision.message)

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
        """The post event; ``exit_code`` when the run ended with a status of
        its own (the plugin's refusal, 8), else 0 or 1 from ``passed``."""
        command = suite_command(suite, force=force)
        event = "PostToolUse" if passed else "PostToolUseFailure"
        code = exit_code if exit_code is not None else (0 if passed else 1)
        payload = self._payload(event, command, client.session, code)
        record.decide_post(
            self._context(env, state_dir, client),
            payload,
            resolve(self._classify(command), self.config, cwd=payload.cwd),
        )

    def runner_acquire(
        self, env: Environment, state_dir: str, client: Client, suite: str, *, force: bool
    ) -> KernelLock | None:
        """The plugin's kernel lock for a heavy run, as ``RunGovernor._take_lock``
        takes it; None when another run holds it (pytest then exits 8)."""
        holder = {
            "suite": suite,
            "agent": AGENT,
            "session": client.session,
            "pid": client.pid,
            "started_ts": env.now(),
            "host": client.host,
            "command": suite_command(suite, force=force),
        }
        lock, _found = runlock.acquire(env, StatePaths(state_dir).flock, holder)
        return lock

    def record_by_hand(
        self, env: Environment, state_dir: str, client: Client, suite: str, *, passed: bool
    ) -> None:
        """``lanes governor record SUITE pass|fail``: the entry it writes (as
        :func:`lanes.governor.cli.status.run_record` builds it) goes straight to
        the production ledger writer, with no run lock around it."""
        entry = ledger_mod.LedgerEntry(
            status="PASS" if passed else "FAIL",
            ts=env.now(),
            git_head=client.head,
            dirty_digest=client.digest,
            agent="human",
            session_tail="",
            duration_ms=None,
        )
        files = StatePaths(state_dir)
        client.recording = (suite, entry.to_dict())
        ledger_mod.record(env, files.ledger, files.ledger_guard, suite, entry)
        client.recording = None
