"""Helpers of the gate/ledger/tree tests: a scratch repository with suites
configured, and ``Project``, the gate and ledger driven in-process."""

from __future__ import annotations

import json
import os
from pathlib import Path

from lanes.config import Config, load_config
from lanes.governor.classify.classifier import classify
from lanes.governor.context import HookContext, StatePaths
from lanes.governor.payload import HookPayload, parse_payload
from lanes.governor.policy.gate import Decision, decide_pre
from lanes.governor.policy.record import PostResult, decide_post
from lanes.governor.policy.suites import resolve
from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.tree import tree_state
from tests.support.git import make_repo as git_make_repo
from tests.support.hooks import DEFAULT_SESSION, payload

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
    files = {"pyproject.toml": pyproject, ".gitignore": "*.log\n"}
    for sub in ("tests/unit", "tests/integ"):
        files[f"{sub}/test_a.py"] = "def test_a():\n    pass\n"
    return git_make_repo(path, files)


SESSION_A = DEFAULT_SESSION
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
        data = payload(command, event=event, cwd=self.root, session=session)
        data.update(extra)
        return parse_payload(json.dumps(data))

    def pre(
        self, command: str, *, session: str = SESSION_A, environ: dict[str, str] | None = None
    ) -> Decision:
        classification = classify(command, self.root)
        hook = self.hook_payload("PreToolUse", command, session)
        return decide_pre(
            self.context(environ=environ),
            classification,
            hook,
            resolve(classification, self.config, cwd=hook.cwd),
        )

    def post(
        self, command: str, *, session: str = SESSION_A, event: str = "PostToolUse", **extra: object
    ) -> PostResult:
        hook = self.hook_payload(event, command, session, **extra)
        return decide_post(
            self.context(), hook, resolve(classify(command, self.root), self.config, cwd=hook.cwd)
        )

    def context(self, *, environ: dict[str, str] | None = None, tree: bool = True) -> HookContext:
        """This project's hook-call world: its state dir and config, the tree as
        git sees it now (none with ``tree=False``), this process as the agent."""
        return HookContext.modelled(
            self.env,
            state_dir=self.state,
            settings=self.config,
            tree=tree_state(str(self.root)) if tree else None,
            agent="claude",
            agent_pid=os.getpid(),
            environ=environ or {},
        )

    def run(self, command: str, *, session: str = SESSION_A) -> Decision:
        """Pre, then a successful post when allowed: one agent tool call."""
        decision = self.pre(command, session=session)
        if decision.action == "allow":
            self.post(command, session=session)
        return decision

    @property
    def lock_path(self) -> Path:
        return Path(StatePaths(self.state).lock)

    def audit(self) -> list[dict[str, object]]:
        path = Path(StatePaths(self.state).audit)
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
