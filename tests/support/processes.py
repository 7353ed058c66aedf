"""Real processes in tests: the ``lanes`` command of this interpreter, and
whether a process the code under test should have stopped is still running."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping


def lanes_command() -> list[str]:
    """The console script users and agents run (``lanes``), of this interpreter."""
    script = Path(sys.executable).parent / "lanes"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "lanes"]


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs. A zombie still answers ``kill(pid, 0)``: it
    is dead, just not reaped, and ``/proc`` says which it is; without ``/proc``
    (macOS) the signal's answer stands."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    if not Path("/proc").is_dir():
        return True
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().split(") ", 1)[1][0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone between the two looks
        return False


def run_lanes(
    *args: str, cwd: Path, env: Mapping[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``lanes *args`` as a user's shell would, in ``cwd`` (``env``, else
    this process's environment); never raises on a failing exit."""
    return subprocess.run(
        [*lanes_command(), *args],
        cwd=cwd,
        env=None if env is None else dict(env),
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def failing_tests(root: Path) -> set[str]:
    """The node ids a plain pytest run of the project at ``root`` reports failed or errored."""
    # Without Hypothesis's pytest plugin: it imports the whole package for each
    # run's terminal summary (~0.3 s of CPU a run on two quiet cores), and what
    # fails is pytest's report either way (a @given test runs without it).
    quiet = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rfE", *quiet],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    _, _, summary = proc.stdout.rpartition("short test summary info")
    return set(re.findall(r"^(?:FAILED|ERROR) (\S+?)(?: - |$)", summary, re.MULTILINE))
