"""The governor against a hostile filesystem: FIFOs, devices, directories and
leftovers where its state and cache files belong.

Every case runs a real ``lanes hook`` process: a hang is what a user would
notice (Claude Code waits up to 60 s per hook), so the check is that the
process answers at all, with the same answer as without the planted file.
"""

from __future__ import annotations

import os
import subprocess
from typing import TYPE_CHECKING

import pytest

from tests.support.git import make_repo
from tests.support.hooks import payload, run_hook

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.integration

# Far below the agent's 60 s hook timeout, far above a healthy hook (~50 ms):
# reaching it means the hook was blocked, not slow.
_HANG = 20

_PYPROJECT = """\
[tool.lanes.suites.unit]
paths = ["tests/unit"]
"""


def _project(tmp_path: Path) -> Path:
    # Two suites' worth: `pytest tests/unit` is no full sweep.
    test = "def test_a():\n    pass\n"
    files = {
        "pyproject.toml": _PYPROJECT,
        "tests/unit/test_a.py": test,
        "tests/e2e/test_a.py": test,
    }
    return make_repo(tmp_path / "repo", files)


def _run_hook_bounded(
    data: dict[str, object], xdg: Path, **env: str
) -> subprocess.CompletedProcess[str]:
    try:
        # The debug log is written too: it is one more file to open.
        return run_hook(data, xdg=xdg, env={"LANES_DEBUG": "1", **env}, timeout=_HANG)
    except subprocess.TimeoutExpired:
        pytest.fail("the hook hung on a non-regular state file")


_USER_FILES = ("suite-words.tsv", "gate-config.json", "economy.json", "debug.jsonl")
_STATE_FILES = (
    "verify-ledger.json",
    "verify-ledger.json.lock",
    "test-run.lock",
    "test-run.lock.guard",
    "audit.jsonl",
)


@pytest.mark.parametrize("name", _USER_FILES)
@pytest.mark.parametrize("command", ["ls", "pytest tests/unit"])
@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
def test_a_fifo_in_the_user_state_dir_never_hangs_the_hook(
    tmp_path: Path, name: str, command: str, event: str
) -> None:
    repo = _project(tmp_path)
    xdg = tmp_path / "xdg"
    (xdg / "lanekit").mkdir(parents=True)
    os.mkfifo(xdg / "lanekit" / name)
    proc = _run_hook_bounded(payload(command, cwd=repo, event=event), xdg)
    # Fail open: the command is allowed (or judged as without the cache).
    assert proc.returncode in (0, 2), proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("name", _STATE_FILES)
@pytest.mark.parametrize("command", ["pytest tests/unit", "pytest"])
@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
def test_a_fifo_in_the_repository_state_dir_never_hangs_the_hook(
    tmp_path: Path, name: str, command: str, event: str
) -> None:
    repo = _project(tmp_path)
    state = repo / ".git" / "lanes"
    state.mkdir()
    os.mkfifo(state / name)
    data = payload(command, cwd=repo, event=event, session="hostile-fifo-session-1")
    # An allowed override of the full sweep makes the gate append to audit.jsonl.
    override = {"LANES_FULL_SWEEP_OK": "1", "LANES_OVERRIDE_REASON": "hostile filesystem test"}
    proc = _run_hook_bounded(data, tmp_path / "xdg", **override)
    assert proc.returncode in (0, 2), proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_fifo_as_an_untracked_file_never_hangs_the_tree_digest(tmp_path: Path) -> None:
    repo = _project(tmp_path)
    os.mkfifo(repo / "pipe")
    proc = _run_hook_bounded(payload("pytest tests/unit", cwd=repo, event="PreToolUse"), tmp_path)
    assert proc.returncode == 0, proc.stderr
