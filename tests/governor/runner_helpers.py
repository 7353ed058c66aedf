"""Helpers of the runner-plugin tests: a scratch git project with two pytest
suites, and the environment of an agent's (or a human's) pytest run."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tests.support.git import commit_all, git_repo

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

# Every variable that says "an agent runs this", or steers the governor.
AGENT_VARIABLES = (
    "CLAUDECODE",
    "CODEX_THREAD_ID",
    "CODEX_CI",
    "CODEX_SANDBOX",
    "CODEX_SANDBOX_NETWORK_DISABLED",
    "LANES_AGENT",
    "LANES_FULL_SWEEP_OK",
    "LANES_OVERRIDE_REASON",
    "LANES_TEST_FORCE",
    "LANES_STATE_DIR",
    "LANES_SESSION_ID",
    "CLAUDE_SESSION_ID",
    "CODEX_SESSION_ID",
    "PYTEST_ADDOPTS",
    "MUTANT_UNDER_TEST",
    # Set by the outer pytest: the plugin would take the inner run for a
    # part of the outer test and stay inert.
    "PYTEST_CURRENT_TEST",
)

TWO_SUITES = """\
[tool.lanes.suites.unit]
paths = ["tests/unit"]
command = "pytest tests/unit"

[tool.lanes.suites.integ]
paths = ["tests/integ"]
command = "pytest tests/integ"
"""

REASON = "release check before tagging"


def clear_agent(monkeypatch: pytest.MonkeyPatch, xdg: Path) -> None:
    """A human's shell: no agent variable, no governor override, a private
    per-user state directory."""
    for name in AGENT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(xdg))


def write_project(
    root: Path,
    *,
    unit_files: int = 4,
    integ_files: int = 2,
    tests_per_file: int = 3,
    pyproject: str = TWO_SUITES,
    body: str = "pass",
) -> Path:
    """A committed git project at ``root``: ``tests/unit`` and ``tests/integ``
    of ``tests_per_file`` tests per file, each test running ``body``."""
    git_repo(root)
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    (root / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n*.stamps\n", encoding="utf-8")
    for sub, count in (("unit", unit_files), ("integ", integ_files)):
        directory = root / "tests" / sub
        directory.mkdir(parents=True, exist_ok=True)
        for index in range(count):
            tests = "".join(
                f"def test_{index}_{n}():\n    {body}\n\n\n" for n in range(tests_per_file)
            )
            (directory / f"test_{sub}{index}.py").write_text(tests, encoding="utf-8")
    commit_all(root)
    return root


def ledger(root: Path) -> dict[str, dict[str, object]]:
    """The project's verify ledger ({} when none was written)."""
    path = root / ".git" / "lanes" / "verify-ledger.json"
    if not path.exists():
        return {}
    data: dict[str, dict[str, object]] = json.loads(path.read_text(encoding="utf-8"))
    return data


def audit_lines(root: Path) -> list[dict[str, object]]:
    path = root / ".git" / "lanes" / "audit.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
