"""What one re-timing sample holds, to the value, and which tests each pass runs.

The :class:`~lanes.slow.confirmation.Retimer` runs here in this very process,
in a pytester session, on two controlled clocks: pytest's phase clock
(:data:`tests.slow.slow_helpers.CLOCK_CONFTEST`: a duration is exactly what a
test ``takes``) and a run-queue record this test writes itself (a
:class:`~lanes.slow.runqueue.RunQueueClock` that is not registered, so the
waits it holds are the ones planted). Every planted duration is a binary
fraction (0.125, 0.25, ...), so sums and differences are exact and a sample is
compared with ``==``.
"""

from __future__ import annotations

import pytest

from lanes.slow.confirmation import Plan, Retimer
from lanes.slow.runqueue import RunQueueClock
from lanes.slow.stopwatch import Stopwatch
from tests.slow.slow_helpers import CLOCK_CONFTEST, IN_PROCESS_RATCHET, PYPROJECT

# `prepared`: 0.25 s of the test's own setup. `noted` notes each setup of the
# module-scoped fixture of test_m2.py, and each teardown.
TIMED = """
import pathlib, pytest

NOTES = pathlib.Path(__file__).parent / "notes.txt"

def note(text):
    with NOTES.open("a") as notes:
        notes.write(text + "\\n")

@pytest.fixture
def prepared(takes):
    takes(0.25)

@pytest.fixture
def broken():
    note("broken setup")
    raise RuntimeError("setup fails")

def test_a(prepared, takes):
    takes(0.75)

def test_b(prepared, takes):
    takes(0.5)
    takes(0.125)

def test_c(prepared, takes):
    takes(0.5)

def test_s(broken):
    pass

def test_stop(request, takes):
    takes(0.5)
    request.session.shouldstop = "a plugin asked the re-timing to stop"
"""
M1 = """
def test_first(takes):
    takes(0.5)
"""
M2 = """
import pathlib, pytest

NOTES = pathlib.Path(__file__).parent / "notes.txt"

def note(text):
    with NOTES.open("a") as notes:
        notes.write(text + "\\n")

@pytest.fixture(scope="module")
def noted():
    note("module setup")
    yield
    note("module teardown")

def test_second(noted, takes):
    takes(0.5)

def test_third(noted, takes):
    takes(0.5)
"""
A, B, C, S, STOP = (f"tests/test_timed.py::test_{name}" for name in ("a", "b", "c", "s", "stop"))
FIRST = "tests/test_m1.py::test_first"
SECOND, THIRD = "tests/test_m2.py::test_second", "tests/test_m2.py::test_third"


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyprojecttoml(PYPROJECT.replace("{enabled}", ""))
    pytester.path.joinpath("conftest.py").write_text(CLOCK_CONFTEST)
    tests = pytester.mkdir("tests")
    tests.joinpath("test_timed.py").write_text(TIMED)
    tests.joinpath("test_m1.py").write_text(M1)
    tests.joinpath("test_m2.py").write_text(M2)
    return pytester


class _Retiming:
    """Runs a :class:`Retimer` in place of the session's run loop, on a planted run-queue clock."""

    def __init__(self, plan: Plan, clock: RunQueueClock | None) -> None:
        self.plan = plan
        self.clock = clock
        self.retimer: Retimer | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        manager = session.config.pluginmanager
        stopwatch = manager.get_plugin("lanes-slow-stopwatch")
        assert isinstance(stopwatch, Stopwatch)
        self.retimer = Retimer(self.plan, stopwatch, self.clock)
        manager.register(self.retimer, "lanes-slow-retimer")
        self.retimer.run(session, session.items)
        return True


