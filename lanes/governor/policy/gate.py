"""PreToolUse: the full-sweep gate, dedup against the ledger, and the run lock.

Decision order (docs/how-to/governor.md, "The gate"):

1. **Full-sweep gate — fail-closed** (:mod:`lanes.governor.policy.sweep`). A
   gated runner run in full (no path, the whole test root, or at least
   ``sweep_min_paths`` distinct files), or possibly so (a program name built
   at run time, a command the classifier could not read through), is blocked
   unless ``LANES_FULL_SWEEP_OK=1`` and a ``LANES_OVERRIDE_REASON`` of at least
   15 characters are given (environment or inline prefix). An override that
   is then allowed (steps 2-3 did not block it) is appended to
   ``<state>/audit.jsonl``; if that append fails, the command is blocked and
   the lock it took released. Outside a git work tree (no repository, no
   ``LANES_STATE_DIR``) there is no ledger, tree or lock to protect and no
   suite to sweep: the command runs, with advice instead of the block.
2. **Dedup.** A command that runs a suite with a fresh PASS on this exact tree
   is blocked; ``LANES_TEST_FORCE=1`` skips this step.
3. **Run lock** for suites with ``lock = true`` and allowed full sweeps: a
   governed pytest holding the kernel lock (``<state>/test-run.flock``)
   refuses it at once; else the JSON lock is taken, and the kernel lock is
   probed once more (a pytest that took it meanwhile refuses it too, and the
   JSON lock is given back).
4. Allow.

Steps 2-3 fail open: an internal error there allows the command and writes a
debug-log line. :func:`decide_pre` takes the call's world as a
:class:`~lanes.governor.context.HookContext` — the torture lane passes one
over its modelled Environment and trees; :func:`pre_tool_use` is the
production entry, which resolves the suites once and lets the context run git
only when a suite is in play.
"""

from __future__ import annotations

from lanes.governor.policy.suites import SuiteMatch, resolve
from lanes.governor.policy.sweep import MIN_REASON, env_flag, judge
from lanes.governor.state import ledger as ledger_mod
from lanes.governor.state.debug import debug_log
from lanes.governor.state.shown import shown
from lanes.governor.state.trust import distrust_state

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from typing import Literal

    # Which rule decided: a closed set the type checker verifies (mypy
    # --strict's strict equality refuses `decision.step == "dedupe"`). A
    # Literal, not an Enum: the hook's path must not import enum (with
    # functools and collections behind it, ~5 ms; see
    # tests/foundation/test_import_budget.py), and an alias under
    # TYPE_CHECKING costs nothing at run time.
    Step = Literal[
        "allow",  # no rule objected: nothing in play, or no lock needed
        "sweep",  # blocked: a full sweep without an audited override
        "sweep-audit",  # blocked: the override could not be audited
        "outside-git",  # allowed with advice: a sweep outside any git work tree
        "error",  # allowed: steps 2-3 failed open (debug log)
        "state-distrusted",  # allowed: the state dir is not ours alone; ignored
        "dedup",  # blocked: the suite has a fresh PASS on this tree
        "lock-skipped",  # allowed unlocked: no session id, or no guard and no live holder
        "lock",  # allowed holding the run lock, or blocked by its live holder
        "runner-lock",  # blocked: a governed pytest holds the kernel run lock
    ]

    from lanes.governor.classify.model import Classification
    from lanes.governor.context import HookContext
    from lanes.governor.payload import HookPayload
    from lanes.governor.state import lock as lock_mod
    from lanes.governor.state.runlock import Holder

__all__ = [
    "MIN_REASON",
    "Decision",
    "ago",
    "decide_pre",
    "env_flag",
    "pre_tool_use",
    "session_tail",
]

FULL_SWEEP_SUITE = "(full sweep)"
# The advice that replaces the sweep block outside any git work tree: a
# scratch directory has no ledger, tree or lock, and no suite a sweep could
# waste — blocking there only stopped experiments.
_OUTSIDE_GIT = (
    "lanes governor: not in a git work tree, so this full test run is not gated, "
    "deduplicated or locked here. Inside a project, mid-task, run the tests for what "
    "you changed; the full suite runs once before push and in CI."
)
# Stored in the lock and the ledger: long enough that two sessions never
# share it (self-reclaim trusts it); messages show the last four characters.
_TAIL = 12
BLOCK = 2


