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

from lanes.governor.policy.push_gates import ci_systems, local_gates, project_root
from lanes.governor.settings import ENV_OVERRIDES
from lanes.governor.state import economy_store as store
from lanes.governor.state.debug import debug_log

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Literal

    from lanes.governor.classify.model import Classification
    from lanes.governor.context import HookContext
    from lanes.governor.payload import HookPayload
    from lanes.governor.settings import GovernorSettings

    Verdict = Literal["silent", "nudge", "stop"]

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
MAX_CONTEXT = 10_000

# The settings the environment (and a command's inline prefix) may override.
_KNOBS = tuple(row.env for row in ENV_OVERRIDES)


def decide(full_runs: int, fires: int, *, max_full: int, escalate_at: int) -> Verdict:
    """The verdict for a session's ``full_runs``-th full run (this one included),
    given how often it already fired."""
    if full_runs >= escalate_at:
        return "stop"
    if full_runs > max_full and fires == 0:
        return "nudge"
    return "silent"


def limits(environ: Mapping[str, str], governor: GovernorSettings) -> tuple[int, int]:
    """``(max_full, escalate_at)``: each from its environment variable when that
    is a whole number (the settings table names it), else from ``governor``
    (the config, or its defaults)."""
    overridden = {row.name: row.from_environment(environ) for row in ENV_OVERRIDES}
    max_full = overridden["max_full"]
    escalate_at = overridden["escalate_at"]
    max_full = governor.max_full if max_full is None else max_full
    escalate_at = governor.escalate_at if escalate_at is None else escalate_at
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
    lines = [
        head,
        # The hook is lanekit: the selector is installed wherever this runs.
        (
            "Which tests: `lanes affected` lists the tests and checks your change needs, each "
            "with the rule that selected it; `lanes affected --run` runs them once."
        ),
        "A suite is never re-run to see whether it passes again.",
    ]
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
    ctx: HookContext, classification: Classification, payload: HookPayload
) -> str | None:
    """Count this command for its session; the advice to show, or None.

    Filtered runs bump only the informational ``filtered_runs`` counter; commands
    that run no tests are not counted at all. The clock and the environment
    come from ``ctx`` (the same Environment seam as the gate and the recorder).
    """
    scope = classification.scope
    if scope == "none":
        debug_log("economy-skip", reason="not a test run")
        return None
    env = ctx.environ
    repo = ctx.repo
    # The repository found once for this call (push_gates.project_root's rule).
    root = os.path.abspath(ctx.cwd) if repo is None else repo.top
    moment = ctx.env.now()
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
    max_full, escalate_at = limits({**env, **inline} if inline else env, ctx.settings.governor)
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
