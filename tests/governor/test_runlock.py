"""The kernel run lock: the flock itself (in-process) and real pytest
processes contending for it."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lanes.governor.context import StatePaths
from lanes.governor.runner.exits import RunnerExit
from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.runlock import acquire, probe
from tests.governor.governor_helpers import Project
from tests.governor.runner_helpers import AGENT_VARIABLES, REASON, write_project

ENV = OSEnvironment()
HOLDER = {"suite": "unit", "agent": "claude", "pid": 4242, "started_ts": 1.0, "host": "h"}


def test_a_second_acquirer_is_refused_and_told_the_holder(tmp_path: Path) -> None:
    path = str(tmp_path / StatePaths.FLOCK)
    lock, _ = acquire(ENV, path, HOLDER)
    assert lock is not None
    # A second open file description: flock conflicts even in one process.
    other, holder = acquire(ENV, path, {**HOLDER, "agent": "codex"})
    assert other is None
    assert holder.fields["agent"] == "claude"
    assert "claude (pid 4242" in holder.describe(10.0)
    probed = probe(ENV, path)
    assert probed is not None
    assert probed.fields["suite"] == "unit"
    lock.release()
    # Released: free for the next, and the holder's text is gone.
    assert probe(ENV, path) is None
    again, _ = acquire(ENV, path, {**HOLDER, "agent": "codex"})
    assert again is not None
    again.release()


def test_probe_of_a_missing_lock_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / StatePaths.FLOCK
    assert probe(ENV, str(path)) is None
    assert not path.exists()


def test_a_planted_symlink_is_never_followed(tmp_path: Path) -> None:
    target = tmp_path / "precious"
    target.write_text("keep me")
    (tmp_path / StatePaths.FLOCK).symlink_to(target)
    with pytest.raises(OSError, match="symbolic links"):  # ELOOP: O_NOFOLLOW
        acquire(ENV, str(tmp_path / StatePaths.FLOCK), HOLDER)
    assert target.read_text() == "keep me"


# ---------------------------------------------------------------- processes

STAMPING = (
    "import os, time\n"
    "def _stamp(what):\n"
    "    with open(os.environ['STAMPS'], 'a') as f:\n"
    "        f.write(f'{os.getpid()} {what} {time.time()!r}\\n')\n"
)


def _stamped_project(root: Path, *, hold: float) -> Path:
    body = f"_stamp('start'); time.sleep({hold}); _stamp('end')"
    write_project(root, unit_files=3, integ_files=1, tests_per_file=1, body=body)
    for test in (root / "tests" / "unit").glob("test_*.py"):
        test.write_text(STAMPING + test.read_text())
    return root


def _env(tmp_path: Path, stamps: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in AGENT_VARIABLES}
    env.update(
        CLAUDECODE="1",
        LANES_FULL_SWEEP_OK="1",
        LANES_OVERRIDE_REASON=REASON,
        LANES_TEST_FORCE="1",
        # A bogus agent pid: the kernel lock never asks whose it is.
        CLAUDE_PID="1",
        STAMPS=str(stamps),
        XDG_STATE_HOME=str(tmp_path / "xdg"),
    )
    return env


def _pytest(root: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "pytest", "tests/unit", "-q", "-p", "no:randomly"]
    argv += ["-p", "no:cacheprovider"]
    return subprocess.Popen(
        argv, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _intervals(stamps: Path) -> list[tuple[float, float, str]]:
    """Each test body's (start, end, pid), from the shared stamp file."""
    open_by_pid: dict[str, float] = {}
    spans: list[tuple[float, float, str]] = []
    for line in stamps.read_text().splitlines():
        pid, what, ts = line.split()
        if what == "start":
            open_by_pid[pid] = float(ts)
        else:
            spans.append((open_by_pid.pop(pid), float(ts), pid))
    assert open_by_pid == {}, "a test body never ended"
    return sorted(spans)


def overlaps(spans: list[tuple[float, float, str]]) -> list[tuple[str, str]]:
    """Pairs of test bodies of different processes that ran at the same time."""
    found = []
    for (_, end, pid), (start, _, other) in itertools.pairwise(spans):
        if pid != other and start < end:
            found.append((pid, other))
    return found


@pytest.mark.integration  # real pytest processes racing for the lock
def test_two_approved_full_runs_at_once_never_overlap(tmp_path: Path) -> None:
    root = _stamped_project(tmp_path / "repo", hold=0.05)
    stamps = tmp_path / "run.stamps"
    env = _env(tmp_path, stamps)
    for _ in range(3):
        procs = [_pytest(root, env), _pytest(root, env)]
        outputs = [(proc.wait(timeout=120), proc.communicate()[0]) for proc in procs]
        codes = sorted(code for code, _ in outputs)
        assert codes[0] == 0, outputs
        for code, output in outputs:
            if code == RunnerExit.LOCKED:
                assert "run lock held: claude (pid " in output
                assert "is running unit" in output
    spans = _intervals(stamps)
    assert spans, "no test body ran"
    assert overlaps(spans) == []


@pytest.mark.integration  # a real holder, killed with SIGKILL
def test_sigkill_of_the_holder_frees_the_lock_at_once(tmp_path: Path) -> None:
    root = _stamped_project(tmp_path / "repo", hold=60)
    stamps = tmp_path / "run.stamps"
    env = _env(tmp_path, stamps)
    holder = _pytest(root, env)
    deadline = time.monotonic() + 60
    while not (stamps.exists() and stamps.read_text()):
        assert time.monotonic() < deadline, "the holder never started a test"
        assert holder.poll() is None, holder.communicate()[0]
        time.sleep(0.02)
    flock = root / ".git" / "lanes" / StatePaths.FLOCK
    assert probe(ENV, str(flock)) is not None
    os.kill(holder.pid, signal.SIGKILL)
    holder.communicate(timeout=10)  # reaps it and closes its pipe
    # No TTL, no liveness guess: the kernel let go with the process.
    assert probe(ENV, str(flock)) is None
    for test in (root / "tests" / "unit").glob("test_*.py"):
        test.write_text(test.read_text().replace("time.sleep(60)", "time.sleep(0)"))
    after = _pytest(root, env)
    output = after.communicate(timeout=120)[0]
    assert after.returncode == 0, output


def test_the_hook_refuses_a_heavy_run_while_a_pytest_holds_the_kernel_lock(
    tmp_path: Path,
) -> None:

    project = Project(tmp_path / "repo")
    approved = {"LANES_FULL_SWEEP_OK": "1", "LANES_OVERRIDE_REASON": REASON}
    lock, _ = acquire(ENV, StatePaths(project.state).flock, {**HOLDER, "command": "pytest"})
    assert lock is not None
    decision = project.pre("pytest", environ=approved)
    assert (decision.action, decision.step) == ("block", "runner-lock")
    assert "run lock held by a running pytest: claude (pid 4242" in decision.message
    # The JSON lock it took before the probe was given back.
    assert not Path(StatePaths(project.state).lock).exists()
    lock.release()
    assert project.pre("pytest", environ=approved).action == "allow"
