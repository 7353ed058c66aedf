"""An agent's ``pytest`` in a directory outside any git repository runs.

There is no ledger, no tree and no lock there, and no project suite a sweep
could waste: the hook allows it with advice, and the runner plugin does not
govern it. Real processes in a real temporary directory that is not a work
tree (checked, not assumed).
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

from tests.governor.runner_helpers import AGENT_VARIABLES
from tests.support.hooks import advice, payload, run_hook

if TYPE_CHECKING:
    from pathlib import Path


def _scratch(tmp_path: Path) -> Path:
    """Four test files (past sweep_min_paths) in a directory git does not know."""
    root = tmp_path / "scratch"
    (root / "tests").mkdir(parents=True)
    for index in range(4):
        (root / "tests" / f"test_{index}.py").write_text(f"def test_{index}():\n    pass\n")
    probe = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, check=False
    )
    assert probe.returncode != 0, f"{root} is inside a git work tree: {probe.stdout!r}"
    return root


def test_the_hook_lets_a_full_run_through_with_advice(tmp_path: Path) -> None:
    root = _scratch(tmp_path)
    proc = run_hook(payload("pytest", cwd=root, event="PreToolUse"), xdg=tmp_path / "xdg")
    assert proc.returncode == 0, proc.stderr
    text = advice(proc)
    assert text is not None
    assert "not in a git work tree" in text


def test_the_plugin_lets_an_agents_full_run_through(tmp_path: Path) -> None:
    root = _scratch(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in AGENT_VARIABLES}
    env.update(CLAUDECODE="1", XDG_STATE_HOME=str(tmp_path / "xdg"))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed" in done.stdout
    assert "lanes governor" not in done.stdout + done.stderr
    # No state directory was made for it.
    assert sorted(p.name for p in root.iterdir()) == ["tests"]
