"""PreToolUse: the full-sweep gate, dedup against the ledger, and the run lock.

Decision order (issue 4, README "The gate"):

1. **Full-sweep gate — fail-closed** (:mod:`lanes.governor.policy.sweep`). A
   gated runner run in full (no path, the whole test root, or at least
   ``sweep_min_paths`` distinct files), or possibly so (a program name built
   at run time, a command the classifier could not read through), is blocked
   unless ``LANES_FULL_SWEEP_OK=1`` and a ``LANES_OVERRIDE_REASON`` of at least
   15 characters are given (environment or inline prefix). An allowed override
   is appended to ``<state>/audit.jsonl``.
2. **Dedup.** A command that runs a suite with a fresh PASS on this exact tree
   is blocked; ``LANES_TEST_FORCE=1`` skips this step.
3. **Run lock** for suites with ``lock = true`` and allowed full sweeps.
4. Allow.

Steps 2-3 fail open: an internal error there allows the command and writes a
debug-log line. :func:`decide_pre` takes the tree state as a parameter so the
torture lane can feed it modelled trees; :func:`pre_tool_use` is the
production wrapper that computes the tree with git.
"""

from __future__ import annotations

import os

from lanes.governor.policy.suites import SuiteMatch, resolve
from lanes.governor.policy.sweep import MIN_REASON, env_flag, judge
from lanes.governor.state import ledger as ledger_mod
from lanes.governor.state import lock as lock_mod
from lanes.governor.state.debug import debug_log
from lanes.governor.state.run_notes import note_start, run_path
from lanes.governor.state.shown import shown
from lanes.governor.state.trust import distrust_state

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Literal

    from lanes.governor.classify.model import Classification
    from lanes.governor.payload import HookPayload
    from lanes.governor.settings import ConfigLike
    from lanes.governor.state.env import Environment
    from lanes.governor.state.ledger import TreeState

__all__ = [
    "AUDIT",
    "LEDGER",
    "LOCK",
    "MIN_REASON",
    "Decision",
    "ago",
    "decide_pre",
    "env_flag",
    "paths_in",
    "pre_tool_use",
    "session_tail",
]

LEDGER = "verify-ledger.json"
LOCK = "test-run.lock"
AUDIT = "audit.jsonl"
FULL_SWEEP_SUITE = "(full sweep)"
# Stored in the lock and the ledger: long enough that two sessions never
# share it (self-reclaim trusts it); messages show the last four characters.
_TAIL = 12
BLOCK = 2


def session_tail(session_id: str) -> str:
    return session_id[-_TAIL:]


def paths_in(state_dir: str) -> dict[str, str]:
    """The state files: ledger (+ sidecar), lock (+ guard), audit log."""
    return {
        "ledger": os.path.join(state_dir, LEDGER),
        "ledger_guard": os.path.join(state_dir, LEDGER + ".lock"),
        "lock": os.path.join(state_dir, LOCK),
        "lock_guard": os.path.join(state_dir, LOCK + ".guard"),
        "audit": os.path.join(state_dir, AUDIT),
    }


class Decision:
    """What PreToolUse answers: allow, or block with ``message`` (exit 2, stderr)."""

    __slots__ = ("action", "lock", "message", "step")

    def __init__(
        self,
        action: Literal["allow", "block"],
        message: str = "",
        *,
        step: str = "allow",
        lock: lock_mod.LockRecord | None = None,
    ) -> None:
        self.action = action
        self.message = message
        # Which rule decided: sweep, dedup, lock, allow (for tests and the debug log).
        self.step = step
        # The run lock this decision took, if any.
        self.lock = lock

    @property
    def exit_code(self) -> int:
        return BLOCK if self.action == "block" else 0

    def __repr__(self) -> str:
        return f"Decision({self.action!r}, step={self.step!r}, message={self.message!r})"


