"""Confirmation re-timing in a fork of the finished run, and the spawned child where it cannot fork.

Real pytest sessions in their own processes (``runpytest_subprocess``): a
fork copies the process that runs it, so the run must be a process of its
own, single-threaded as a plain ``pytest`` is (this suite's own process has
xdist's and other plugins' threads). Plugin autoload is off; the ratchet is
loaded by name, xdist too where a test needs it.
"""

from __future__ import annotations

import os
from fnmatch import fnmatch

import pytest

from tests.slow.slow_helpers import FIRST_PAYS, PYPROJECT
from tests.support.documents import read_json

# Past its 0.18 s limit every run (0.6 s, 3.3x), under fixtures of every
# wider scope; every step notes what it did and in which process.
FIXTURES_TEST = """
import os, pathlib, time, pytest

LOG = pathlib.Path(__file__).with_suffix(".log")

def _note(what):
    with LOG.open("a") as log:
        log.write(f"{what} {os.getpid()} {os.getppid()}\\n")

@pytest.fixture(scope="session")
def session_wide():
    _note("session-setup")
    yield
    _note("session-teardown")

@pytest.fixture(scope="module")
def module_wide():
    _note("module-setup")
    yield
    _note("module-teardown")

def test_slow(session_wide, module_wide):
    _note("call")
    print("printed by the slow test")
    time.sleep(0.6)
"""
SLOW = "tests/test_fixtures.py::test_slow"
# One pass of the test in a process: what the suite's run and each re-timing do.
ONE_PASS = [
    "session-setup",
    "module-setup",
    "call",
    "module-teardown",
    "session-teardown",
]


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    # confirm = 2 (the default): two re-timings of each offender.
    pytester.makepyprojecttoml(PYPROJECT.replace("{enabled}", "").replace("confirm = 0", ""))
    pytester.mkdir("tests").joinpath("test_fixtures.py").write_text(FIXTURES_TEST)
    return pytester


def _run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, object]]:
    """A ratchet run in a process of its own (every re-timing taken), and its result."""
    out = pytester.path / "slow.json"
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "-p",
        "lanes.slow",
        "--slow-ratchet",
        "--slow-confirm-once-past=0",
        f"--slow-json={out}",
        *args,
    )
    return result, read_json(out)


def _notes(project: pytest.Pytester) -> list[tuple[str, str, str]]:
    log = (project.path / "tests" / "test_fixtures.log").read_text()
    return [(what, pid, ppid) for what, pid, ppid in (line.split() for line in log.splitlines())]


def _samples(data: dict[str, object]) -> dict[str, list[int]]:
    judged = [*data["offenders"], *data["unconfirmed"]]  # type: ignore[misc]  # JSON lists of objects
    return {j["nodeid"]: j["samples_ms"] for j in judged}


@pytest.mark.integration
def test_offenders_are_retimed_in_a_fork_that_sets_every_fixture_up_again(
    project: pytest.Pytester,
) -> None:
    # A fork of the finished run pays no start-up and no collection; its two
    # passes set up and tear down the session- and module-scoped fixtures
    # the run tore down, as a fresh pytest would.
    result, data = _run(project)
    assert data["retimed"] == {
        "child": "forked",
        "why": "a fork of the finished run: no start-up, no collection",
    }
    # Confirmed, or (the run-queue clock on a loaded Linux 6.18 can take a
    # sleep for CPU wait) unconfirmed: two samples either way.
    assert len(_samples(data)[SLOW]) == 2
    notes = _notes(project)
    suite = notes[0][1]
    forks = {pid for _, pid, _ in notes[len(ONE_PASS) :]}
    assert [what for what, pid, _ in notes if pid == suite] == ONE_PASS
    assert len(forks) == 1
    (fork,) = forks
    assert fork != suite
    assert [what for what, pid, _ in notes if pid == fork] == ONE_PASS * 2
    # A fork of the run itself: its parent is the run's process.
    assert {ppid for _, pid, ppid in notes if pid == fork} == {suite}
    assert result.ret == pytest.ExitCode.TESTS_FAILED or data["unconfirmed"]


@pytest.mark.integration
def test_the_fork_prints_nothing_into_the_runs_output(project: pytest.Pytester) -> None:
    # Not captured (-s): the test's print reaches the output in the suite's
    # run only, and pytest's progress and summary lines appear once.
    result, data = _run(project, "-s")
    assert data["retimed"]["child"] == "forked"  # type: ignore[index]  # a JSON object
    printed = [line for line in result.outlines if "printed by the slow test" in line]
    assert len(printed) == 1, result.outlines
    assert len([line for line in result.outlines if "slow-test ratchet FAILED" in line]) == 1
    assert result.errlines == []


