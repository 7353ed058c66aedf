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
run voids it.

Then the run lock is released if this session holds it for this very command,
so a finished or failed run frees it at once. A command that merely mentions a
runner has different text from the locked command and never touches the lock.
Everything here fails open: a post-event hook never blocks.
"""

from __future__ import annotations

import os

from lanes.governor.policy.gate import paths_in, session_tail
from lanes.governor.policy.suites import resolve
from lanes.governor.state import ledger as ledger_mod
from lanes.governor.state import lock as lock_mod
from lanes.governor.state.debug import debug_log
from lanes.governor.state.run_notes import run_path, take_start
from lanes.governor.state.trust import distrust_state

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping

    from lanes.governor.classify.model import Classification
    from lanes.governor.payload import HookPayload
    from lanes.governor.settings import ConfigLike
    from lanes.governor.state.env import Environment
    from lanes.governor.state.ledger import TreeState

__all__ = ["PostResult", "decide_post", "post_tool_use", "release_own_lock"]


class PostResult:
    """What the post hook did: suites recorded (name -> PASS/FAIL), lock released."""

    __slots__ = ("recorded", "released")

    def __init__(self, recorded: dict[str, str], *, released: bool) -> None:
        self.recorded = recorded
        self.released = released

    def __repr__(self) -> str:
        return f"PostResult(recorded={self.recorded!r}, released={self.released!r})"


def release_own_lock(
    env: Environment, state_dir: str, payload: HookPayload
) -> tuple[bool, lock_mod.LockRecord | None]:
    """Release the lock iff this session took it for this exact command.

    Returns (released, the record we saw). The token check inside
    :func:`lock.release` keeps a late post hook from deleting a lock a sibling
    took after ours expired.
    """
    files = paths_in(state_dir)
    state = lock_mod.inspect(env, files["lock"])
    record = state.record
    tail = session_tail(payload.session_id)
    if record is None or not tail or record.session_tail != tail:
        return False, None
    if record.command != payload.command:
        return False, None
    released = lock_mod.release(env, files["lock"], files["lock_guard"], token=record.token)
    return released, record


def decide_post(  # noqa: PLR0917  # mirrors gate.decide_pre, positional for the torture lane
    env: Environment,
    state_dir: str | None,
    config: ConfigLike,
    classification: Classification,
    payload: HookPayload,
    tree: TreeState | None,
    agent: str,
) -> PostResult:
    """Record and release for one finished command; ``tree`` is the tree now."""
    if state_dir is None:
        return PostResult({}, released=False)
    if payload.background:
        # Still running: recording PASS now would be a phantom, and releasing
        # the lock would let a sibling start a second heavy run beside it. The
        # lock frees at the TTL, when the agent exits, or at its next run.
        debug_log("record-skipped", reason="backgrounded", command=payload.command)
        return PostResult({}, released=False)
    files = paths_in(state_dir)
    problem = distrust_state(state_dir, files.values())
    if problem is not None:
        # Another user can write here: record nothing into (and release
        # nothing from) state we cannot trust; PreToolUse took no lock in it.
        debug_log("state-distrusted", error=problem)
        return PostResult({}, released=False)
    # Read the lock before releasing it: its start time is the run's duration.
    started: float | None = None
    lock_record = lock_mod.inspect(env, files["lock"]).record
    if (
        lock_record is not None
        and lock_record.session_tail == session_tail(payload.session_id)
        and lock_record.command == payload.command
    ):
        started = lock_record.started_ts
    note = run_path(state_dir, session_tail(payload.session_id), payload.command)
    recorded: dict[str, str] = {}
    try:
        recorded = _record(env, files, config, classification, payload, tree, agent, note, started)
    finally:
        # Release never depends on recording: a ledger that cannot be written
        # (a full disk, a directory at its path, a read-only state dir) must
        # not leave every sibling blocked until lock_ttl (issue 11, defect 1).
        released = False
        if started is not None:
            released, _ = release_own_lock(env, state_dir, payload)
    return PostResult(recorded, released=released)


def _record(  # noqa: PLR0917  # the post decision's inputs, split out of decide_post
    env: Environment,
    files: dict[str, str],
    config: ConfigLike,
    classification: Classification,
    payload: HookPayload,
    tree: TreeState | None,
    agent: str,
    note: str,
    started: float | None,
) -> dict[str, str]:
    """The suites this finished command records (name -> PASS/FAIL); a suite
    whose ledger write fails is left out and logged."""
    # Always consumed, whatever the outcome: a note outlives only its own run.
    started_on = take_start(env, note)
    recorded: dict[str, str] = {}
    failed = payload.failed
    if payload.interrupted:
        debug_log("record-skipped", reason="interrupted", command=payload.command)
    elif failed is None:
        debug_log("record-skipped", reason="outcome unknown", hook_event=payload.event)
    else:
        matches = resolve(classification, config, cwd=payload.cwd)
        if matches and tree is None:
            debug_log("record-skipped", reason="no tree state (not a git work tree?)")
        elif matches and started_on is not None and started_on != tree:
            # Someone edited the tree while the suite ran: its result proves
            # neither the tree it started on nor the one it ended on.
            debug_log("record-skipped", reason="the tree changed during the run")
        elif matches and tree is not None:
            status: ledger_mod.Outcome = "FAIL" if failed else "PASS"
            now = env.now()
            duration = None if started is None else max(0, int((now - started) * 1000))
            for match in matches:
                entry = ledger_mod.LedgerEntry(
                    status=status,
                    ts=now,
                    git_head=tree.git_head,
                    dirty_digest=tree.dirty_digest,
                    agent=agent,
                    session_tail=session_tail(payload.session_id),
                    duration_ms=duration,
                )
                try:
                    ledger_mod.record(
                        env, files["ledger"], files["ledger_guard"], match.name, entry
                    )
                except (OSError, ValueError) as exc:
                    debug_log(
                        "record-failed", suite=match.name, error=f"{type(exc).__name__}: {exc}"
                    )
                    continue
                recorded[match.name] = status
    return recorded


def post_tool_use(
    payload: HookPayload,
    classification: Classification,
    *,
    agent: str,
    config: ConfigLike | None = None,
    environ: Mapping[str, str] | None = None,
) -> PostResult:
    """The hook's PostToolUse/PostToolUseFailure against the real world. Never raises."""
    try:
        return _post(payload, classification, agent, config, environ)
    except Exception as exc:  # noqa: BLE001  # a post hook fails open, always
        debug_log("record-error", error=f"{type(exc).__name__}: {exc}", command=payload.command)
        return PostResult({}, released=False)


def _post(
    payload: HookPayload,
    classification: Classification,
    agent: str,
    config: ConfigLike | None,
    environ: Mapping[str, str] | None,
) -> PostResult:
    from lanes.governor.settings import gate_config
    from lanes.governor.state.env import OSEnvironment
    from lanes.governor.state.tree import find_repo, state_dir, tree_state

    env_vars = os.environ if environ is None else environ
    cwd = payload.cwd or os.getcwd()
    state = state_dir(cwd, env_vars)
    if state is None or not os.path.isdir(state):
        # No state dir: nothing was ever locked here, and recording needs git.
        if state is None:
            return PostResult({}, released=False)
        os.makedirs(state, exist_ok=True)
    if config is None:
        config = gate_config(cwd)
    tree = None
    if not payload.interrupted and resolve(classification, config, cwd=payload.cwd):
        repo = find_repo(cwd)
        tree = None if repo is None else tree_state(repo.top, exclude=state)
    return decide_post(OSEnvironment(), state, config, classification, payload, tree, agent)
