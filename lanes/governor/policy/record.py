"""PostToolUse / PostToolUseFailure: record suite results and free the run lock.

For each real invocation that resolves to a suite (segment-anchored: a quoted
mention, heredoc or ``echo`` never counts):

- ``PostToolUse`` records PASS — unless the payload carries a non-zero exit
  code (Codex sends failures to PostToolUse);
- ``PostToolUseFailure`` records FAIL (Claude Code); the event itself is the
  failure signal, so a missing exit code never becomes a phantom PASS;
- an interrupted call records nothing;
- a backgrounded call (``run_in_background``) records nothing and keeps the
  lock: its post event only says the command started;
- a command with several suites records each; on failure all of them FAIL.

A result is recorded only if the tree is the one the run started on (noted
by PreToolUse, :mod:`lanes.governor.state.run_notes`): an edit made by anyone during the
run voids it. A suite the governor's pytest plugin recorded for this same
run (``source: "runner"``, on this tree, since the run started) is left as
the plugin wrote it: it judged what pytest really collected and how the run
ended, and one run must never count twice.

Then the run lock is released if this session holds it for this very command,
so a finished or failed run frees it at once. A command that merely mentions a
runner has different text from the locked command and never touches the lock.
Everything here fails open: a post-event hook never blocks.
"""

from __future__ import annotations

from lanes.governor.policy.gate import session_tail
from lanes.governor.policy.suites import resolve
from lanes.governor.state import ledger as ledger_mod
from lanes.governor.state import lock as lock_mod
from lanes.governor.state.debug import debug_log
from lanes.governor.state.run_notes import take_start
from lanes.governor.state.trust import distrust_state

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from lanes.governor.classify.model import Classification
    from lanes.governor.context import HookContext
    from lanes.governor.payload import HookPayload
    from lanes.governor.policy.suites import SuiteMatch

__all__ = ["RUNNER_STOPS", "PostResult", "decide_post", "post_tool_use", "release_own_lock"]

# The exit statuses of a pytest run the governor's pytest plugin stopped
# before its first test (lanes/governor/runner/exits.py, an IntEnum: enum is
# off the hook's path, so the numbers are repeated here and a test ties them).
# No test ran: the run proves nothing, and is never recorded as a FAIL.
RUNNER_STOPS = (6, 7, 8)


class PostResult:
    """What the post hook did: suites recorded (name -> PASS/FAIL), lock released."""

    __slots__ = ("recorded", "released")

    def __init__(self, recorded: dict[str, str], *, released: bool) -> None:
        self.recorded = recorded
        self.released = released

    def __repr__(self) -> str:
        return f"PostResult(recorded={self.recorded!r}, released={self.released!r})"


def _own_lock(record: lock_mod.LockRecord | None, payload: HookPayload) -> bool:
    """Whether ``record`` is the lock this session took for this exact command."""
    tail = session_tail(payload.session_id)
    return (
        record is not None
        and bool(tail)
        and record.session_tail == tail
        and record.command == payload.command
    )


def release_own_lock(ctx: HookContext, payload: HookPayload, record: lock_mod.LockRecord) -> bool:
    """Release the lock iff ``record`` (as read at the start of the post
    event) is this session's lock for this exact command.

    The token check inside :func:`lock.release` keeps a late post hook from
    deleting a lock a sibling took after ours expired, so the file is not read
    a second time here.
    """
    if ctx.state is None or not _own_lock(record, payload):
        return False
    return lock_mod.release(ctx.env, ctx.state.lock, ctx.state.lock_guard, token=record.token)


def decide_post(ctx: HookContext, payload: HookPayload, matches: list[SuiteMatch]) -> PostResult:
    """Record and release for one finished command; ``ctx.tree`` is the tree
    now, ``matches`` the suites it ran (resolved once for the event)."""
    files = ctx.state
    if files is None:
        return PostResult({}, released=False)
    if payload.background:
        # Still running: recording PASS now would be a phantom, and releasing
        # the lock would let a sibling start a second heavy run beside it. The
        # lock frees at the TTL, when the agent exits, or at its next run.
        debug_log("record-skipped", reason="backgrounded", command=payload.command)
        return PostResult({}, released=False)
    problem = distrust_state(files.directory, files.files())
    if problem is not None:
        # Another user can write here: record nothing into (and release
        # nothing from) state we cannot trust; PreToolUse took no lock in it.
        debug_log("state-distrusted", error=problem)
        return PostResult({}, released=False)
    # The lock, read once: its start time is the run's duration, and its
    # token is what the release below checks.
    lock_record = lock_mod.inspect(ctx.env, files.lock).record
    own = lock_record if _own_lock(lock_record, payload) else None
    started = None if own is None else own.started_ts
    note = files.run_note(session_tail(payload.session_id), payload.command)
    recorded: dict[str, str] = {}
    try:
        recorded = _record(ctx, payload, matches, note, started)
    finally:
        # Release never depends on recording: a ledger that cannot be written
        # (a full disk, a directory at its path, a read-only state dir) must
        # not leave every sibling blocked until lock_ttl.
        released = False
        if own is not None:
            released = release_own_lock(ctx, payload, own)
    return PostResult(recorded, released=released)


