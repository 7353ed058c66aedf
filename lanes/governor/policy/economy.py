"""The test economy: count full-suite runs per project per agent session, and nudge.

The budget is one minimal manual run plus CI. The counting rule:

- filtered runs (a path, ``-k``, ``-run``, ...) never count against anything;
- full runs up to ``max_full`` (default 2) are silent;
- the next one fires the **nudge**, once;
- runs after it stay silent until ``escalate_at`` (default 5) — the agent was
  told; give it room to act;
- from ``escalate_at`` on, every full run fires the **STOP** form (its text
  starts with ``STOP:``).

Knobs, strongest first: ``LANES_MAX_FULL`` / ``LANES_ESCALATE_AT`` as inline
prefixes of the command, then in the environment (a value that is not a whole
number is ignored), then
``[tool.lanes.governor] max_full`` / ``escalate_at``, then the defaults. The
config is only read when a full run happens.

This is advice, never a gate: the caller prints the message as
``additionalContext``. Any fault here leaves the agent alone: an unreadable
store means silence, not a guess.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Final, Literal

from lanes.governor.policy.push_gates import ci_systems, local_gates, project_root
from lanes.governor.state import economy_store as store
from lanes.governor.state.debug import debug_log

if TYPE_CHECKING:
    from collections.abc import Mapping

    from lanes.governor.classify.model import Classification
    from lanes.governor.payload import HookPayload

__all__ = [
    "MAX_CONTEXT",
    "Verdict",
    "decide",
    "limits",
    "message",
    "on_post_tool_use",
    "session_counters",
]

# Claude Code truncates additionalContext past 10,000 characters.
MAX_CONTEXT: Final = 10_000

Verdict = Literal["silent", "nudge", "stop"]
_KNOBS: Final = ("LANES_MAX_FULL", "LANES_ESCALATE_AT")


def decide(full_runs: int, fires: int, *, max_full: int, escalate_at: int) -> Verdict:
    """The verdict for a session's ``full_runs``-th full run (this one included),
    given how often it already fired."""
    if full_runs >= escalate_at:
        return "stop"
    if full_runs > max_full and fires == 0:
        return "nudge"
    return "silent"


def _env_int(environ: Mapping[str, str], name: str) -> int | None:
    value = environ.get(name, "").strip()
    return int(value) if value.isdigit() else None


def limits(environ: Mapping[str, str], cwd: str) -> tuple[int, int]:
    """``(max_full, escalate_at)`` from the environment, the config, the defaults."""
    max_full = _env_int(environ, "LANES_MAX_FULL")
    escalate_at = _env_int(environ, "LANES_ESCALATE_AT")
    if max_full is None or escalate_at is None:
        # The gate's cached view of the config: loading lanes.config itself
        # would cost about two interpreter starts on every full run. A broken
        # config yields the defaults there (the sweep gate reports it).
        from lanes.governor.settings import gate_config  # full runs only

        governor = gate_config(cwd).governor
        configured = (governor.max_full, governor.escalate_at)
        max_full = configured[0] if max_full is None else max_full
        escalate_at = configured[1] if escalate_at is None else escalate_at
    return max_full, max(escalate_at, 1)


def message(verdict: Verdict, full_runs: int, max_full: int, root: str) -> str:
    """The advice for ``verdict`` in project ``root`` (never longer than
    :data:`MAX_CONTEXT`)."""
    runs = f"full-suite run {full_runs} in this session (budget: {max_full})"
    if verdict == "stop":
        head = (
            f"STOP: {runs}. Stop re-running the whole suite. Run only the tests of the "
            "surface you changed, once, and let CI or the gates named below prove the push."
        )
    else:
        head = (
            f"Test economy: {runs}. The budget is one minimal manual run plus CI: run "
            "the tests of the surface you changed (and of what consumes it) once; the "
            "full suite is CI's job on push."
        )
    lines = [head, "A suite is never re-run to see whether it passes again."]
    ci = ci_systems(root)
    gates = local_gates(root)
    if ci:
        lines.append(
            f"CI: {'; '.join(ci)}. Check the latest run, e.g. `gh run list --limit 3`, "
            "and treat it as the verdict."
        )
    else:
        lines.append("CI: none found in this repository.")
    if gates:
        lines.append(
            f"Local gates wired: {'; '.join(gates)}. If CI is dead or absent, they run "
            "once before push — no extra manual full run."
        )
    else:
        lines.append(
            "Local gates: none wired (no lefthook, pre-commit, husky or git pre-push hook). "
            "If CI is dead or absent, one manual full-suite run before push is the gate."
        )
    lines.append(
        "Exception: deliberate repetition for a named diagnosis (flake triage: a measured "
        "distribution) is fine — state that diagnosis in your response and continue."
    )
    return "\n".join(lines)[:MAX_CONTEXT]


def on_post_tool_use(
    payload: HookPayload,
    classification: Classification,
    *,
    environ: Mapping[str, str] | None = None,
    now: float | None = None,
) -> str | None:
    """Count this command for its session; the advice to show, or None.

    Filtered runs bump only the informational ``filtered_runs`` counter; commands
    that run no tests are not counted at all.
    """
    scope = classification.scope
    if scope == "none":
        debug_log("economy-skip", reason="not a test run")
        return None
    env = os.environ if environ is None else environ
    cwd = payload.cwd or os.getcwd()
    root = project_root(cwd)
    moment = time.time() if now is None else now
    session = payload.session_id or "unknown-session"
    if scope == "filtered":
        try:
            store.update_session(root, session, moment, _count_filtered)
        except (store.Unreadable, OSError) as exc:
            debug_log("economy-skip", reason=f"store: {exc}")
        else:
            debug_log("economy-skip", reason="filtered run", project=root)
        return None
    # The knobs are honoured as inline prefixes of the command too
    # (`LANES_MAX_FULL=5 pytest`), and those win over the environment.
    inline = {
        name: value
        for inv in classification.invocations
        for name, value in inv.env.items()
        if name in _KNOBS
    }
    max_full, escalate_at = limits({**env, **inline} if inline else env, cwd)
    verdicts: list[Verdict] = []

    def count_full(counters: store.SessionCounters) -> None:
        counters.full_runs += 1
        verdict = decide(
            counters.full_runs, counters.fires, max_full=max_full, escalate_at=escalate_at
        )
        if verdict != "silent":
            counters.fires += 1
            if counters.first_fire is None:
                counters.first_fire = moment
        verdicts.append(verdict)

    try:
        counters = store.update_session(root, session, moment, count_full)
    except (store.Unreadable, OSError) as exc:
        debug_log("economy-skip", reason=f"store: {exc}")
        return None
    verdict = verdicts[0]
    runners = sorted({inv.runner for inv in classification.invocations if inv.scope == "full"})
    state = {
        "runner": runners,
        "project": root,
        "full_runs": counters.full_runs,
        "fires": counters.fires,
        "max_full": max_full,
        "escalate_at": escalate_at,
    }
    if verdict == "silent":
        debug_log("economy-skip", reason="within budget or already nudged", **state)
        return None
    debug_log("economy-fire", escalation=verdict, **state)
    return message(verdict, counters.full_runs, max_full, root)


def _count_filtered(counters: store.SessionCounters) -> None:
    counters.filtered_runs += 1


def session_counters(cwd: str, session_id: str) -> dict[str, object] | None:
    """This session's counters in the project containing ``cwd`` (for
    ``lanes governor status``); None when the session has none or the store is
    unreadable."""
    try:
        counters = store.read_session(project_root(cwd), session_id)
    except (store.Unreadable, OSError) as exc:
        debug_log("economy-status", error=str(exc))
        return None
    return None if counters is None else counters.to_dict()
