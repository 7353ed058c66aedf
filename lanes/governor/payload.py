"""Agent hook payloads (Claude Code, Codex CLI) -> one typed view.

Both agents send a JSON object on stdin. What differs:
- Claude Code sends a failed command to ``PostToolUseFailure`` with
  ``error: "Exit code N\\n..."``; Codex sends it to ``PostToolUse`` with the exit
  code inside ``tool_response``.
- An interrupted call carries ``is_interrupt`` (failure event) or
  ``tool_response.interrupted``.
- A backgrounded call (Claude Code ``tool_input.run_in_background``) reaches
  the post event as soon as it starts: no outcome yet.

Anything that is not a shell-tool call is rejected with :class:`PayloadError`,
which the hook turns into a silent exit 0 (the governor fails open).
"""

from __future__ import annotations

from lanes._jsonscan import loads
from lanes.errors import LanesError

__all__ = [
    "EVENTS",
    "MAX_PAYLOAD",
    "SHELL_TOOLS",
    "HookPayload",
    "OversizedPayloadError",
    "PayloadError",
    "parse_payload",
]

EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
# Claude Code calls its shell tool "Bash"; Codex CLI's hooks name it "Bash" too
# in current releases, older ones "shell" / "local_shell".
SHELL_TOOLS = ("Bash", "shell", "local_shell", "exec_command")

# Past this the payload is not parsed at all (the hard cap): the hook judges
# its raw bytes with the full-sweep rule only (lanes.governor.policy.sweep).
MAX_PAYLOAD = 4 * 1024 * 1024
# An exit code is a small integer; a longer digit string is no exit code (and
# int() of 4,300 digits raises instead of returning).
_MAX_CODE_DIGITS = 12


class PayloadError(LanesError, ValueError):
    """The hook payload is not a shell-tool call we can read."""


class OversizedPayloadError(PayloadError):
    """The payload is past :data:`MAX_PAYLOAD`: never parsed, never allowed
    unjudged (a full sweep could hide in it)."""


class HookPayload:
    """The parts of a hook payload the governor uses."""

    __slots__ = (
        "background",
        "command",
        "cwd",
        "event",
        "exit_code",
        "interrupted",
        "session_id",
        "tool_name",
    )

    def __init__(
        self,
        *,
        event: str,
        tool_name: str,
        command: str,
        session_id: str,
        cwd: str | None,
        exit_code: int | None,
        interrupted: bool,
        background: bool = False,
    ) -> None:
        self.event = event
        self.tool_name = tool_name
        self.command = command
        self.session_id = session_id
        self.cwd = cwd
        self.exit_code = exit_code
        self.interrupted = interrupted
        # Claude Code's `run_in_background`: the post event arrives when the
        # command was *started*, so it says nothing about the outcome.
        self.background = background

    @property
    def session_tail(self) -> str:
        """The last characters of the session id: enough to tell sessions apart
        in a message, short enough to read."""
        return self.session_id[-4:] if self.session_id else "????"

    @property
    def failed(self) -> bool | None:
        """True/False when the outcome is known, None when it is not.

        ``PostToolUseFailure`` is a failure even without a readable code: the
        event itself is the signal, and a missing code must never become a
        phantom PASS.
        """
        if self.event == "PostToolUseFailure":
            return True
        if self.exit_code is None:
            return None if self.event != "PostToolUse" else False
        return self.exit_code != 0

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"HookPayload({fields})"


def _exit_code_from_error(error: object) -> int | None:
    """``"Exit code 2\\n..."`` -> 2."""
    if not isinstance(error, str):
        return None
    head = error.lstrip()[:40]
    if not head.startswith("Exit code"):
        return None
    digits = head[len("Exit code") :].strip().split(maxsplit=1)
    if digits:
        return _int_or_none(digits[0])
    return None


def _int_or_none(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        digits = value.strip().removeprefix("-")
        if digits.isdecimal() and digits.isascii() and len(digits) <= _MAX_CODE_DIGITS:
            return int(value.strip())
    return None


def _exit_code(data: dict[str, object]) -> int | None:
    response = data.get("tool_response")
    if isinstance(response, dict):
        for key in ("exit_code", "exitCode", "returncode", "status"):
            code = _int_or_none(response.get(key))
            if code is not None:
                return code
    for key in ("exit_code", "exitCode"):
        code = _int_or_none(data.get(key))
        if code is not None:
            return code
    return _exit_code_from_error(data.get("error"))


def parse_payload(raw: str | bytes) -> HookPayload:
    """Parse one hook payload; :class:`PayloadError` for anything unusable."""
    if len(raw) > MAX_PAYLOAD:
        msg = f"hook payload is {len(raw)} bytes, more than the {MAX_PAYLOAD} accepted"
        raise OversizedPayloadError(
            msg,
            hint="the governor judges only whether it could be a full sweep; split the command",
        )
    try:
        data = loads(raw)
    except (ValueError, RecursionError) as exc:
        msg = f"hook payload is not JSON: {str(exc)[:200]}"
        raise PayloadError(
            msg,
            hint="run `lanes hook` only from an agent's hook configuration (see `lanes governor install`)",
        ) from None
    if not isinstance(data, dict):
        msg = f"hook payload must be a JSON object, got {type(data).__name__}"
        raise PayloadError(
            msg,
            hint="the agent hook protocol sends one JSON object on stdin",
        )
    event = data.get("hook_event_name")
    if event not in EVENTS:
        msg = f"hook_event_name must be one of {', '.join(EVENTS)}, got {event!r}"
        raise PayloadError(
            msg,
            hint="register `lanes hook` for PreToolUse, PostToolUse and PostToolUseFailure only",
        )
    tool = data.get("tool_name")
    if tool not in SHELL_TOOLS:
        msg = f"tool_name {tool!r} is not a shell tool ({', '.join(SHELL_TOOLS)})"
        raise PayloadError(
            msg,
            hint="restrict the hook's matcher to Bash",
        )
    tool_input = data.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        # Codex may send argv as a list; rebuild the shell text it stands for.
        import shlex  # rare path: keep shlex off the common one

        command = shlex.join(command)
    if not isinstance(command, str):
        msg = f"tool_input.command must be a string, got {type(command).__name__}"
        raise PayloadError(
            msg,
            hint="the payload is not a shell-tool call; nothing to govern",
        )
    session = data.get("session_id")
    cwd = data.get("cwd")
    response = data.get("tool_response")
    interrupted = data.get("is_interrupt") is True or (
        isinstance(response, dict) and response.get("interrupted") is True
    )
    return HookPayload(
        event=event,
        tool_name=tool,
        command=command,
        session_id=session if isinstance(session, str) else "",
        cwd=cwd if isinstance(cwd, str) and cwd else None,
        exit_code=_exit_code(data),
        interrupted=interrupted,
        background=isinstance(tool_input, dict) and tool_input.get("run_in_background") is True,
    )
