"""Which child re-times the offenders, why, and what a spawned child is given.

:func:`~lanes.slow.confirmation.retime` is called here at the end of a real
pytest session run in this very process (pytester), as the ratchet calls it.
Whether it may fork depends on the threads alive, and this test process may
have some of its own (pytest-rerunfailures' server under xdist): a test that
needs a single-threaded run takes it in a fork of this process, where only
the calling thread exists, and reads back what the run there decided.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import warnings
from typing import TYPE_CHECKING, Any

import pytest

from lanes.slow.confirmation import FORKED_WHY, SPAWN_OPTION, Retiming, retime
from lanes.slow.forked import fork_refusal, threads_alive
from lanes.slow.stopwatch import Stopwatch
from lanes.slow.verdicts import Judged, Measurement, Verdict
from tests.slow.slow_helpers import CLOCK_CONFTEST, IN_PROCESS_RATCHET, PYPROJECT

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

# A and B take 0.5 s on the controlled clock, in the suite and in every
# re-timing. In a spawned re-timing child (``--slow-retime``), the conftest
# notes what the child was given and writes to its standard output and error,
# and B fails there (it passed in the suite): a child's failing test is not
# the run's failure.
OFFENDERS = """
def test_a(takes):
    takes(0.5)

def test_b(takes, pytestconfig):
    takes(0.5)
    assert not pytestconfig.getoption("slow_retime")
"""
CHILD_CONFTEST = """
import json, os, pathlib, sys


def pytest_sessionstart(session):
    plan = session.config.getoption("slow_retime", None)
    if plan is None:
        return
    os.write(1, b"the child on stdout\\n")
    os.write(2, b"the child on stderr\\n")
    given = {
        "cwd": os.getcwd(),
        "plan": plan,
        "out": json.loads(pathlib.Path(plan).read_text(encoding="utf-8"))["out"],
        "force": os.environ.get("LANES_TEST_FORCE"),
    }
    pathlib.Path(__file__).with_name("given.json").write_text(json.dumps(given))
"""
FILE = "tests/test_offenders.py"
A, B = f"{FILE}::test_a", f"{FILE}::test_b"
# Each re-timing of A or B: 0.5 s on the controlled clock, less the real time
# the test waited for a CPU (the run-queue clock): at most the real time of
# phases that do microseconds of work.
EACH = pytest.approx(0.5, abs=0.1)


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyprojecttoml(PYPROJECT.replace("{enabled}", ""))
    pytester.path.joinpath("conftest.py").write_text(CLOCK_CONFTEST + CHILD_CONFTEST)
    pytester.mkdir("tests").joinpath("test_offenders.py").write_text(OFFENDERS)
    return pytester


def _offender(nodeid: str) -> Judged:
    """A test the suite measured at 0.5 s, past its 0.25 s limit."""
    return Judged(Measurement(nodeid, "unit", 0.5), 0.5, 0.125, 0.125, 0.25, Verdict.FAIL)


class _Retime:
    """Re-times the offenders at the end of the session, as the ratchet does."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.retiming: Retiming | None = None
        self.threads = 0

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        stopwatch = session.config.pluginmanager.get_plugin("lanes-slow-stopwatch")
        assert isinstance(stopwatch, Stopwatch)
        self.threads = threads_alive()
        self.retiming = retime(
            session,
            [_offender(A), _offender(B)],
            2,
            once_past=0.0,
            stopwatch=stopwatch,
            **self.options,
        )


def _run(project: pytest.Pytester, probe: object, *args: str) -> None:
    project.runpytest(
        *IN_PROCESS_RATCHET,
        "--slow-confirm=0",
        *args,
        plugins=[probe],
    )


def _in_a_fork(work: Callable[[], dict[str, Any]], out: Path) -> dict[str, Any]:
    """``work()`` in a fork of this test process (one thread: the caller's); what it returned."""
    with warnings.catch_warnings():
        # Python 3.12+ warns on a fork with threads alive: the fork runs
        # ``work`` only and ends with os._exit.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        status = 1
        try:
            out.write_text(json.dumps(work()))
            status = 0
        finally:
            os._exit(status)  # never this test process's own exit path
    assert pid > 0
    _pid, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, out
    result: dict[str, Any] = json.loads(out.read_text())
    return result


