"""The Retimer's passes in this test process, and the files a re-timing reads and writes.

Each pass samples every offender (every other pass in reverse) until one
sample far past its limit is enough (:func:`~lanes.slow.confirmation.far_past`),
on the plan the ratchet wrote and into the samples file it reads back.

Real pytest sessions run in-process (pytester), on the controlled clock
(:data:`tests.slow.slow_helpers.CLOCK_CONFTEST`) where a duration is the
point; the child that runs them is :mod:`tests.slow.test_slow_retimer_child`'s,
and the other files of this package run whole ratchet runs with their children.
"""

from __future__ import annotations

import json
from fnmatch import fnmatch
from typing import TYPE_CHECKING, Any

import pytest

from lanes.slow.confirmation import Plan, far_past, read_plan
from tests.slow.retimer_helpers import A, B, C, F, S, offenders_project

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.slow.verdicts import Judged


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The planted offenders' project (:mod:`tests.slow.retimer_helpers`), this test's own."""
    return offenders_project(pytester, monkeypatch)


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
