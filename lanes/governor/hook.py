"""``lanes hook``: the agent hook entry point (the hook protocol: docs/architecture.md).

Reads one payload on stdin and answers by the agent protocol:
- allow silently: exit 0, nothing on stdout;
- block (PreToolUse only): exit 2, the reason on stderr;
- advise: exit 0 and ``{"hookSpecificOutput": {...additionalContext}}`` on stdout.

Two paths:

- **the fast path**, taken by nearly every shell command an agent runs: the
  pre-screen (:mod:`lanes.governor.screen.prescreen`) looks at the raw bytes and exits
  when the command can be neither a test run nor a configured suite. Nothing
  but ``sys`` and ``os`` is imported on it — no json, re, pathlib, typing,
  dataclasses or subprocess — so the whole process costs about one interpreter
  start (the ``bench`` lane measures the ratio).
- **the full path**: parse the payload, classify the command, build the
  call's :class:`~lanes.governor.context.HookContext` once, then dispatch on
  the event: ``PreToolUse`` to :func:`_on_pre` (the gate), ``PostToolUse``
  and ``PostToolUseFailure`` to :func:`_on_post` (auto-record and the test
  economy), each handed the same context.

The governor fails open: any fault of its own is exit 0 and a debug-log line.
The only fail-closed rule is the full-sweep gate: when the full path faults
or cannot read the payload, :func:`_last_resort` still applies that rule
(with default settings) before letting the command run.
Post events never block, and no path ever prints ``decision``,
``permissionDecision`` or ``continue``.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Callable

    from lanes.governor.classify.model import Classification
    from lanes.governor.context import HookContext
    from lanes.governor.payload import HookPayload

__all__ = ["AGENTS", "plain_hook_args", "run_hook"]


AGENTS = ("claude", "codex")
"""The agents whose hook protocol ``lanes hook --agent NAME`` speaks (the first is the default)."""


def plain_hook_args(args: list[str]) -> bool:
    """True for the argument lists ``lanes governor install`` registers (none, or
    ``--agent codex``): those skip argparse, which costs more than the hook's work."""
    return not args or (len(args) == 2 and args[0] == "--agent" and args[1] in AGENTS)


def _agent_from_args(args: list[str]) -> str:
    # `lanes governor install --codex` registers `lanes hook --agent codex`.
    if len(args) >= 2 and args[0] == "--agent":
        return args[1]
    return AGENTS[0]


def run_hook(args: list[str]) -> int:
    """Entry point; returns the process exit status."""
    try:
        raw = sys.stdin.buffer.read()
    except (OSError, ValueError):
        return 0
    try:
        from lanes.governor.screen.prescreen import screen
        from lanes.governor.state.debug import debug_enabled

        skip = screen(raw)
        if skip is not None:
            if debug_enabled():
                from lanes.governor.state.debug import debug_log

                debug_log("skip", reason=f"pre-screen: {skip}")
            return 0
        return _full_path(raw, _agent_from_args(args))
    except Exception as exc:  # noqa: BLE001  # fail open: never break the agent's command
        fault = f"{type(exc).__name__}: {str(exc)[:200]}"
        _debug("hook-crash", error=fault)
        return _last_resort(raw, fault)


def _debug(event: str, **fields: object) -> None:
    try:
        from lanes.governor.state.debug import debug_log

        debug_log(event, **fields)
    except Exception:  # noqa: BLE001, S110  # the debug log is best effort on the fault path
        pass


def _last_resort(raw: bytes, fault: str) -> int:
    """The full-sweep rule alone, for a payload the full path could not decide:
    no fault upstream of the rule may turn a gated full sweep into "allow". Everything else fails open."""
    try:
        import os

        from lanes.governor.policy.sweep import last_resort

        message = last_resort(raw, os.environ, fault)
    except Exception as exc:  # noqa: BLE001  # the rule itself failed: nothing left to judge with
        _debug("last-resort-crash", error=f"{type(exc).__name__}: {exc}")
        return 0
    if message is None:
        return 0
    sys.stderr.write(message.rstrip("\n") + "\n")
    return 2


def _full_path(raw: bytes, agent: str) -> int:
    """:func:`_dispatch` with the garbage collector off.

    A hook call lives some tens of milliseconds and leaves no cycles worth
    collecting, yet the imports of a suite command's full path trigger three
    or four collections (~1 ms). Turned back on for in-process callers.
    """
    import gc

    collecting = gc.isenabled()
    gc.disable()
    try:
        return _dispatch(raw, agent)
    finally:
        if collecting:
            gc.enable()


