"""Helpers of the economy, hook I/O and install tests: payloads piped into a
real ``lanes hook`` process, scratch git repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=repo,
        env={**os.environ, **GIT_ENV},
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def git_repo(path: Path) -> Path:
    """An empty git work tree (``git init`` leaves its ``*.sample`` hooks)."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    return path


def lanes_command() -> list[str]:
    """The console script agents run (``lanes hook``), of this interpreter."""
    script = Path(sys.executable).parent / "lanes"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "lanes"]


def payload(
    command: str | list[str],
    *,
    cwd: Path,
    event: str = "PostToolUse",
    session: str = "session-economy-0001",
    tool: str = "Bash",
    **extra: object,
) -> dict[str, object]:
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
    **env: str,
) -> subprocess.CompletedProcess[bytes]:
    """Pipe one payload into a real ``lanes hook`` process."""
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return subprocess.run(
        [*lanes_command(), "hook", *args],
        input=raw,
        capture_output=True,
        env=clean_env(xdg, **env),
        check=False,
        timeout=60,
    )


def advice(proc: subprocess.CompletedProcess[bytes]) -> str | None:
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
