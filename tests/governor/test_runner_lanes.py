"""A lane that measures the suite is not deduplicated by the runner plugin.

Under an agent, a whole-suite pytest run that already passed on this tree
stops with exit 7 (dedup). A lane's own runs must measure anyway: the slow
lane right after another green run, the timing lane once per repeat. The
agent approves the lane as a sweep, as it approves any (the override).
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from tests.governor.runner_helpers import REASON, clear_agent, ledger, write_project

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.integration


def _lanes(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    # Set by this (outer) pytest for the test's call phase: the plugin would
    # take the lane's run for a nested one and stay inert.
    env.pop("PYTEST_CURRENT_TEST", None)
    return subprocess.run(
        [sys.executable, "-m", "lanes", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def test_an_approved_agent_runs_the_slow_lane_twice_on_one_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clear_agent(monkeypatch, tmp_path / "xdg")
    # Three files: a whole suite at the sweep floor (sweep_min_paths), so it
    # is gated, deduplicated and recorded.
    root = write_project(tmp_path / "project", unit_files=3, integ_files=0, tests_per_file=1)
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setenv("LANES_FULL_SWEEP_OK", "1")
    monkeypatch.setenv("LANES_OVERRIDE_REASON", REASON)
    for attempt in (1, 2):
        proc = _lanes(root, "slow", "run", "--", "tests/unit", "-q", "-p", "no:cacheprovider")
        assert proc.returncode == 0, (attempt, proc.stdout[-2000:], proc.stderr[-2000:])
        assert "3 passed" in proc.stdout, attempt
    # The runs were real, and recorded: the lane's PASS is the suite's.
    entries = ledger(root)
    assert any("unit" in key and "PASS" in str(value) for key, value in entries.items()), entries