def _dispatch(raw: bytes, agent: str) -> int:
    from lanes.governor.context import HookContext
    from lanes.governor.payload import PayloadError, parse_payload
    from lanes.governor.state.debug import debug_log

    try:
        payload = parse_payload(raw)
    except PayloadError as exc:
        # Mostly not a shell call (allowed); but an oversized or unparseable
        # PreToolUse could hide a full sweep, so the sweep rule still judges it.
        debug_log("skip", reason=exc.message)
        return _last_resort(raw, exc.message)
    # The call's world, once: environment, repository, state files; the
    # settings and the tree are filled in on first use.
    ctx = HookContext.for_hook(payload, agent)
    try:
        if _may_need_tree(ctx, payload):
            # git is the slowest part of a suite command's hook call: start it
            # now, on the other core, and stop it if no suite turns out to run.
            ctx.start_tree()
        # The screen passed this payload on; if that was because a config
        # changed, refresh its suite words so the next unrelated command takes
        # the fast path. (Imported after git has started, like the classifier.)
        from lanes.governor.config_cache import refresh_words

        _guarded("suite-words", refresh_words, payload.cwd)
        # Imported only now: loading the classifier is the hook's largest
        # import, and git (started above) runs meanwhile.
        from lanes.governor.classify.classifier import classify

        # The cwd as a string: classify takes any path-like, and pathlib (with
        # re behind it) would cost half an interpreter start on every test command.
        classification = classify(payload.command, payload.cwd, _test_commands(ctx))
        if payload.event == "PreToolUse":
            return _on_pre(ctx, payload, classification)
        return _on_post(ctx, payload, classification)
    finally:
        ctx.close()


def _may_need_tree(ctx: HookContext, payload: HookPayload) -> bool:
    """Whether this call may need the tree state: a shell command in a git work
    tree with governor state, whose outcome (for a post event) is recordable."""
    if ctx.state is None or ctx.repo is None or not payload.command:
        return False
    if payload.event == "PreToolUse":
        return True
    return not payload.interrupted and not payload.background and payload.failed is not None


def _test_commands(ctx: HookContext) -> tuple[str, ...]:
    """The project's wrapper forms (``[tool.lanes.governor] test_commands``);
    the defaults when its config cannot be read (the gate says so itself)."""
    try:
        return tuple(ctx.settings.governor.test_commands)
    except Exception as exc:  # noqa: BLE001  # fail open to the defaults
        from lanes.governor.classify.runners.names import DEFAULT_TEST_COMMANDS

        _debug("test-commands", error=f"{type(exc).__name__}: {exc}")
        return DEFAULT_TEST_COMMANDS


def _on_pre(ctx: HookContext, payload: HookPayload, classification: Classification) -> int:
    """PreToolUse: the gate decides (exit 2 + reason on stderr blocks, 0 allows).

    The gate sees every payload the pre-screen passes — all test runs and every
    command naming a configured suite word — including scope ``none`` commands
    such as a ``make verify`` suite, so do not filter on scope here.
    """
    from lanes.governor.policy import gate

    decision = gate.pre_tool_use(ctx, classification, payload)
    code = decision.exit_code
    # An allowed decision may carry advice (a sweep outside any git work tree).
    texts = [decision.message] if code == 0 and decision.message else []
    pytest_run = any(inv.runner == "pytest" for inv in classification.invocations)
    if code == 0 and pytest_run and ctx.state is not None:
        # Where the plugin cannot load, the hook is pytest's only gate: say
        # so (one small read of what status/install/the plugin found).
        from lanes.governor.state.plugin_note import advice

        text = _guarded("plugin-note", advice, ctx.env, ctx.state.directory)
        if isinstance(text, str) and text:
            texts.append(text)
    if texts:
        _advise(payload.event, "\n\n".join(texts))
    return code


def _on_post(ctx: HookContext, payload: HookPayload, classification: Classification) -> int:
    """PostToolUse / PostToolUseFailure: record suite results, count and advise;
    never blocks. Each piece runs through :func:`_guarded`, so a fault in one
    never costs the other."""
    from lanes.governor.policy import economy, record
    from lanes.governor.screen import config_notice

    _guarded("record", record.post_tool_use, ctx, classification, payload)
    advice = _guarded("economy", economy.on_post_tool_use, ctx, classification, payload)
    # A broken [tool.lanes] is told once, not only to LANES_DEBUG.
    notice = _guarded("config-notice", config_notice.advice_once, payload.cwd)
    texts = [text for text in (advice, notice) if isinstance(text, str) and text]
    if texts:
        _advise(payload.event, "\n\n".join(texts))
    return 0


def _advise(event: str, text: str) -> None:
    """Print the advice object — the only shape the hook ever writes to stdout."""
    import json

    from lanes.governor.policy.economy import MAX_CONTEXT

    output = {
        "hookSpecificOutput": {"hookEventName": event, "additionalContext": text[:MAX_CONTEXT]}
    }
    sys.stdout.write(json.dumps(output) + "\n")
    sys.stdout.flush()


def _guarded(name: str, function: Callable[..., object], *args: object, **kwargs: object) -> object:
    """Run one governor piece; a fault is logged and yields None, so one piece's
    bug never silences another or breaks the agent's command."""
    try:
        return function(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001  # fail open, per piece
        from lanes.governor.state.debug import debug_log

        debug_log("hook-piece-crash", piece=name, error=f"{type(exc).__name__}: {exc}")
        return None
