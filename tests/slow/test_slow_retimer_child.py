"""The re-timing child, in this test process: when a run may fork, the wait on a
child, the spawned child's command line, and a re-timing in the run's own
process or a fork of it, one child for every pass.

Real pytest sessions run in-process (pytester), on the controlled clock
(:data:`tests.slow.slow_helpers.CLOCK_CONFTEST`) where a duration is the
point, and real processes where a child is; the Retimer's passes are
:mod:`tests.slow.test_slow_retimer`'s.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import warnings
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import pytest

from lanes.slow.confirmation import FORKED_WHY, SPAWN_OPTION, Plan, Retimer
from lanes.slow.forked import fork_refusal, threads_alive
from lanes.slow.runqueue import available
from lanes.slow.stopwatch import Stopwatch
from tests.slow.retimer_helpers import FILE, A, B, C, offenders_project
from tests.slow.slow_helpers import IN_PROCESS_RATCHET

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The planted offenders' project (:mod:`tests.slow.retimer_helpers`), this test's own."""
    return offenders_project(pytester, monkeypatch)


class _Refusal:
    """Asks, at the session's end, whether the run may fork to re-time its tests."""

    def __init__(self) -> None:
        self.refusal: str | None = "not asked"

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.refusal = fork_refusal(session, sorted(item.nodeid for item in session.items) or [A])


def _refusal(project: pytest.Pytester, *args: str) -> str | None:
    probe = _Refusal()
    project.runpytest("-p", "no:cacheprovider", *args, FILE, plugins=[probe])
    return probe.refusal


@pytest.mark.integration
def test_a_run_whose_tests_ran_in_xdist_workers_may_not_fork(project: pytest.Pytester) -> None:
    refusal = _refusal(project, "-p", "xdist", "-n", "1")
    assert refusal == f"1 of the offenders ran in another process (xdist workers), first {A}"


@pytest.mark.integration
def test_a_run_that_left_fixtures_set_up_may_not_fork(project: pytest.Pytester) -> None:
    project.path.joinpath("tests", "conftest.py").write_text(
        "import pytest\n"
        "@pytest.hookimpl(tryfirst=True)\n"
        "def pytest_runtestloop(session):\n"
        "    for item, nextitem in zip(session.items, session.items[1:]):\n"
        "        item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)\n"
        "    return True\n"
    )
    refusal = _refusal(project)
    assert refusal == "fixtures are still set up at the session's end: their teardown is the run's"


@pytest.mark.integration
def test_a_stopped_run_may_not_fork(project: pytest.Pytester) -> None:
    project.path.joinpath("tests", "test_z.py").write_text("def test_fails():\n    assert False\n")
    probe = _Refusal()
    project.runpytest("-p", "no:cacheprovider", "-x", "tests/test_z.py", FILE, plugins=[probe])
    assert probe.refusal == (
        "the run was stopped (stopping after 1 failures): a fork of it would stop after one test"
    )


@pytest.mark.integration
def test_a_run_with_another_thread_alive_may_not_fork(project: pytest.Pytester) -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        alive = threads_alive()
        refusal = _refusal(project)
    finally:
        stop.set()
        thread.join()
    assert alive >= 2
    assert refusal == (
        f"{alive} threads alive: a fork copies only this one, and the locks others hold"
    )


@pytest.mark.integration
def test_a_finished_single_threaded_run_may_fork(project: pytest.Pytester) -> None:
    # This test process may have threads of its own (xdist's, a plugin's
    # server): then the run may not fork, and says so.
    alive = threads_alive()
    refusal = _refusal(project)
    if alive == 1:
        assert refusal is None
    else:
        assert refusal is not None
        # Other threads of this process may start or end in between (a daemon
        # thread of another test): the refusal counts what it saw, at least 2.
        counted = refusal.split(" threads alive", 1)[0]
        assert refusal.startswith(f"{counted} threads alive"), refusal
        assert int(counted) >= 2, refusal


def test_threads_alive_counts_a_thread_started_here() -> None:
    before = threads_alive()
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert threads_alive() == before + 1
    finally:
        stop.set()
        thread.join()


@contextmanager
def _child(code: str) -> Iterator[subprocess.Popen[bytes]]:
    """A Python child running ``code``, killed on the way out if the test left it alive."""
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        yield child
    finally:
        # poll() takes a child the wait already reaped as ended.
        if child.poll() is None:
            child.kill()
            child.wait()


def test_the_wait_kills_a_child_past_its_deadline_and_reaps_it() -> None:
    from lanes.slow.forked import _wait  # noqa: PLC0415  # the parent's half of a forked re-timing

    with _child("import time; time.sleep(600)") as child:
        _wait(child.pid, 0.2)
        # Killed and reaped: the process is gone, and not a zombie either.
        with pytest.raises(ProcessLookupError):
            os.kill(child.pid, 0)
        with pytest.raises(ChildProcessError):
            os.waitpid(child.pid, os.WNOHANG)