def _record(
    ctx: HookContext,
    payload: HookPayload,
    matches: list[SuiteMatch],
    note: str,
    started: float | None,
) -> dict[str, str]:
    """The suites this finished command records (name -> PASS/FAIL); a suite
    whose ledger write fails is left out and logged."""
    env = ctx.env
    # Always consumed, whatever the outcome: a note outlives only its own run.
    noted = take_start(env, note)
    started_on, noted_at = (None, None) if noted is None else noted
    recorded: dict[str, str] = {}
    failed = payload.failed
    if payload.interrupted:
        debug_log("record-skipped", reason="interrupted", command=payload.command)
        return recorded
    if failed is None:
        debug_log("record-skipped", reason="outcome unknown", hook_event=payload.event)
        return recorded
    if failed and payload.exit_code in RUNNER_STOPS:
        debug_log("record-skipped", reason=f"the runner stopped it (exit {payload.exit_code})")
        return recorded
    if not matches or ctx.state is None:
        return recorded
    tree = ctx.tree
    if tree is None:
        debug_log("record-skipped", reason="no tree state (not a git work tree?)")
    elif started_on is not None and started_on != tree:
        # Someone edited the tree while the suite ran: its result proves
        # neither the tree it started on nor the one it ended on.
        debug_log("record-skipped", reason="the tree changed during the run")
    else:
        status: ledger_mod.Outcome = "FAIL" if failed else "PASS"
        now = env.now()
        duration = None if started is None else max(0, int((now - started) * 1000))
        entries = ledger_mod.read(env, ctx.state.ledger)
        for match in matches:
            if _runner_recorded(entries.get(match.name), tree, noted_at):
                # The pytest plugin recorded this very run from what it
                # collected and how it ended: one run, one record.
                debug_log("record-skipped", reason="the runner recorded it", suite=match.name)
                continue
            entry = ledger_mod.LedgerEntry(
                status=status,
                ts=now,
                git_head=tree.git_head,
                dirty_digest=tree.dirty_digest,
                agent=ctx.agent,
                session_tail=session_tail(payload.session_id),
                duration_ms=duration,
            )
            try:
                ledger_mod.record(env, ctx.state.ledger, ctx.state.ledger_guard, match.name, entry)
            except (OSError, ValueError) as exc:
                debug_log("record-failed", suite=match.name, error=f"{type(exc).__name__}: {exc}")
                continue
            recorded[match.name] = status
    return recorded


def _runner_recorded(
    entry: ledger_mod.LedgerEntry | None, tree: ledger_mod.TreeState, started: float | None
) -> bool:
    """Whether ``entry`` is the pytest plugin's record of the run that just
    ended: written by the runner, on this tree, since the run started (when
    PreToolUse noted no start, any runner record on this tree counts)."""
    return (
        entry is not None
        and entry.source == "runner"
        and entry.git_head == tree.git_head
        and entry.dirty_digest == tree.dirty_digest
        and (started is None or entry.ts >= started)
    )


def post_tool_use(
    ctx: HookContext, classification: Classification, payload: HookPayload
) -> PostResult:
    """The hook's PostToolUse/PostToolUseFailure against the real world: the
    suites are resolved once here, git runs only when one was run. Never raises."""
    try:
        if ctx.state is None:
            # No state dir (outside git): nothing was ever locked here.
            return PostResult({}, released=False)
        ctx.prepare_state()
        matches = resolve(classification, ctx.settings, cwd=payload.cwd)
        return decide_post(ctx, payload, matches)
    except Exception as exc:  # noqa: BLE001  # a post hook fails open, always
        debug_log("record-error", error=f"{type(exc).__name__}: {exc}", command=payload.command)
        return PostResult({}, released=False)
