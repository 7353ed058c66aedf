"""The re-timing child's parts, in this test process: the Retimer's passes, the
spawned child's command line, the plan and samples files, when a run may fork,
and the wait on a child.

Real pytest sessions run in-process (pytester), on the controlled clock
(:data:`tests.slow.slow_helpers.CLOCK_CONFTEST`) where a duration is the
point, and real processes where a child is; the other files of this package
run whole ratchet runs with their children.
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
from fnmatch import fnmatch
from typing import TYPE_CHECKING, Any

import pytest

from lanes.slow.confirmation import FORKED_WHY, SPAWN_OPTION, Plan, Retimer, far_past, read_plan
from lanes.slow.forked import fork_refusal, threads_alive
from lanes.slow.runqueue import available
from lanes.slow.stopwatch import Stopwatch
from tests.slow.slow_helpers import CLOCK_CONFTEST, IN_PROCESS_RATCHET, PYPROJECT

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from lanes.slow.verdicts import Judged

# Each test notes its name as it runs, and takes its planted time on the
# controlled clock: A and B 0.6 s (3x the 0.2 s limit), C 0.25 s (1.25x),
# S fails in its setup (no call phase: nothing to sample). F sleeps (real
# time: the stopwatch times shared fixtures on its own clock) 0.2 s, 0.1 s in
# a function-scoped fixture and 0.3 s in a module-scoped one (charged to no test).
OFFENDERS = """
import pathlib, time, pytest

ORDER = pathlib.Path(__file__).with_suffix(".order")

def _ran(name):
    with ORDER.open("a") as order:
        order.write(name + "\\n")

@pytest.fixture
def broken():
    raise RuntimeError("setup fails")

@pytest.fixture(scope="module")
def shared():
    time.sleep(0.3)

@pytest.fixture
def own():
    time.sleep(0.1)

def test_a(takes):
    _ran("a")
    takes(0.6)

def test_b(takes):
    _ran("b")
    takes(0.6)

def test_c(takes):
    _ran("c")
    takes(0.25)

def test_s(broken):
    _ran("s")

def test_f(shared, own):
    _ran("f")
    time.sleep(0.2)