def ago(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{int(seconds)} s"
    if seconds < 7200:
        return f"{int(seconds // 60)} min"
    return f"{seconds / 3600:.1f} h"


def _audit(
    env: Environment, state_dir: str | None, payload: HookPayload, agent: str, reason: str
) -> str | None:
    """Append the honoured override to the audit log; why it cannot be, else None.

    An override that cannot be audited is not honoured (issue 11, defect 12):
    the audit line is its price. Outside git there is no state dir and no log.
    """
    if state_dir is None:
        debug_log("audit-skipped", reason="no state dir (not a git work tree)")
        return None
    audit = paths_in(state_dir)["audit"]
    problem = distrust_state(state_dir, [audit])
    if problem is None:
        import json  # an audited override only

        line = json.dumps(
            {
                "ts": env.now(),
                "event": "full-sweep-override",
                "session": payload.session_id,
                "agent": agent,
                "command": payload.command,
                "reason": reason,
                "cwd": payload.cwd,
            },
            sort_keys=True,
        )
        try:
            env.append(audit, line)
        except OSError as exc:
            problem = f"{audit} cannot be written ({exc.strerror or exc})"
    if problem is None:
        return None
    debug_log("audit-failed", error=problem)
    return (
        f"full-sweep override not honoured: it cannot be audited — {shown(problem, 300)}. "
        "Fix the state directory (it must be yours and not writable by others: "
        "`lanes governor status` shows it), then retry."
    )


def _dedup_message(match: SuiteMatch, entry: ledger_mod.LedgerEntry, now: float) -> str:
    tail = shown(entry.session_tail[-4:]) or "????"
    return (
        f"{match.name} green {ago(now - entry.ts)} ago by {shown(entry.agent) or 'someone'} "
        f"(session …{tail}) on this exact tree — reuse that result, "
        "or prefix LANES_TEST_FORCE=1 to re-run"
    )


def _lock_message(holder: lock_mod.LockRecord | None, now: float, ttl: float) -> str:
    if holder is None:
        return (
            "run lock is held by another run — wait for it to finish, or check "
            "`lanes governor status`; run heavy suites under `nice -n 19`"
        )
    age = holder.age(now)
    return (
        f"run lock held: {shown(holder.agent)} "
        f"(session …{shown(holder.session_tail[-4:]) or '????'}, "
        f"pid {holder.agent_pid}) has been running {shown(holder.suite)} for {ago(age)} "
        f"(`{shown(holder.command.strip(), 120)}`). It frees when that run finishes, "
        f"when its agent exits, or at the latest in {ago(ttl - age)} (lock_ttl). Do something else "
        "meanwhile and retry; heavy suites belong under `nice -n 19`. "
        "`lanes governor status` shows the holder."
    )


def decide_pre(  # noqa: PLR0917  # positional: the signature the torture lane codes against
    env: Environment,
    state_dir: str | None,
    config: ConfigLike,
    classification: Classification,
    payload: HookPayload,
    tree: TreeState | None,
    agent: str,
    agent_pid: int,
    environ: Mapping[str, str],
) -> Decision:
    """The PreToolUse decision for one command (see the module docstring)."""
    # 1. Full-sweep gate: fail-closed, so deliberately outside any try (and
    # the hook applies it again, alone, when anything before this point fails).
    verdict = judge(
        classification,
        payload.command,
        config.governor.gate_runners,
        config.governor.sweep_min_paths,
        environ,
    )
    if verdict.message is not None:
        return Decision("block", verdict.message, step="sweep")
    sweep_allowed = bool(verdict.reasons)
    if sweep_allowed:
        refused = _audit(env, state_dir, payload, agent, "; ".join(dict.fromkeys(verdict.reasons)))
        if refused is not None:
            return Decision("block", refused, step="sweep-audit")
    try:
        return _dedup_and_lock(
            env,
            state_dir,
            config,
            classification,
            payload,
            tree=tree,
            agent=agent,
            agent_pid=agent_pid,
            environ=environ,
            sweep_allowed=sweep_allowed,
        )
    except Exception as exc:  # noqa: BLE001  # steps 2-3 fail open by contract
        debug_log("gate-error", error=f"{type(exc).__name__}: {exc}", command=payload.command)
        return Decision("allow", step="error")


def _dedup_and_lock(
    env: Environment,
    state_dir: str | None,
    config: ConfigLike,
    classification: Classification,
    payload: HookPayload,
    *,
    tree: TreeState | None,
    agent: str,
    agent_pid: int,
    environ: Mapping[str, str],
    sweep_allowed: bool,
) -> Decision:
    if state_dir is None:
        return Decision("allow")
    files = paths_in(state_dir)
    problem = distrust_state(state_dir, files.values())
    if problem is not None:
        # Another user could have forged a PASS or planted a lock: ignore the
        # state (fail open), and leave it untouched.
        debug_log("state-distrusted", error=problem)
        return Decision("allow", step="state-distrusted")
    matches = resolve(classification, config, cwd=payload.cwd)
    # 2. Dedup: a forced suite segment is never deduplicated.
    unforced = [
        m
        for m in matches
        if env_flag("LANES_TEST_FORCE", classification, environ, m.segment) != "1"
    ]
    if unforced:
        entries = ledger_mod.read(env, files["ledger"])
        now = env.now()
        blocks = []
        for match in unforced:
            entry = entries.get(match.name)
            fresh, _ = ledger_mod.freshness(entry, tree, now, match.suite.max_age)
            if fresh and entry is not None:
                blocks.append(_dedup_message(match, entry, now))
        if blocks:
            return Decision("block", "\n".join(blocks), step="dedup")
    # 3. Run lock.
    locking = [m.name for m in matches if m.suite.lock]
    if not locking and not sweep_allowed:
        _note_start(env, state_dir, payload, tree, matches)
        return Decision("allow")
    if not session_tail(payload.session_id):
        # Without a session id the post event cannot prove it is this run's,
        # so a lock taken here could never be released, and self-reclaim
        # could never tell this agent from another (issue 11, defect 9):
        # run unlocked (fail open) rather than block everyone until lock_ttl.
        debug_log("lock-skipped", reason="payload has no session_id", command=payload.command)
        _note_start(env, state_dir, payload, tree, matches)
        return Decision("allow", step="lock-skipped")
    ttl = config.governor.lock_ttl
    result = lock_mod.acquire(
        env,
        files["lock"],
        files["lock_guard"],
        suite=", ".join(locking) or FULL_SWEEP_SUITE,
        agent=agent,
        session_tail=session_tail(payload.session_id),
        agent_pid=agent_pid,
        command=payload.command,
        ttl=ttl,
    )
    if not result.acquired and result.why == "unguarded":
        # The guard cannot be taken and nobody live holds the lock: a stale
        # lock cannot be broken safely, so run unlocked (fail open).
        _note_start(env, state_dir, payload, tree, matches)
        return Decision("allow", step="lock-skipped")
    if not result.acquired:
        return Decision("block", _lock_message(result.holder, env.now(), ttl), step="lock")
    if result.why not in ("free", "own-session"):
        debug_log("lock-broken", why=result.why)
    _note_start(env, state_dir, payload, tree, matches)
    return Decision("allow", step="lock", lock=result.record)


def _note_start(
    env: Environment,
    state_dir: str,
    payload: HookPayload,
    tree: TreeState | None,
    matches: list[SuiteMatch],
) -> None:
    """Remember the tree this run starts on (see :mod:`lanes.governor.state.run_notes`)."""
    if not matches or tree is None:
        return
    path = run_path(state_dir, session_tail(payload.session_id), payload.command)
    note_start(env, path, tree, [m.name for m in matches])


def pre_tool_use(
    payload: HookPayload,
    classification: Classification,
    *,
    agent: str,
    config: ConfigLike | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """The hook's PreToolUse for a command that runs tests: exit status; a block
    reason goes to stderr."""
    import sys

    decision = pre_decision(payload, classification, agent=agent, config=config, environ=environ)
    if decision.action == "block":
        sys.stderr.write(decision.message.rstrip("\n") + "\n")
    return decision.exit_code


def pre_decision(
    payload: HookPayload,
    classification: Classification,
    *,
    agent: str,
    config: ConfigLike | None = None,
    environ: Mapping[str, str] | None = None,
) -> Decision:
    """:func:`decide_pre` against the real world: OS environment, git tree, agent pid."""
    from lanes.governor.state.env import OSEnvironment
    from lanes.governor.state.owner import agent_pid
    from lanes.governor.state.tree import find_repo, state_dir, tree_state

    env_vars = os.environ if environ is None else environ
    cwd = payload.cwd or os.getcwd()
    if config is None:
        from lanes.governor.settings import gate_config

        config = gate_config(cwd)
    state = state_dir(cwd, env_vars)
    tree = None
    if state is not None:
        try:
            os.makedirs(state, exist_ok=True)
        except OSError as exc:
            debug_log("state-dir", error=str(exc))
            state = None
    if state is not None and resolve(classification, config, cwd=payload.cwd):
        # git only when a configured suite is in play: dedup needs the tree.
        repo = find_repo(cwd)
        tree = None if repo is None else tree_state(repo.top, exclude=state)
    return decide_pre(
        OSEnvironment(),
        state,
        config,
        classification,
        payload,
        tree,
        agent,
        agent_pid(env_vars),
        env_vars,
    )