def session_tail(session_id: str) -> str:
    return session_id[-_TAIL:]


class Decision:
    """What PreToolUse answers: allow, or block with ``message`` (exit 2, stderr)."""

    __slots__ = ("action", "lock", "message", "step")

    def __init__(
        self,
        action: Literal["allow", "block"],
        message: str = "",
        *,
        step: Step = "allow",
        lock: lock_mod.LockRecord | None = None,
    ) -> None:
        self.action = action
        self.message = message
        # Which rule decided (for the torture lane, tests and the debug log).
        self.step: Step = step
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


def _audit(ctx: HookContext, payload: HookPayload, reason: str) -> str | None:
    """Append the honoured override to the audit log; why it cannot be, else None.

    An override that cannot be audited is not honoured:
    the audit line is its price. Outside git there is no state dir and no log.
    """
    if ctx.state is None:
        debug_log("audit-skipped", reason="no state dir (not a git work tree)")
        return None
    state_dir = ctx.state.directory
    env = ctx.env
    audit = ctx.state.audit
    problem = distrust_state(state_dir, [audit])
    if problem is None:
        import json  # an audited override only

        line = json.dumps(
            {
                "ts": env.now(),
                "event": "full-sweep-override",
                "session": payload.session_id,
                "agent": ctx.agent,
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


def decide_pre(
    ctx: HookContext,
    classification: Classification,
    payload: HookPayload,
    matches: list[SuiteMatch],
) -> Decision:
    """The PreToolUse decision for one command (see the module docstring).

    ``matches`` are the configured suites the command runs
    (:func:`~lanes.governor.policy.suites.resolve`, once per event); the tree
    is asked of ``ctx`` only when a suite is in play.
    """
    governor = ctx.settings.governor
    # 1. Full-sweep gate: fail-closed, so deliberately outside any try (and
    # the hook applies it again, alone, when anything before this point fails).
    verdict = judge(
        classification,
        payload.command,
        governor.gate_runners,
        governor.sweep_min_paths,
        ctx.environ,
    )
    if verdict.message is not None:
        if ctx.repo is None and ctx.state is None:
            return Decision("allow", _OUTSIDE_GIT, step="outside-git")
        return Decision("block", verdict.message, step="sweep")
    sweep_allowed = bool(verdict.reasons)
    try:
        decision = _dedup_and_lock(
            ctx, classification, payload, matches, sweep_allowed=sweep_allowed
        )
    except Exception as exc:  # noqa: BLE001  # steps 2-3 fail open by contract
        debug_log("gate-error", error=f"{type(exc).__name__}: {exc}", command=payload.command)
        decision = Decision("allow", step="error")
    if sweep_allowed and decision.action == "allow":
        # Audited only once it will run: an override that dedup or the run
        # lock blocks ran nothing (44 audit lines for 8 real
        # overrides under load). The audit line is still its price.
        refused = _audit(ctx, payload, "; ".join(dict.fromkeys(verdict.reasons)))
        if refused is not None:
            _release(ctx, decision)
            return Decision("block", refused, step="sweep-audit")
    return decision


def _release(ctx: HookContext, decision: Decision) -> None:
    """Give back the run lock ``decision`` took for a command that is now blocked."""
    if decision.lock is None or ctx.state is None:
        return
    from lanes.governor.state import lock as lock_mod

    try:
        lock_mod.release(ctx.env, ctx.state.lock, ctx.state.lock_guard, token=decision.lock.token)
    except OSError as exc:  # the lock then ends by its TTL or the session's next run
        debug_log("lock-release-failed", error=str(exc))


def _dedup_and_lock(
    ctx: HookContext,
    classification: Classification,
    payload: HookPayload,
    matches: list[SuiteMatch],
    *,
    sweep_allowed: bool,
) -> Decision:
    files = ctx.state
    if files is None:
        return Decision("allow")
    env = ctx.env
    problem = distrust_state(files.directory, files.files())
    if problem is not None:
        # Another user could have forged a PASS or planted a lock: ignore the
        # state (fail open), and leave it untouched.
        debug_log("state-distrusted", error=problem)
        return Decision("allow", step="state-distrusted")
    # 2. Dedup: a forced suite segment is never deduplicated.
    unforced = [
        m
        for m in matches
        if env_flag("LANES_TEST_FORCE", classification, ctx.environ, m.segment) != "1"
    ]
    if unforced:
        entries = ledger_mod.read(env, files.ledger)
        now = env.now()
        blocks = []
        for match in unforced:
            entry = entries.get(match.name)
            fresh, _ = ledger_mod.freshness(entry, ctx.tree, now, match.suite.max_age)
            if fresh and entry is not None:
                blocks.append(_dedup_message(match, entry, now))
        if blocks:
            return Decision("block", "\n".join(blocks), step="dedup")
    # 3. Run lock.
    locking = [m.name for m in matches if m.suite.lock]
    if not locking and not sweep_allowed:
        _note_start(ctx, payload, matches)
        return Decision("allow")
    if not session_tail(payload.session_id):
        # Without a session id the post event cannot prove it is this run's,
        # so a lock taken here could never be released, and self-reclaim
        # could never tell this agent from another:
        # run unlocked (fail open) rather than block everyone until lock_ttl.
        debug_log("lock-skipped", reason="payload has no session_id", command=payload.command)
        _note_start(ctx, payload, matches)
        return Decision("allow", step="lock-skipped")
    # A governed pytest holding the kernel run lock (lanes.governor.state.runlock)
    # — a run this hook may never have seen, a computed form — refuses any
    # heavy run now: early advice, before the agent waits for pytest to start.
    from lanes.governor.state.runlock import probe

    runner = probe(env, files.flock)
    if runner is not None:
        return _runner_holds(runner, env.now())
    # Imported only here: a dedup hit, the common answer to a re-run, never
    # reaches the lock.
    from lanes.governor.state import lock as lock_mod

    ttl = ctx.settings.governor.lock_ttl
    result = lock_mod.acquire(
        env,
        files.lock,
        files.lock_guard,
        suite=", ".join(locking) or FULL_SWEEP_SUITE,
        agent=ctx.agent,
        session_tail=session_tail(payload.session_id),
        agent_pid=ctx.agent_pid,
        command=payload.command,
        ttl=ttl,
    )
    if not result.acquired and result.why == "unguarded":
        # The guard cannot be taken and nobody live holds the lock: a stale
        # lock cannot be broken safely, so run unlocked (fail open).
        _note_start(ctx, payload, matches)
        return Decision("allow", step="lock-skipped")
    if not result.acquired:
        return Decision("block", _lock_message(result.holder, env.now(), ttl), step="lock")
    # Probed again with the JSON lock taken, as the plugin reads the JSON lock
    # only with the kernel lock held: of two heavy runs racing across the
    # layers, at least one sees the other (lanes.governor.runner.json_lock).
    runner = probe(env, files.flock)
    if runner is not None:
        _release(ctx, Decision("allow", lock=result.record))
        return _runner_holds(runner, env.now())
    if result.why not in ("free", "own-session"):
        debug_log("lock-broken", why=result.why)
    _note_start(ctx, payload, matches)
    return Decision("allow", step="lock", lock=result.record)


def _runner_holds(runner: Holder, now: float) -> Decision:
    return Decision(
        "block",
        f"run lock held by a running pytest: {runner.describe(now)}. It frees the "
        "moment that run ends. Do something else meanwhile and retry; "
        "`lanes governor status` shows the holder.",
        step="runner-lock",
    )


def _note_start(ctx: HookContext, payload: HookPayload, matches: list[SuiteMatch]) -> None:
    """Remember the tree this run starts on (see :mod:`lanes.governor.state.run_notes`)."""
    if not matches or ctx.state is None:
        return
    tree = ctx.tree
    if tree is None:
        return
    from lanes.governor.state.run_notes import note_start  # an allowed run only

    path = ctx.state.run_note(session_tail(payload.session_id), payload.command)
    note_start(ctx.env, path, tree, [m.name for m in matches])


def pre_tool_use(
    ctx: HookContext, classification: Classification, payload: HookPayload
) -> Decision:
    """The hook's PreToolUse for a command that runs tests: a block reason goes
    to stderr (the decision's ``exit_code`` is the hook's); an allowed
    decision's message is advice for the hook to give. Suites are resolved
    here, once for the event."""
    import sys

    ctx.prepare_state()
    matches = resolve(classification, ctx.settings, cwd=payload.cwd)
    decision = decide_pre(ctx, classification, payload, matches)
    if decision.action == "block":
        sys.stderr.write(decision.message.rstrip("\n") + "\n")
    return decision
