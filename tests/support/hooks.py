"""Agent hook payloads piped into a real ``lanes hook`` process, and the
environment such a process sees."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from tests.support.git import GIT_ENV
from tests.support.processes import lanes_command

if TYPE_CHECKING:
    from collections.abc import Mapping

DEFAULT_SESSION = "session-0000-a1b2"


def payload(
    command: str | list[str],
    *,
    cwd: Path,
    event: str = "PostToolUse",
    session: str = DEFAULT_SESSION,
    tool: str = "Bash",
    **extra: object,
) -> dict[str, object]:
    """A Claude Code hook payload for one tool call; a Post event carries a
    successful ``tool_response`` unless ``extra`` gives one."""
    data: dict[str, object] = {
        "session_id": session,
        "transcript_path": str(cwd / "transcript.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": {"command": command, "description": "run something"},
    }
    if event != "PreToolUse":
        data["tool_response"] = {"stdout": "tests passed\n", "stderr": "", "interrupted": False}
    data.update(extra)
    return data


def clean_env(xdg: Path, **overrides: str) -> dict[str, str]:
    """The environment of an agent's hook: no LANES_* knobs unless asked for,
    per-user state under ``xdg``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LANES_", "CLAUDE_"))}
    env.update(GIT_ENV)
    env["XDG_STATE_HOME"] = str(xdg)
    env.update(overrides)
    return env


def run_hook(
    data: dict[str, object] | bytes,
    *,
    xdg: Path,
    args: tuple[str, ...] = (),
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Pipe one payload (or raw bytes) into a real ``lanes hook`` process with
    ``env`` added to :func:`clean_env`, run
    in ``cwd``, else the payload's, as an agent would; its output decoded as UTF-8
    (the hook protocol's encoding: bytes that are not are a failure)."""
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    if cwd is None and not isinstance(data, bytes):
        cwd = Path(str(data["cwd"]))
    done = subprocess.run(
        [*lanes_command(), "hook", *args],
        input=raw,
        capture_output=True,
        env=clean_env(xdg, **(env or {})),
        cwd=cwd,
        check=False,
        timeout=timeout,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def advice(proc: subprocess.CompletedProcess[str]) -> str | None:
    """The additionalContext of a hook's output (None when silent), checking
    the exact output shape on the way."""
    assert proc.returncode == 0, proc.stderr
    if not proc.stdout:
        return None
    output = json.loads(proc.stdout)
    assert set(output) == {"hookSpecificOutput"}
    specific = output["hookSpecificOutput"]
    assert set(specific) == {"hookEventName", "additionalContext"}
    text = specific["additionalContext"]
    assert isinstance(text, str)
    assert 0 < len(text) <= 10_000
    return text
