"""Who owns a run lock: the agent, never the hook's short-lived shell.

A hook runs as ``agent -> sh -c 'lanes hook' -> python``. The lock must name
the first ancestor that is not a shell or a thin wrapper (or ``CLAUDE_PID``
when the agent declares itself), or the very next hook would find the owner
dead and break a lock mid-run. Real processes throughout: the probe is a
Python child started through real shells, and ``ps`` (the walk where there
is no ``/proc``) is checked against ``/proc``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import lanes
from lanes.governor.state.owner import _is_shell, _parent_from_ps, agent_pid, parent_of

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")

# The probe imports the lanes under test (the package this test imported).
_PROBE = "import os; from lanes.governor.state.owner import agent_pid; print(agent_pid(os.environ))"
_LANES_ROOT = str(Path(lanes.__file__).resolve().parent.parent)


def _probe_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PID"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_LANES_ROOT, env.get("PYTHONPATH")]))
    return env


def _probe(command: str) -> int:
    # "; true" keeps each shell alive as the probe's parent (dash would exec
    # a lone last command in its own place).
    out = subprocess.run(
        ["sh", "-c", command], env=_probe_env(), capture_output=True, text=True, check=True
    )
    return int(out.stdout.strip().splitlines()[-1])


def _ancestors() -> list[int]:
    pid, chain = os.getpid(), []
    while pid > 1:
        chain.append(pid)
        pid = int(Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()[1])
    return chain


def _python(code: str = _PROBE) -> str:
    return f"'{sys.executable}' -c \"{code}\""


@pytest.fixture
def sleeper(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    # A child whose command name holds "(" and ") ", the case /proc/<pid>/stat makes hard.
    odd = tmp_path / "(we) ird"
    shutil.copy(shutil.which("sleep") or "/bin/sleep", odd)
    child = subprocess.Popen([str(odd), "30"])
    try:
        yield child
    finally:
        child.kill()
        child.wait()


def test_a_hook_behind_shells_names_the_process_that_started_them() -> None:
    # In this process too: whatever started the test, the owner is one of its ancestors.
    assert agent_pid({}) in _ancestors()
    # test -> sh -> bash -> python probe: the owner is this test process.
    assert _probe(f"bash -c '{_python()}; true'; true") == os.getpid()


def test_the_walk_stops_at_the_first_process_that_is_not_a_shell() -> None:
    assert agent_pid({}) in _ancestors()[1:]  # never this process itself
    # test -> sh -> python (an agent) -> sh -> probe: the owner is that agent.
    agent = (
        "import subprocess, sys, os; print(os.getpid(), flush=True); "
        "subprocess.run(['sh', '-c', sys.argv[1] + '; true'], check=True)"
    )
    out = subprocess.run(
        ["sh", "-c", '"$@"; true', "sh", sys.executable, "-c", agent, _python()],
        env=_probe_env(), capture_output=True, text=True, check=True,
    )  # fmt: skip
    agent_pid_printed, owner = out.stdout.split()
    assert owner == agent_pid_printed


def test_a_shell_adopted_by_init_is_the_owner() -> None:
    # The agent is gone and its shell was adopted by pid 1: the walk stops at
    # the shell, never naming init as the owner of a lock.
    assert agent_pid({}) in _ancestors()
    inner = (
        # Wait (at most ~10 s) until the launching subshell ($1) has exited and
        # someone adopted us: init, or a subreaper, which the probe then names.
        # (Waiting for pid 1 itself cost the whole 10 s where a subreaper adopts.)
        'i=0; while [ "$(cut -d" " -f4 /proc/$$/stat)" = "$1" ] && [ $i -lt 200 ]; '
        'do i=$((i+1)); sleep 0.05; done; "$LANES_TEST_PYTHON" -c "$LANES_TEST_PROBE"; true'
    )
    probe = (
        "import os; from lanes.governor.state.owner import agent_pid, parent_of; "
        "print(agent_pid(os.environ), os.getppid(), parent_of(os.getppid())[0])"
    )
    env = {**_probe_env(), "LANES_TEST_PYTHON": sys.executable, "LANES_TEST_PROBE": probe}
    out = subprocess.run(
        # The subshell passes its own pid: a child of it reports its PPID.
        ["sh", "-c", '( sh -c "$1" sh "$(exec sh -c \'echo $PPID\')" & ); true', "sh", inner],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    owner, shell, adopter = (int(word) for word in out.stdout.split())
    if adopter != 1:
        pytest.skip(f"orphans are adopted by pid {adopter} here, not by init")
    assert owner == shell


@pytest.mark.parametrize(("declared", "pid"), [("4242", 4242), (" 4242\n", 4242), ("2", 2)])
def test_an_agent_that_declares_its_pid_is_the_owner(declared: str, pid: int) -> None:
    assert agent_pid({"CLAUDE_PID": declared}) == pid


@pytest.mark.parametrize("declared", ["", "0", "1", "-5", "12ab", "pid"])
def test_a_declared_pid_that_is_no_agent_is_ignored(declared: str) -> None:
    assert agent_pid({"CLAUDE_PID": declared}) == agent_pid({})


@pytest.mark.parametrize(
    "name",
    ["sh", "bash", "-bash", "zsh", "-zsh", "dash", "fish", "ksh", "mksh", "pdksh", "tcsh", "csh",
     "ash", "busybox", "nu", "xonsh", "env", "nice", "timeout", "sudo", "doas"],
)  # fmt: skip
def test_shells_and_exec_wrappers_are_never_the_owner(name: str) -> None:
    assert _is_shell(name)


@pytest.mark.parametrize("name", ["claude", "codex", "python3", "node", "bashful", "shell"])
def test_an_agent_process_is_not_a_shell(name: str) -> None:
    assert not _is_shell(name)


def test_the_parent_and_name_of_a_process_are_read(sleeper: subprocess.Popen[bytes]) -> None:
    assert parent_of(sleeper.pid) == (os.getpid(), "(we) ird")


def test_ps_reads_the_same_parent_and_name_as_proc(sleeper: subprocess.Popen[bytes]) -> None:
    # The walk used where /proc is missing (macOS, the BSDs), run here against /proc.
    assert _parent_from_ps(sleeper.pid) == parent_of(sleeper.pid) == (os.getpid(), "(we) ird")


def test_a_name_that_is_not_utf8_is_read_with_replacement(tmp_path: Path) -> None:
    odd = tmp_path / os.fsdecode(b"bad\xffname")
    shutil.copy(shutil.which("sleep") or "/bin/sleep", odd)
    child = subprocess.Popen([odd, "30"])
    try:
        assert parent_of(child.pid) == (os.getpid(), "bad\ufffdname")
    finally:
        child.kill()
        child.wait()


def test_a_process_that_is_gone_has_no_parent() -> None:
    child = subprocess.Popen(["true"])
    child.wait()
    assert parent_of(child.pid) is None
    assert _parent_from_ps(child.pid) is None
