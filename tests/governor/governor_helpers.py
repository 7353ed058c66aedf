"""Shared helpers of the gate/ledger/tree tests: scratch git repositories and payloads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hook_io_helpers import clean_env, git

from lanes.config import Config, load_config
from lanes.governor.classify.classifier import classify
from lanes.governor.payload import HookPayload, parse_payload
from lanes.governor.policy.gate import Decision, decide_pre, paths_in
from lanes.governor.policy.record import PostResult, decide_post
from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.tree import tree_state

PYPROJECT = """\
[tool.lanes.suites.unit]
paths = ["tests/unit"]
command = "pytest tests/unit -q"
max_age = 3600

[tool.lanes.suites.integ]
paths = ["tests/integ"]
command = "pytest tests/integ -m 'not slow'"

[tool.lanes.suites.verify]
runner = "command"
command = "make verify"
"""


def make_repo(path: Path, pyproject: str = PYPROJECT) -> Path:
    """A committed repository with a [tool.lanes] config and a small test tree."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    (path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    (path / ".gitignore").write_text("*.log\n", encoding="utf-8")
    for sub in ("tests/unit", "tests/integ"):
        (path / sub).mkdir(parents=True, exist_ok=True)
        (path / sub / "test_a.py").write_text("def test_a():\n    pass\n", encoding="utf-8")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "init")
    return path


def payload(
    event: str,
    command: str,
    *,
    cwd: Path,
    session: str = "session-0000-a1b2",
    **extra: object,
) -> dict[str, object]:
    """A Claude Code hook payload for the Bash tool."""
    data: dict[str, object] = {
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "session_id": session,
        "cwd": str(cwd),
    }
    data.update(extra)
    return data


def run_hook(
    data: dict[str, object], *, xdg: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Pipe one payload into a real `lanes hook` process (state in <git common dir>/lanes)."""
    return subprocess.run(
        [sys.executable, "-m", "lanes", "hook"],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        env=clean_env(xdg, **(env or {})),
        cwd=str(data.get("cwd", ".")),
        check=False,
        timeout=60,
    )


SESSION_A = "session-0000-a1b2"
SESSION_B = "session-9999-9f3e"


class Project:
    """A scratch repository with the gate's state in ``.git/lanes``."""

    def __init__(self, root: Path) -> None:
        self.root = make_repo(root)
        self.state = str(root / ".git" / "lanes")
        Path(self.state).mkdir()
        self.config: Config = load_config(cwd=self.root)
        self.env = OSEnvironment()

    def hook_payload(self, event: str, command: str, session: str, **extra: object) -> HookPayload:
        return parse_payload(
            json.dumps(payload(event, command, cwd=self.root, session=session, **extra))
        )

    def pre(
        self, command: str, *, session: str = SESSION_A, environ: dict[str, str] | None = None
    ) -> Decision:
        return decide_pre(
            self.env,
            self.state,
            self.config,
            classify(command, self.root),
            self.hook_payload("PreToolUse", command, session),
            tree_state(str(self.root)),
            "claude",
            os.getpid(),
            environ or {},
        )

    def post(
        self, command: str, *, session: str = SESSION_A, event: str = "PostToolUse", **extra: object
    ) -> PostResult:
        return decide_post(
            self.env,
            self.state,
            self.config,
            classify(command, self.root),
            self.hook_payload(event, command, session, **extra),
            tree_state(str(self.root)),
            "claude",
        )

    def run(self, command: str, *, session: str = SESSION_A) -> Decision:
        """Pre, then a successful post when allowed: one agent tool call."""
        decision = self.pre(command, session=session)
        if decision.action == "allow":
            self.post(command, session=session)
        return decision

    @property
    def lock_path(self) -> Path:
        return Path(paths_in(self.state)["lock"])

    def audit(self) -> list[dict[str, object]]:
        path = Path(paths_in(self.state)["audit"])
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
