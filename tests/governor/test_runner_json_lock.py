"""A heavy run of another ecosystem holds the hook's JSON run lock: a governed
pytest's heavy run refuses while it lives, by the JSON lock's own liveness rule.

Real processes throughout: the other agent is a live process (its pid is the
lock's owner, as ``CLAUDE_PID`` names it to the real ``lanes hook``), the lock
is taken by the hook's PreToolUse of ``npm test``, and the pytest runs are
subprocesses of an agent's shell (``CLAUDECODE=1``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from lanes.governor.runner.exits import RunnerExit
from tests.governor.runner_helpers import REASON, TWO_SUITES, clear_agent, ledger, write_project
from tests.support.git import commit_all
from tests.support.hooks import payload, run_hook

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

pytest_plugins = ["pytester"]

WEB_SUITE = (
    TWO_SUITES
    + """
[tool.lanes.suites.web]
runner = "npm"
command = "npm test"
"""
)


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Two pytest suites and an npm suite (locked, as every suite is by default)."""
    clear_agent(monkeypatch, tmp_path / "xdg")
    root = write_project(pytester.path, pyproject=WEB_SUITE)
    # pytester writes the subprocess's output beside the project while it runs.
    with (root / ".gitignore").open("a", encoding="utf-8") as handle:
        handle.write("/stdout\n/stderr\n/runpytest-*\n")
    commit_all(root)
    return root


@pytest.fixture
def other_agent() -> Iterator[subprocess.Popen[bytes]]:
    """A live process standing for another agent (not an ancestor of the runs)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def _lock(root: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((root / ".git/lanes/test-run.lock").read_text())
    return data


def _heavy_pytest(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.RunResult:
    """An agent's approved full run of suite unit, as its own process."""
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setenv("LANES_FULL_SWEEP_OK", "1")
    monkeypatch.setenv("LANES_OVERRIDE_REASON", REASON)
    # Without this test's PYTEST_CURRENT_TEST the plugin governs the run
    # instead of taking it for a part of this test.
    os.environ.pop("PYTEST_CURRENT_TEST", None)
    return pytester.runpytest_subprocess("tests/unit")


def test_a_live_npm_run_refuses_a_heavy_pytest_run_until_its_agent_dies(
    pytester: pytest.Pytester,
    project: Path,
    other_agent: subprocess.Popen[bytes],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    pre = run_hook(
        payload("npm test", cwd=project, event="PreToolUse", session="other-session-9f3e"),
        xdg=tmp_path / "xdg",
        env={"CLAUDE_PID": str(other_agent.pid)},
    )
    assert pre.returncode == 0, pre.stderr
    assert _lock(project)["agent_pid"] == other_agent.pid

    refused = _heavy_pytest(pytester, monkeypatch)
    assert refused.ret == RunnerExit.LOCKED, refused.stdout.str()
    refused.assert_outcomes()
    refused.stdout.fnmatch_lines(
        [f"*run lock held: claude (pid {other_agent.pid}, session …9f3e) has been running web*"]
    )
    assert "`npm test`" in refused.stdout.str()
    # The refused run gave its kernel lock back and recorded nothing.
    assert ledger(project) == {}
    assert (project / ".git/lanes/test-run.flock").read_text() == ""

    # The JSON lock's liveness rule: its owner gone, the lock is free.
    other_agent.kill()
    other_agent.wait()
    ran = _heavy_pytest(pytester, monkeypatch)
    assert ran.ret == 0, ran.stdout.str()
    ran.assert_outcomes(passed=12)
    assert ledger(project)["unit"]["status"] == "PASS"


def test_the_lock_its_own_hook_took_does_not_stop_the_run(
    pytester: pytest.Pytester, project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The hook's PreToolUse of this very command takes the JSON lock for its
    agent — here this test's process, the pytest run's parent — and the run
    it approved goes ahead."""
    command = f"LANES_FULL_SWEEP_OK=1 LANES_OVERRIDE_REASON='{REASON}' pytest tests/unit"
    pre = run_hook(payload(command, cwd=project, event="PreToolUse"), xdg=tmp_path / "xdg")
    assert pre.returncode == 0, pre.stderr
    assert _lock(project)["agent_pid"] == os.getpid()

    ran = _heavy_pytest(pytester, monkeypatch)
    assert ran.ret == 0, ran.stdout.str()
    ran.assert_outcomes(passed=12)