"""
FILE = "tests/test_offenders.py"
A, B, C, S, F = (f"{FILE}::test_{name}" for name in "abcsf")


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyprojecttoml(PYPROJECT.replace("{enabled}", ""))
    pytester.path.joinpath("conftest.py").write_text(CLOCK_CONFTEST)
    pytester.mkdir("tests").joinpath("test_offenders.py").write_text(OFFENDERS)
    return pytester


def _retime_here(
    project: pytest.Pytester, nodeids: list[str], **plan: Any
) -> tuple[dict[str, list[float]], list[str]]:
    """A re-timing run of ``nodeids`` in this process (what a spawned child runs).

    Its samples, and the order in which the tests ran.
    """
    out = project.path / "samples.json"
    full: Plan = {
        "passes": 2,
        "once_past": 0.0,
        "far": [],
        "limits": dict.fromkeys(nodeids, 0.2),
        "out": str(out),
    }
    full.update(plan)  # type: ignore[typeddict-item]  # the test's own keys are Plan's
    plan_path = project.path / "plan.json"
    plan_path.write_text(json.dumps(full))
    project.runpytest(
        "-p",
        "no:cacheprovider",
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        "-p",
        "lanes.slow",
        f"--slow-retime={plan_path}",
        *nodeids,
    )
    order = project.path / "tests" / "test_offenders.order"
    samples = json.loads(out.read_text())["samples"] if out.exists() else {}
    return samples, order.read_text().split() if order.exists() else []


@pytest.mark.integration
def test_every_pass_samples_every_offender_every_other_pass_in_reverse(
    project: pytest.Pytester,
) -> None:
    samples, order = _retime_here(project, [A, B], passes=3)
    assert order == ["a", "b", "b", "a", "a", "b"]
    # On the controlled clock, less the time each test waited for a CPU.
    assert samples == {A: [pytest.approx(0.6, abs=0.1)] * 3, B: [pytest.approx(0.6, abs=0.1)] * 3}


@pytest.mark.integration
def test_a_first_sample_far_past_ends_the_sampling_of_a_test_far_past_in_the_suite(
    project: pytest.Pytester,
) -> None:
    # A: far past in the suite (in `far`) and 3x its limit when first
    # re-timed: once. B: as far past now, but not in the suite: every pass.
    # C: far past in the suite, but its first re-timing is 1.25x: every pass.
    samples, order = _retime_here(project, [A, B, C], once_past=1.5, far=[A, C])
    assert order == ["a", "b", "c", "c", "b"]
    assert {nodeid: len(taken) for nodeid, taken in samples.items()} == {A: 1, B: 2, C: 2}


@pytest.mark.integration
def test_once_past_zero_samples_every_pass(project: pytest.Pytester) -> None:
    samples, order = _retime_here(project, [A, B], once_past=0.0, far=[A, B])
    assert order == ["a", "b", "b", "a"]
    assert {nodeid: len(taken) for nodeid, taken in samples.items()} == {A: 2, B: 2}


@pytest.mark.integration
def test_a_test_without_a_call_phase_has_no_sample_and_is_not_run_again(
    project: pytest.Pytester,
) -> None:
    samples, order = _retime_here(project, [A, S])
    assert S not in samples
    assert order == ["a", "a"]
    assert len(samples[A]) == 2


@pytest.mark.integration
def test_a_sample_holds_the_tests_own_fixtures_not_the_shared_ones(
    project: pytest.Pytester,
) -> None:
    # 0.2 s of call (and 0.1 s of its own fixture) in both passes; the 0.3 s
    # module-scoped fixture, set up again in each pass, is charged to no test.
    project.path.joinpath("conftest.py").unlink()  # real time: no controlled clock
    samples, _order = _retime_here(project, [F])
    # Real sleeps: a loaded machine stretches them, and the run-queue clock
    # takes CPU waits out; 0.6 s or more would hold the shared fixture.
    assert [0.15 <= sample < 0.55 for sample in samples[F]] == [True, True], samples


@pytest.mark.integration
def test_no_pass_runs_when_collection_failed(project: pytest.Pytester) -> None:
    project.path.joinpath("tests", "test_broken.py").write_text("import no_such_module\n")
    samples, order = _retime_here(project, [A, "tests/test_broken.py"])
    assert (samples, order) == ({}, [])


@pytest.mark.integration
def test_the_samples_are_written_after_each_pass(project: pytest.Pytester) -> None:
    # The second pass stops the run (pytest.exit in the test, as a Ctrl-C
    # would): what the first pass measured is on file.
    project.path.joinpath("tests", "test_stops.py").write_text(
        "import pathlib\n"
        "def test_stops(takes):\n"
        "    runs = pathlib.Path(__file__).with_suffix('.runs')\n"
        "    if runs.exists():\n"
        "        import pytest; pytest.exit('stopped in the second pass')\n"
        "    runs.write_text('1')\n"
        "    takes(0.6)\n"
    )
    stops = "tests/test_stops.py::test_stops"
    samples, _order = _retime_here(project, [stops])
    assert samples == {stops: [pytest.approx(0.6, abs=0.1)]}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{", "*not a re-timing plan (Expecting property name*"),
        ('{"passes": 2}', "*not a re-timing plan ('once_past')*"),
        (None, "*not a re-timing plan (*No such file*"),
    ],
)
def test_an_unreadable_plan_is_a_usage_error_naming_it(
    tmp_path: Path, text: str | None, problem: str
) -> None:
    path = tmp_path / "plan.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(pytest.UsageError) as caught:
        read_plan(str(path))
    message = str(caught.value)
    assert message.startswith(f"--slow-retime={str(path)!r}: "), message
    assert fnmatch(message, problem), message
    assert message.endswith("this option is internal to the ratchet's confirmation child")


def test_a_plan_reads_back_as_written(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    plan = {"passes": 3, "once_past": 1.5, "far": ["t::a"], "limits": {"t::a": 0.4}, "out": "o"}
    path.write_text(json.dumps(plan))
    assert read_plan(str(path)) == plan


def _judged(seconds: float, limit: float) -> Judged:
    from lanes.slow.verdicts import Judged, Measurement, Verdict  # noqa: PLC0415

    measurement = Measurement("t::a", "unit", seconds)
    return Judged(measurement, seconds, limit / 2, limit / 2, limit, Verdict.FAIL)


@pytest.mark.parametrize(
    ("seconds", "once_past", "far"),
    # A factor of 1 (or less) is still a factor: at the limit is far past it.
    [
        (0.75, 1.5, True),
        (0.74, 1.5, False),
        (0.5, 1.0, True),
        (0.25, 0.5, True),
        (0.75, 0.0, False),
        (10.0, 0.0, False),
    ],
)
def test_far_past_is_at_once_past_times_the_limit_or_more(
    seconds: float, once_past: float, far: bool
) -> None:
    assert far_past(_judged(seconds, 0.5), once_past) is far


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


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ('{"samples": {"t::a": [0.5, 0.25], "t::b": []}}', {"t::a": [0.5, 0.25], "t::b": []}),
        # Only numbers are samples; a list is all a test's entry can be.
        ('{"samples": {"t::a": [1, "x", null, 0.5], "t::b": 0.5}}', {"t::a": [1.0, 0.5]}),
        ('{"samples": [0.5]}', {}),
        ('{"other": {}}', {}),
        ("[1]", {}),
        ("{", {}),
        (None, {}),
    ],
)
def test_the_samples_file_is_read_as_far_as_it_holds_samples(
    tmp_path: Path, written: str | None, read: dict[str, list[float]]
) -> None:
    from lanes.slow.confirmation import _measured  # noqa: PLC0415  # what the parent reads of its child

    out = tmp_path / "samples.json"
    if written is not None:
        out.write_text(written)
    assert _measured(out) == read


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
