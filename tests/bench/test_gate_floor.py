"""gate-latency's floor runs exactly the git commands the hook runs, and nothing else.

The floor (interpreter start + the tree state's git processes) is what the
gating goal measures the hook against; if the two ever ran different git
commands, "the hook's own cost" would silently include or hide git work.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from lanes.bench.gate import _floor_argv, _payload, _populate_ledger, make_big_repo
from tests.support.hooks import run_hook

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.integration


def _logging_git(bin_dir: Path, log: Path) -> str:
    """A ``git`` first on PATH that writes its argv (NUL-separated) to a file
    of its own under ``log`` — the hook runs two gits at once, and lines
    appended to one file would interleave — then runs the real git; the PATH
    to use."""
    real = shutil.which("git")
    assert real is not None
    bin_dir.mkdir()
    log.mkdir()
    script = bin_dir / "git"
    script.write_text(
        f"#!/bin/sh\nprintf '%s\\0' \"$@\" > '{log}'/$$\nexec '{real}' \"$@\"\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


def _calls(log: Path) -> list[tuple[str, ...]]:
    return sorted(
        tuple(call.read_bytes().decode().rstrip("\0").split("\0")) for call in log.iterdir()
    )


def test_the_floor_runs_the_hooks_git_commands(tmp_path: Path) -> None:
    repo = make_big_repo(tmp_path / "repo", 20)
    state = repo / ".git" / "lanes"
    state.mkdir()
    _populate_ledger(repo, state, fresh=True)
    hit = _payload(repo, "bench-session-0001")
    hook_log, floor_log = tmp_path / "hook-calls", tmp_path / "floor-calls"

    hook = run_hook(
        json.loads(hit),
        xdg=tmp_path / "xdg",
        env={"PATH": _logging_git(tmp_path / "hook-bin", hook_log)},
    )
    assert hook.returncode == 2, hook.stderr
    assert hook.stderr.startswith("unit green"), hook.stderr

    floor = subprocess.run(
        _floor_argv(sys.executable, repo, state),
        input=hit,
        capture_output=True,
        env={**os.environ, "PATH": _logging_git(tmp_path / "floor-bin", floor_log)},
        cwd=repo,
        check=False,
    )
    assert floor.returncode == 0, floor.stderr

    assert _calls(hook_log), "the hook ran no git at all"
    assert _calls(floor_log) == _calls(hook_log)