def test_the_wait_lets_a_child_finish_within_its_deadline(tmp_path: Path) -> None:
    from lanes.slow.forked import _wait  # noqa: PLC0415  # the parent's half of a forked re-timing

    done = tmp_path / "done"
    # A few polls' worth of work, then a file: killed early, it would not exist.
    code = f"import pathlib, time; time.sleep(0.3); pathlib.Path({str(done)!r}).write_text('1')"
    with _child(code) as child:
        _wait(child.pid, 600)
        assert done.read_text() == "1"
        with pytest.raises(ChildProcessError):
            os.waitpid(child.pid, os.WNOHANG)


class _InterruptedError(Exception):
    """What the alarm below raises in the wait, as a Ctrl-C raises KeyboardInterrupt."""


def test_an_interrupted_wait_kills_the_child_and_goes_on_interrupting() -> None:
    from lanes.slow.forked import _wait  # noqa: PLC0415  # the parent's half of a forked re-timing

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only, and this test runs in another")

    def interrupt(_signum: int, _frame: object) -> None:
        raise _InterruptedError

    # A handler of this test's own, not SIGINT's: a test runner may handle
    # SIGINT itself (mutmut does), and the wait would never see it.
    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        with _child("import time; time.sleep(600)") as child:
            signal.setitimer(signal.ITIMER_REAL, 0.2)
            with pytest.raises(_InterruptedError):
                _wait(child.pid, 600)
            with pytest.raises(ProcessLookupError):
                os.kill(child.pid, 0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_the_spawned_child_runs_serially_with_the_runs_own_plugins(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from lanes.slow.confirmation import _command  # noqa: PLC0415  # the spawned child's command line

    # With autoload off, xdist comes in only through -p: the child needs it
    # for its -n 0, and every other plugin the run named.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyprojecttoml("[tool.pytest.ini_options]\n")
    config = pytester.parseconfig("-p", "xdist", "-pno:randomly", "-p", "lanes.slow")
    plan = tmp_path / "plan.json"
    assert _command(config, plan, ["tests/t.py::a", "tests/t.py::b"]) == [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "lanes.slow",
        f"--rootdir={config.rootpath}",
        f"--slow-retime={plan}",
        f"--config-file={config.inipath}",
        "-p",
        "xdist",
        "-p",
        "no:randomly",
        "-p",
        "lanes.slow",
        "-n",
        "0",
        "tests/t.py::a",
        "tests/t.py::b",
    ]


def test_a_run_without_xdist_or_a_configuration_file_gives_its_child_neither(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from lanes.slow.confirmation import _command  # noqa: PLC0415  # the spawned child's command line

    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    config = pytester.parseconfig()
    assert config.inipath is None
    command = _command(config, tmp_path / "plan.json", ["t.py::a"])
    assert command[-1] == "t.py::a"
    assert "-n" not in command
    assert not [arg for arg in command if arg.startswith("--config-file")]


class _RetimeHere:
    """At the end of a finished run, re-times ``nodeids`` in this very process, as the fork does."""

    def __init__(self, plan: Plan, nodeids: list[str]) -> None:
        self.plan = plan
        self.nodeids = nodeids
        self.failed: list[int] = []
        self.plugins: dict[str, object] = {}

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from lanes.slow.forked import retime_here  # noqa: PLC0415  # the fork's own work

        manager = session.config.pluginmanager
        stopwatch = manager.get_plugin("lanes-slow-stopwatch")
        assert isinstance(stopwatch, Stopwatch)
        items = [item for item in session.items if item.nodeid in self.nodeids]
        self.failed = [session.testsfailed]
        retime_here(session, self.plan, items, stopwatch)
        self.failed.append(session.testsfailed)
        self.plugins = {
            name: manager.get_plugin(name)
            for name in ("terminalreporter", "lanes-slow-runqueue", "lanes-slow-retimer")
        }


@pytest.mark.integration
def test_a_finished_run_retimes_as_a_fresh_process_would(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run with a failure: the re-timing starts from no failure, takes every
    # pass, prints no progress line, and runs as a lane's measuring run.
    project.path.joinpath("tests", "test_z.py").write_text("def test_fails():\n    assert False\n")
    monkeypatch.setenv("LANES_TEST_FORCE", "0")
    out = project.path / "samples.json"
    plan: Plan = {"passes": 2, "once_past": 0.0, "far": [], "limits": {}, "out": str(out)}
    probe = _RetimeHere(plan, [A, B])
    project.runpytest(
        *IN_PROCESS_RATCHET,
        "--slow-confirm=0",
        A,
        B,
        "tests/test_z.py",
        plugins=[probe],
    )
    assert probe.failed == [1, 0]
    samples = json.loads(out.read_text())["samples"]
    assert samples == {A: [pytest.approx(0.6, abs=0.1)] * 2, B: [pytest.approx(0.6, abs=0.1)] * 2}
    order = project.path.joinpath("tests", "test_offenders.order").read_text().split()
    assert order == ["a", "b", "a", "b", "b", "a"]
    assert probe.plugins["terminalreporter"] is None
    # Its samples take CPU waits out, as a spawned child's do.
    clock = probe.plugins["lanes-slow-runqueue"]
    assert (clock is not None) == available()
    retimer = probe.plugins["lanes-slow-retimer"]
    assert isinstance(retimer, Retimer)
    assert retimer.clock is clock
    assert os.environ["LANES_TEST_FORCE"] == "1"


class _ForkHere:
    """At the end of a finished run, re-times ``nodeids`` in a fork of this very process."""

    def __init__(self, plan: Plan, nodeids: list[str]) -> None:
        self.plan = plan
        self.nodeids = nodeids

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from lanes.slow.forked import retime_forked  # noqa: PLC0415  # the parent's half

        stopwatch = session.config.pluginmanager.get_plugin("lanes-slow-stopwatch")
        assert isinstance(stopwatch, Stopwatch)
        with warnings.catch_warnings():
            # Python 3.12+ warns on a fork with threads alive, and this test
            # process may have some (xdist's, a plugin's): the fork here runs
            # only the re-timing and ends with os._exit.
            warnings.simplefilter("ignore", DeprecationWarning)
            retime_forked(session, self.plan, self.nodeids, stopwatch, 600.0)


# Writes to the process's own descriptors, past any sys.stdout replacement.
LOUD = """
import os

def test_loud(takes):
    os.write(1, b"loud on stdout\\n")
    os.write(2, b"loud on stderr\\n")
    takes(0.6)
"""


@pytest.mark.integration
def test_a_fork_of_the_run_retimes_and_writes_nothing_where_the_run_writes(
    project: pytest.Pytester, capfd: pytest.CaptureFixture[str]
) -> None:
    project.path.joinpath("tests", "test_loud.py").write_text(LOUD)
    loud = "tests/test_loud.py::test_loud"
    out = project.path / "samples.json"
    plan: Plan = {"passes": 2, "once_past": 0.0, "far": [], "limits": {}, "out": str(out)}
    # Not captured (-s): the suite's run writes to this test's descriptors.
    project.runpytest(
        "-s",
        *IN_PROCESS_RATCHET,
        "--slow-confirm=0",
        B,
        loud,
        A,
        plugins=[_ForkHere(plan, [loud, B, A, "tests/test_gone.py::test_never"])],
    )
    written = capfd.readouterr()
    # In node-id order, each once per pass; a node id the run does not have is no item.
    assert project.path.joinpath("tests", "test_offenders.order").read_text().split() == [
        "b",
        "a",
        "a",
        "b",
        "b",
        "a",
    ]
    samples = json.loads(out.read_text())["samples"]
    assert sorted(samples) == sorted([A, B, loud])
    assert all(taken == [pytest.approx(0.6, abs=0.1)] * 2 for taken in samples.values())
    # The suite's run wrote once; the fork's two passes wrote nowhere here.
    assert written.out.count("loud on stdout") == 1
    assert written.err.count("loud on stderr") == 1


def _ratchet(project: pytest.Pytester, *args: str) -> dict[str, Any]:
    """A ratchet run in this process, on the controlled clock; its result."""
    out = project.path / "slow.json"
    project.runpytest(
        "-p",
        "no:cacheprovider",
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        "-p",
        "lanes.slow",
        f"--slow-json={out}",
        "--slow-confirm=2",
        *args,
    )
    data: dict[str, Any] = json.loads(out.read_text())
    return data


@pytest.mark.integration
@pytest.mark.parametrize("spawn", [False, True], ids=["fork-if-safe", "spawned"])
@pytest.mark.parametrize(
    ("once_past", "counts"),
    # A and B: 0.6 s, 3.3x the 0.18 s limit, in the suite and re-timed; C:
    # 0.25 s, 1.4x. Past 1.5x in both, one re-timing decides.
    [(1.5, {A: 1, B: 1, C: 2}), (0.0, {A: 2, B: 2, C: 2})],
    ids=["once-past-1.5", "once-past-off"],
)
def test_the_offenders_are_retimed_once_each_pass_in_one_child(
    project: pytest.Pytester, spawn: bool, once_past: float, counts: dict[str, int]
) -> None:
    threads = threads_alive()
    flags = ["--slow-confirm-spawn"] if spawn else []
    data = _ratchet(project, f"--slow-confirm-once-past={once_past}", *flags, C, B, A)
    samples = {o["nodeid"]: o["samples_ms"] for o in data["offenders"]}
    assert data["unconfirmed"] == []
    assert {nodeid: len(taken) for nodeid, taken in samples.items()} == counts
    expected = {A: 600, B: 600, C: 250}
    for nodeid, taken in samples.items():
        # On the controlled clock (the child loads the project's conftest),
        # less the time each test waited for a CPU.
        assert taken == [pytest.approx(expected[nodeid], abs=100)] * counts[nodeid]
    if spawn:
        assert data["retimed"] == {"child": "spawned", "why": SPAWN_OPTION}
    elif threads == 1:
        assert data["retimed"] == {"child": "forked", "why": FORKED_WHY}
    else:
        assert data["retimed"]["child"] == "spawned"
        assert data["retimed"]["why"].startswith(f"{threads} threads alive")
