"""``lanes hook``: the agent hook entry point (DESIGN.md, "the hook interface").

Reads one payload on stdin and answers by the agent protocol:
- allow silently: exit 0, nothing on stdout;
- block (PreToolUse only): exit 2, the reason on stderr;
- advise: exit 0 and ``{"hookSpecificOutput": {...additionalContext}}`` on stdout.

The governor fails open: any fault of its own is exit 0 and a debug-log line.
The only fail-closed rule is the full-sweep gate, which lives in the gate.
"""

from __future__ import annotations

import sys

__all__ = ["run_hook"]

BLOCK = 2


def _agent_from_args(args: list[str]) -> str:
    # `lanes governor install --codex` registers `lanes hook --agent codex`.
    if len(args) >= 2 and args[0] == "--agent":
        return args[1]
    return "claude"


def run_hook(args: list[str]) -> int:
    """Entry point; returns the process exit status."""
    try:
        raw = sys.stdin.buffer.read()
    except (OSError, ValueError):
        return 0
    try:
        return _dispatch(raw, _agent_from_args(args))
    except Exception as exc:  # noqa: BLE001  # fail open: never break the agent's command
        from lanes.governor._debug import debug_log  # noqa: PLC0415

        debug_log("hook-crash", error=f"{type(exc).__name__}: {exc}")
        return 0


def _dispatch(raw: bytes, agent: str) -> int:
    from lanes.governor.payload import PayloadError, parse_payload  # noqa: PLC0415

    try:
        payload = parse_payload(raw)
    except PayloadError as exc:
        from lanes.governor._debug import debug_log  # noqa: PLC0415

        debug_log("skip", reason=exc.message)
        return 0
    from lanes.governor.classify import classify  # noqa: PLC0415

    del payload, classify, agent
    return 0