# A thread that outlives the session, as a plugin's server thread does.
THREAD_CONFTEST = """
import threading, time

threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
"""
# A run loop of a plugin's own that runs every test but the last and never
# tears down (pytest's own loop tears everything down, even when -x stops it).
LEFT_SET_UP = """
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    for item, nextitem in zip(session.items, session.items[1:]):
        item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
    return True
"""
NOT_RUN = """
def test_not_run():
    pass
"""
# Runs after the offender: with -x, the run stops at it.
FAILS = """
def test_fails():
    assert False
"""


@pytest.mark.integration
@pytest.mark.parametrize(
    ("args", "conftest", "stopper", "why"),
    [
        (["--slow-confirm-spawn"], "", "", "--slow-confirm-spawn: a fresh pytest was asked for"),
        (
            ["-p", "xdist", "-n", "1"],
            "",
            "",
            f"1 of the offenders ran in another process (xdist workers), first {SLOW}",
        ),
        ([], THREAD_CONFTEST, "", "2 threads alive: a fork copies only this one*"),
        ([], LEFT_SET_UP, NOT_RUN, "fixtures are still set up at the session's end*"),
        (["-x"], "", FAILS, "the run was stopped (stopping after 1 failures)*"),
    ],
    ids=["asked-for", "xdist-controller", "threads", "fixtures-left-set-up", "stopped"],
)
def test_a_run_that_cannot_fork_retimes_in_a_spawned_child_and_says_why(
    project: pytest.Pytester, args: list[str], conftest: str, stopper: str, why: str
) -> None:
    project.path.joinpath("conftest.py").write_text(conftest)
    if stopper:
        project.path.joinpath("tests", "test_stopper.py").write_text(stopper)
    _result, data = _run(project, *args)
    retimed = data["retimed"]
    assert isinstance(retimed, dict)
    assert retimed["child"] == "spawned"
    assert fnmatch(retimed["why"], why), retimed
    assert len(_samples(data)[SLOW]) == 2
    notes = _notes(project)
    children = {pid for what, pid, ppid in notes[len(ONE_PASS) :] if what == "call"}
    # A fresh interpreter, started by the run (xdist: by its controller).
    assert len(children) == 1


@pytest.mark.integration
def test_no_retiming_says_so(project: pytest.Pytester) -> None:
    project.path.joinpath("tests", "test_fixtures.py").write_text("def test_fast():\n    pass\n")
    _result, data = _run(project)
    assert data["retimed"] is None


# Its duration on each run, in order: the suite's run, then each re-timing;
# it notes the process of each run.
PACED_TEST = """
import os, pathlib, time

def test_paced():
    counter = pathlib.Path(__file__).with_suffix(".runs")
    run = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(run + 1))
    with pathlib.Path(__file__).with_suffix(".pids").open("a") as pids:
        pids.write(f"{os.getpid()}\\n")
    time.sleep([0.6, 0.6, 600][min(run, 2)])
"""
# The re-timing deadline, short: four seconds whatever the offenders took.
DEADLINE_CONFTEST = """
import lanes.slow.confirmation as confirmation

confirmation.CHILD_SLACK = 4.0
confirmation.DEADLINE_FACTOR = 0.0
"""


@pytest.mark.integration
def test_a_fork_past_its_deadline_is_killed_and_keeps_the_passes_it_finished(
    project: pytest.Pytester,
) -> None:
    # 0.6 s in the suite and in the first pass, then it hangs: the parent
    # kills the fork at its deadline, and the sample of the finished pass
    # still counts (written after each pass).
    tests = project.path / "tests"
    tests.joinpath("test_fixtures.py").unlink()
    tests.joinpath("test_paced.py").write_text(PACED_TEST)
    project.path.joinpath("conftest.py").write_text(DEADLINE_CONFTEST)
    result, data = _run(project)
    assert data["retimed"]["child"] == "forked"  # type: ignore[index]  # a JSON object
    assert _samples(data) == {"tests/test_paced.py::test_paced": [pytest.approx(600, abs=400)]}
    suite, first, hanging = tests.joinpath("test_paced.pids").read_text().split()
    assert first == hanging != suite
    # Killed and reaped: no such process any more.
    with pytest.raises(ProcessLookupError):
        os.kill(int(hanging), 0)
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)


@pytest.mark.integration
def test_a_fork_does_not_pay_a_processs_warm_up(project: pytest.Pytester) -> None:
    # The fork inherits what the run built (imports, caches): no re-timed
    # test pays a process's warm-up, in any pass. (A spawned child's first
    # test pays it: tests/slow/test_slow_noise.py.)
    tests = project.path / "tests"
    tests.joinpath("test_fixtures.py").unlink()
    tests.joinpath("test_first.py").write_text(FIRST_PAYS)
    result, data = _run(project)
    assert data["retimed"]["child"] == "forked"  # type: ignore[index]  # a JSON object
    assert data["offenders"] == [], result.outlines
    samples = _samples(data)
    assert sorted(samples) == ["tests/test_first.py::test_a", "tests/test_first.py::test_b"]
    assert all(ms < 600 for taken in samples.values() for ms in taken), samples
    assert result.ret == pytest.ExitCode.OK