def _retime(
    project: pytest.Pytester,
    nodeids: list[str],
    clock: RunQueueClock | None = None,
    **plan: object,
) -> tuple[dict[str, list[float]], pytest.RunResult]:
    """The samples a Retimer takes of ``nodeids`` in an in-process session, and its result."""
    full: Plan = {
        "passes": 2,
        "once_past": 0.0,
        "far": [],
        "limits": dict.fromkeys(nodeids, 0.125),
        "out": str(project.path / "samples.json"),
    }
    full.update(plan)  # type: ignore[typeddict-item]  # the test's own keys are Plan's
    retiming = _Retiming(full, clock)
    result = project.runpytest(
        *IN_PROCESS_RATCHET,
        "--slow-confirm=0",
        *nodeids,
        plugins=[retiming],
    )
    assert retiming.retimer is not None, result.outlines
    return retiming.retimer.samples, result


def _notes(project: pytest.Pytester) -> list[str]:
    notes = project.path / "tests" / "notes.txt"
    return notes.read_text().splitlines() if notes.exists() else []


@pytest.mark.integration
def test_a_sample_is_setup_and_call_less_the_cpu_waits_of_each(project: pytest.Pytester) -> None:
    clock = RunQueueClock()
    # A waited 0.125 s for a CPU in its setup and 0.25 s in its call.
    clock.setup[A], clock.call[A] = 0.125, 0.25
    # C waited longer in its call than the call took: its call counts 0, not less.
    clock.setup[C], clock.call[C] = 0.0, 2.0
    # B has no record on the clock: its setup and call stand as pytest timed them.
    samples, _result = _retime(project, [A, B, C], clock)
    assert samples == {
        A: [(0.25 - 0.125) + (0.75 - 0.25)] * 2,
        B: [0.875] * 2,
        C: [0.25] * 2,
    }


@pytest.mark.integration
def test_without_a_run_queue_clock_a_sample_is_setup_and_call(project: pytest.Pytester) -> None:
    samples, _result = _retime(project, [A, B])
    assert samples == {A: [1.0, 1.0], B: [0.875, 0.875]}


@pytest.mark.integration
def test_a_pass_keeps_a_module_fixture_between_two_tests_of_its_module(
    project: pytest.Pytester,
) -> None:
    # Passes in order first, second, third; then third, second, first. The
    # module fixture of second and third is set up once a pass, and torn
    # down when the pass moves to another module or ends: a sample holds
    # what a suite run would have set up for it, no more.
    samples, _result = _retime(project, [FIRST, SECOND, THIRD])
    assert _notes(project) == ["module setup", "module teardown"] * 2
    assert samples == {FIRST: [0.5] * 2, SECOND: [0.5] * 2, THIRD: [0.5] * 2}


@pytest.mark.integration
def test_a_test_whose_setup_failed_is_not_set_up_again(project: pytest.Pytester) -> None:
    samples, _result = _retime(project, [A, S], passes=3)
    assert _notes(project) == ["broken setup"]
    assert samples == {A: [1.0] * 3}


@pytest.mark.integration
@pytest.mark.parametrize(
    ("once_past", "limit", "taken"),
    # A's first re-timing is 1.0 s: exactly once_past x its limit ends its
    # sampling, as does a factor of 1 or less; just under does not.
    [(2.0, 0.5, 1), (1.0, 1.0, 1), (0.5, 1.5, 1), (2.0, 0.5078125, 3)],
    ids=["at-2x", "at-1x", "half-the-limit", "just-under-2x"],
)
def test_a_first_retiming_at_once_past_times_the_limit_ends_the_sampling(
    project: pytest.Pytester, once_past: float, limit: float, taken: int
) -> None:
    samples, _result = _retime(
        project, [A], passes=3, once_past=once_past, far=[A], limits={A: limit}
    )
    assert samples == {A: [1.0] * taken}


@pytest.mark.integration
def test_a_retiming_stopped_by_a_plugin_says_why(project: pytest.Pytester) -> None:
    samples, result = _retime(project, [STOP, A])
    # Stopped after its first test: nothing else ran, nothing was written.
    assert samples == {STOP: [0.5]}
    assert not (project.path / "samples.json").exists()
    result.stdout.fnmatch_lines(["*Interrupted: a plugin asked the re-timing to stop*"])