@pytest.mark.integration
def test_a_single_threaded_run_retimes_in_a_fork_of_itself(
    project: pytest.Pytester, tmp_path: Path
) -> None:
    def run() -> dict[str, Any]:
        probe = _Retime()  # no spawn asked for: the fork where it is safe
        _run(project, probe, A, B)
        assert probe.retiming is not None
        return {"threads": probe.threads, **probe.retiming._asdict()}

    decided = _in_a_fork(run, tmp_path / "decided.json")
    assert decided["threads"] == 1
    assert (decided["child"], decided["why"]) == ("forked", FORKED_WHY)
    # The fork ran no conftest again (no given.json): it is the run itself.
    assert not project.path.joinpath("given.json").exists()
    assert decided["samples"] == {A: [EACH] * 2, B: [EACH] * 2}
    # The same run in this process, with a thread of this test's alive, re-times
    # in a spawned child, which takes the same samples. (It also makes this test
    # one that calls retime in this process: a mutation sweep maps a test to the
    # functions it saw called here, never in a fork.)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        spawned = _Retime()
        _run(project, spawned, A, B)
    finally:
        stop.set()
        thread.join()
    assert spawned.retiming is not None
    assert spawned.retiming.child == "spawned"
    assert project.path.joinpath("given.json").exists()
    assert spawned.retiming.samples == {A: [EACH] * 2, B: [EACH] * 2}


@pytest.mark.integration
def test_a_run_with_threads_alive_retimes_in_a_spawned_child_and_says_why(
    project: pytest.Pytester,
) -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        probe = _Retime()
        _run(project, probe, A, B)
    finally:
        stop.set()
        thread.join()
    assert probe.retiming is not None
    assert probe.threads >= 2
    assert probe.retiming._replace(samples={}) == Retiming(
        {},
        "spawned",
        f"{probe.threads} threads alive: a fork copies only this one, and the locks others hold",
    )
    assert probe.retiming.samples == {A: [EACH] * 2, B: [EACH] * 2}


@pytest.mark.integration
def test_a_spawned_child_runs_in_the_project_with_a_private_plan_and_no_output(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    # Started from a subdirectory of the project, under a LANES_TEST_FORCE=0
    # of the caller's: the child runs in the project's root, as a lane's
    # measuring run, and writes nothing where the run writes.
    monkeypatch.setenv("LANES_TEST_FORCE", "0")
    monkeypatch.chdir(project.path / "tests")
    probe = _Retime(spawn=True)
    _run(project, probe, "test_offenders.py")
    written = capfd.readouterr()
    assert probe.retiming is not None
    # B failed in the child, and was timed all the same.
    assert probe.retiming._replace(samples={}) == Retiming({}, "spawned", SPAWN_OPTION)
    assert probe.retiming.samples == {A: [EACH] * 2, B: [EACH] * 2}
    given = json.loads(project.path.joinpath("given.json").read_text())
    assert (given["cwd"], given["force"]) == (str(project.path), "1")
    # The plan and the samples file in one temporary directory of the lane's own.
    plan = project.path.joinpath(given["plan"])
    assert (plan.name, plan.parent.name[: len("lanes-slow-retime-")]) == (
        "plan.json",
        "lanes-slow-retime-",
    )
    assert given["out"] == str(plan.with_name("samples.json"))
    assert not plan.parent.exists()  # removed with what the child wrote
    assert "the child on stdout" not in written.out
    assert "the child on stderr" not in written.err


class _Refusal:
    """Asks at the session's end whether the run may fork, as the platform ``platform``."""

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, *, platform: str, setup_state: bool
    ) -> None:
        self.monkeypatch = monkeypatch
        self.platform = platform
        self.setup_state = setup_state
        self.refusal: str | None = "not asked"

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        with self.monkeypatch.context() as patch:
            patch.setattr(sys, "platform", self.platform)
            if not self.setup_state:
                patch.delattr(session, "_setupstate")
            self.refusal = fork_refusal(session, [A])


@pytest.mark.parametrize(
    ("platform", "setup_state", "refusal"),
    [
        (
            "darwin",
            True,
            "macOS: a forked process can crash in system frameworks (Python spawns there too)",
        ),
        (
            "linux",
            False,
            "pytest's setup state is not readable here: whether fixtures are torn down is unknown",
        ),
    ],
    ids=["macos", "no-setup-state"],
)
def test_a_run_that_cannot_fork_safely_says_why(
    project: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    platform: str,
    setup_state: bool,
    refusal: str,
) -> None:
    probe = _Refusal(monkeypatch, platform=platform, setup_state=setup_state)
    project.runpytest("-p", "no:cacheprovider", A, plugins=[probe])
    assert probe.refusal == refusal
