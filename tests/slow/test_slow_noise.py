"""Verdicts that survive noise, and the verdict where CI shows results.

Real pytest sessions (pytester); the confirmation re-timing runs real child
pytest processes. Plugin autoload is off in these sessions (and so in their
children), so a child starts in a fraction of a second instead of importing
every plugin this environment has; the ratchet is loaded by name.
"""

from __future__ import annotations

import importlib
import json
import xml.etree.ElementTree as ET
from fnmatch import fnmatch
from typing import TYPE_CHECKING

import pytest

from lanes.slow.confirmation import FORKED_WHY, SPAWN_OPTION
from lanes.slow.forked import threads_alive
from lanes.slow.report import NEAR_LIMIT
from lanes.slow.verdicts import suggested_ceiling
from tests.slow.slow_helpers import (
    BAND,
    FAST,
    FIRST_PAYS,
    IN_PROCESS_RATCHET,
    PYPROJECT,
    SLOW,
    THREE_TESTS,
    write_pins,
)
from tests.support.documents import read_json

if TYPE_CHECKING:
    from pathlib import Path

NOISY = "tests/test_noisy.py::test_noisy"

# Slow (0.6 s, 3.3x the 0.18 s limit) on its first run only: what a load spike
# does to a fast test. The flag file lives next to the test.
NOISY_TEST = """
import pathlib, time

def test_noisy():
    flag = pathlib.Path(__file__).with_suffix(".ran")
    if not flag.exists():
        flag.write_text("once")
        time.sleep(0.6)
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    pytester.makepyprojecttoml(PYPROJECT.replace("{enabled}", "").replace("confirm = 0", ""))
    tests = pytester.mkdir("tests")
    tests.joinpath("test_three.py").write_text(THREE_TESTS)
    return pytester


def _suite(path: Path) -> ET.Element:
    root = ET.parse(path).getroot()  # noqa: S314  # the XML pytest just wrote, not untrusted input
    suite = root.find("testsuite")
    assert suite is not None
    return suite


def _testcases(path: Path) -> list[ET.Element]:
    return list(_suite(path).iter("testcase"))


def _run(pytester: pytest.Pytester, *args: str, once_past: float = 0) -> pytest.RunResult:
    """A ratchet run; ``once_past`` 0 by default: these tests plant offenders
    far past their limit (0.6 s against 0.18 s) to exercise every re-timing."""
    return pytester.runpytest(
        *IN_PROCESS_RATCHET,
        f"--slow-confirm-once-past={once_past}",
        *args,
    )


@pytest.mark.integration
def test_a_one_off_slow_run_is_unconfirmed_and_a_slow_test_is_confirmed(
    project: pytest.Pytester,
) -> None:
    project.path.joinpath("tests", "test_noisy.py").write_text(NOISY_TEST)
    out = project.path / "slow.json"
    threads = threads_alive()
    result = _run(project, f"--slow-json={out}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            f"FAIL {SLOW} took * s: past 9 × the 'unit' tier budget 0.02 s (limit 0.18 s)",
            "     confirmed: re-timed at * s, * s, all past the limit",
            (
                f"unconfirmed {NOISY} took * s (limit 0.18 s), then * s, * s when re-timed alone: "
                "noise (the suite's load), not failed"
            ),
            "slow-test ratchet FAILED: 4 tests judged, 1 past their limit, *unconfirmed",
        ]
    )
    data = read_json(out)
    assert data["confirm"] == 2
    # This process forks the re-timing when it has no other thread (a
    # plugin's server thread, xdist's channels): tests/slow/test_slow_forked.py.
    if threads == 1:
        assert data["retimed"] == {"child": "forked", "why": FORKED_WHY}
    else:
        assert data["retimed"] == {
            "child": "spawned",
            "why": f"{threads} threads alive: a fork copies only this one, and the locks others hold",
        }
    assert [o["nodeid"] for o in data["offenders"]] == [SLOW]
    assert len(data["offenders"][0]["samples_ms"]) == 2
    assert all(ms > 180 for ms in data["offenders"][0]["samples_ms"])
    unconfirmed = {u["nodeid"]: u["samples_ms"] for u in data["unconfirmed"]}
    # A loaded machine can stretch the band test (sleep 0.06 s) past the limit
    # too; re-timing then finds it under the limit as well: also unconfirmed.
    assert set(unconfirmed) - {BAND} == {NOISY}
    # Re-timed twice (confirm = 2). Not a bound on the samples: "unconfirmed"
    # already says one fell under the limit, and how far is the machine's load.
    assert len(unconfirmed[NOISY]) == 2


@pytest.mark.integration
def test_an_offender_far_past_its_limit_is_retimed_once(project: pytest.Pytester) -> None:
    # 0.6 s in the suite and in its first re-timing, 3.3x the 0.18 s limit
    # (past 1.5x) both times: that re-timing decides, the second pass is not
    # run for it. The noisy test, as far past in the suite, was fast when
    # re-timed, so it gets every re-timing.
    project.path.joinpath("tests", "test_noisy.py").write_text(NOISY_TEST)
    out = project.path / "slow.json"
    result = _run(project, f"--slow-json={out}", once_past=1.5)
    data = read_json(out)
    unconfirmed = {u["nodeid"]: u["samples_ms"] for u in data["unconfirmed"]}
    if SLOW in unconfirmed:
        # The run-queue clock on a loaded Linux 6.18 took its first re-timed
        # sleep for CPU wait: not far past then, so it got every re-timing.
        assert len(unconfirmed[SLOW]) == 2
        assert unconfirmed[SLOW][0] < 1.5 * 180
    else:
        (offender,) = data["offenders"]
        assert offender["nodeid"] == SLOW
        assert len(offender["samples_ms"]) == 1
        assert offender["samples_ms"][0] > 1.5 * 180
        assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert len(unconfirmed[NOISY]) == 2
    assert all(ms < 180 for ms in unconfirmed[NOISY])


@pytest.mark.integration
def test_a_first_retiming_far_past_decides_nothing_when_the_suite_was_not(
    project: pytest.Pytester,
) -> None:
    # 0.7 s in the suite (1.11x the 0.63 s limit: a loaded machine would have
    # to add 0.25 s to reach 1.5x), 1.2 s when first re-timed (what a child's
    # warm-up did to a lone attrs offender), then 0.05 s: the first re-timing
    # alone must not confirm it.
    _paced(project, 0.7, 1.2, 0.05)
    out = project.path / "slow.json"
    budget = "--slow-budget=unit=0.07"
    _run(project, "--deselect", SLOW, budget, f"--slow-json={out}", once_past=1.5)
    data = read_json(out)
    assert data["offenders"] == []
    (unconfirmed,) = data["unconfirmed"]
    assert unconfirmed["nodeid"] == PACED
    assert len(unconfirmed["samples_ms"]) == 2
    assert unconfirmed["samples_ms"][1] < 630


@pytest.mark.integration
def test_an_offender_near_its_limit_still_gets_every_retiming(project: pytest.Pytester) -> None:
    # 0.7 s against a 0.63 s limit (budget 0.07 s x 9): 1.11x, under 1.5x (a
    # loaded machine would have to add 0.25 s to cross it), so a test near its
    # limit still needs both re-timings to fail.
    _paced(project, 0.7, 0.7, 0.7)
    out = project.path / "slow.json"
    budget = "--slow-budget=unit=0.07"
    _run(project, "--deselect", SLOW, budget, f"--slow-json={out}", once_past=1.5)
    data = read_json(out)
    # Confirmed, or (the run-queue clock on a loaded Linux 6.18 can take a
    # sleep for CPU wait: a clean sweep once saw 0.0076 s of a 0.7 s sleep)
    # unconfirmed: two samples either way, the point here.
    (retimed,) = data["offenders"] + data["unconfirmed"]
    assert retimed["nodeid"] == PACED
    assert len(retimed["samples_ms"]) == 2


# Sleeps past its limit every run and notes the process that ran it.
PID_TEST = """
import os, pathlib, time

def test_pid():
    with pathlib.Path(__file__).with_suffix(".pids").open("a") as pids:
        pids.write(f"{os.getpid()}\\n")
    time.sleep(0.3)
"""


@pytest.mark.integration
def test_every_retiming_runs_in_one_child_process(project: pytest.Pytester) -> None:
    # Each child pays the interpreter's, pytest's and the plugins' start-up
    # and the offenders' collection: one child per sample made a confirmed
    # FAIL cost 2.04x the plain run of a short suite. Two offenders, two
    # re-timings each: one child.
    project.path.joinpath("tests", "test_pid.py").write_text(PID_TEST)
    out = project.path / "slow.json"
    _run(project, f"--slow-json={out}")
    data = read_json(out)
    # Confirmed or not: on a loaded Linux 6.18 the run-queue clock can take a
    # sleep for CPU wait and clear a sample; the count of samples is the point.
    retimed = {o["nodeid"]: o["samples_ms"] for o in data["offenders"] + data["unconfirmed"]}
    assert sorted(retimed) == sorted([SLOW, "tests/test_pid.py::test_pid"])
    assert [len(samples) for samples in retimed.values()] == [2, 2]
    suite, *children = project.path.joinpath("tests", "test_pid.pids").read_text().split()
    assert len(children) == 2
    assert len(set(children)) == 1
    assert suite not in children


@pytest.mark.integration
def test_a_killed_retiming_child_keeps_the_passes_it_finished(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 0.6 s in the suite and in the first pass, then it hangs: the child is
    # killed at its deadline (here 8 s), and the sample of the pass it
    # finished still counts (it is written after each pass).
    # By sys.modules, not `from lanes.slow import confirmation`: an earlier
    # in-process run in this worker can leave the package's attribute naming a
    # module that pytester's sys.modules snapshot has since dropped, and the
    # run would import (and use) a fresh one.
    confirmation = importlib.import_module("lanes.slow.confirmation")
    monkeypatch.setattr(confirmation, "CHILD_SLACK", 8.0)
    monkeypatch.setattr(confirmation, "DEADLINE_FACTOR", 0.0)
    _paced(project, 0.6, 0.6, 60)
    out = project.path / "slow.json"
    # A spawned child, whatever this process's threads (a fork: test_slow_forked.py).
    _run(project, "--deselect", SLOW, f"--slow-json={out}", "--slow-confirm-spawn")
    data = read_json(out)
    assert data["retimed"] == {"child": "spawned", "why": SPAWN_OPTION}
    # Confirmed, or (the run-queue clock on a loaded Linux 6.18 can take a
    # sleep for CPU wait) unconfirmed: one sample either way.
    (retimed,) = data["offenders"] + data["unconfirmed"]
    assert retimed["nodeid"] == PACED
    assert len(retimed["samples_ms"]) == 1


# Its duration on each run, in order: the suite's run first, then each
# re-timing (a counter file beside the test).
PACED_TEST = """
import pathlib, time

def test_paced():
    counter = pathlib.Path(__file__).with_suffix(".runs")
    run = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(run + 1))
    time.sleep({durations}[min(run, {last})])
"""
PACED = "tests/test_paced.py::test_paced"


def _paced(project: pytest.Pytester, *durations: float) -> None:
    text = PACED_TEST.format(durations=list(durations), last=len(durations) - 1)
    project.path.joinpath("tests", "test_paced.py").write_text(text)


@pytest.mark.integration
def test_a_test_whose_retimings_straddle_the_limit_is_told_to_be_pinned(
    project: pytest.Pytester,
) -> None:
    # One re-timing past the limit, one far under it: the test's own duration
    # sits at the limit (an attrs property test drawing new examples each
    # run), so its verdict flips between runs. "Noise" would be the wrong word.
    _paced(project, 0.6, 0.6, 0.0)
    result = _run(project, "--deselect", SLOW)
    result.stdout.fnmatch_lines(
        [
            (
                f"unconfirmed {PACED} took * s (limit 0.18 s), then * s, * s when re-timed alone: "
                "past the limit in 1 of 2 re-timings — its own duration sits near the limit, so its "
                "verdict will flip between runs; not failed, but pin it or move it to a slower tier:"
            ),
            # 1.25 x the slower re-timing: 0.75 s for the planted 0.6 s sleep,
            # 0.8 s when the load stretched it to 0.637 s (a loaded sweep).
            (
                f"     lanes slow pin {PACED} --reason '<why it is slow>' --tracking '<issue>' "
                "--ceiling 0.[78]*"
            ),
        ]
    )
    assert result.ret == pytest.ExitCode.OK


_NEAR = (
    "re-timed at * of the limit — its own duration sits near the limit, so its "
    "verdict will flip between runs; not failed, but pin it or move it to a slower tier:"
)
_BAND = "within the band when re-timed alone, not failed"


@pytest.mark.integration
@pytest.mark.parametrize(
    ("retimed", "verdict"),
    [
        # 83% of the 0.18 s limit: near it. On attrs such tests (re-timed at
        # 0.15-0.19 s against 0.2 s) failed in later runs: the advice must come now.
        (0.15, _NEAR),
        # A third of the limit, over the 0.02 s budget: in the band, no advice
        # (an attrs test re-timed at half its limit was told to pin, and never flipped).
        (0.06, _BAND),
    ],
)
def test_a_retimed_test_is_told_to_pin_only_near_the_limit(
    project: pytest.Pytester, retimed: float, verdict: str
) -> None:
    _paced(project, 0.6, retimed)
    result = _run(project, "--deselect", SLOW)
    head = f"unconfirmed {PACED} took * s (limit 0.18 s), then * s, * s when re-timed alone: "
    line = next((line for line in result.outlines if fnmatch(line, head + "*")), None)
    assert line is not None, result.outlines
    # The re-timings are real sleeps, and a loaded machine stretches them (the
    # suite under the slow lane once re-timed sleep(0.06) at 0.166 s). The rule
    # is held to what was measured: a stretched sample may move this case to
    # the next verdict up, never to a wrong one.
    retimings = line.split(", then ", 1)[1].split(" when re-timed alone", 1)[0]
    slowest = max(float(sample.removesuffix(" s")) for sample in retimings.split(", "))
    if slowest >= 0.18:
        verdict = "past the limit in 1 of 2 re-timings — its own duration sits near the limit*"
    elif slowest >= NEAR_LIMIT * 0.18:
        verdict = _NEAR
    else:
        assert verdict == _BAND, f"{retimed} s re-timed at {slowest} s: under {NEAR_LIMIT:.0%}"
    assert fnmatch(line, head + verdict), line
    pin_line = f"     lanes slow pin {PACED} --reason*"
    told_to_pin = any(fnmatch(out, pin_line) for out in result.outlines)
    assert told_to_pin == (verdict != _BAND)
    assert result.ret == pytest.ExitCode.OK


@pytest.mark.integration
def test_a_band_test_near_its_limit_is_told_to_be_pinned(project: pytest.Pytester) -> None:
    # 0.15 s against a 0.18 s limit: in the band today, past the limit on the
    # next draw (attrs: a band test at 97% of its limit failed in a later run
    # and was never flagged, because only offenders were re-timed). A band
    # test far from its limit (test_band, a third of it) gets no advice.
    _paced(project, 0.15)
    result = _run(project, "--deselect", SLOW)
    result.stdout.fnmatch_lines(
        [
            (
                f"* {PACED} took *its own duration sits near the limit, so its verdict will flip "
                "between runs; not failed, but pin it or move it to a slower tier:"
            ),
            f"     lanes slow pin {PACED} --reason '<why it is slow>' --tracking '<issue>' *",
            f"band {BAND} took * s: over the 'unit' budget 0.02 s; fails past 0.18 s",
        ]
    )
    assert result.ret == pytest.ExitCode.OK


@pytest.mark.integration
def test_the_first_test_of_a_retiming_run_is_not_always_the_same(
    project: pytest.Pytester,
) -> None:
    # Found on attrs: the confirmation runs went in node-id order, so the same
    # test paid every child's warm-up in every sample and was confirmed slow
    # in runs where a test sorting before it was an offender too. All the
    # re-timings run in one child now: its warm-up is paid once, by the
    # first test of the first pass, and the second pass starts with the other.
    # A spawned child pays a warm-up (a fork inherits the run's: test_slow_forked.py).
    project.path.joinpath("tests", "test_first.py").write_text(FIRST_PAYS)
    out = project.path / "slow.json"
    result = _run(project, "--deselect", SLOW, f"--slow-json={out}", "--slow-confirm-spawn")
    data = read_json(out)
    assert data["retimed"] == {"child": "spawned", "why": SPAWN_OPTION}
    assert data["offenders"] == [], result.stdout.str()
    samples = {u["nodeid"]: u["samples_ms"] for u in data["unconfirmed"]}
    first, second = "tests/test_first.py::test_a", "tests/test_first.py::test_b"
    # The warm-up sleeps 0.6 s, a warm run takes about 1 ms. A sample is wall
    # time minus the run-queue wait (runqueue.py), which on a loaded machine
    # took one 0.6 s sleep to 596 ms: the line between the two is 500 ms, not 600.
    assert [ms >= 500 for ms in samples[first]] == [True, False]
    assert [ms >= 500 for ms in samples[second]] == [False, False]


@pytest.mark.integration
def test_a_pin_holds_the_retimed_duration_not_the_loaded_one(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 0.6 s in the suite (a load spike), 0.3 s every time re-timed alone: the
    # ceiling a pin defaults to comes from the re-timings (found on attrs: a
    # test measured 3.0 s in the loaded suite and 0.76 s re-timed got a 3.8 s
    # ceiling, failing only past 7.6 s).
    from lanes.cli import main  # noqa: PLC0415

    _paced(project, 0.6, 0.3)
    out = project.path / "slow.json"
    result = _run(project, "--deselect", SLOW, f"--slow-json={out}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"FAIL {PACED} took *", "     confirmed: re-timed at *"])
    (offender,) = [o for o in read_json(out)["offenders"] if o["nodeid"] == PACED]
    # The rule, from what this run measured (a loaded machine can stretch a
    # 0.3 s re-timing too: once 1.08 s at load 11-15): a quarter over the
    # slowest re-timing, whatever the suite's own (loaded) duration was.
    slowest_ms = max(offender["samples_ms"])
    low, high = (suggested_ceiling((slowest_ms + d) / 1000) for d in (-0.5, 0.5))  # ms rounding
    monkeypatch.chdir(project.path)
    reason = ["--reason", "sleeps on purpose to pace a fake clock", "--tracking", "#12"]
    assert main(["slow", "pin", PACED, *reason]) == 0
    pins = read_json(project.path / "baselines" / "slow-tests.json")
    (pin,) = [p for p in pins["pins"] if p["nodeid"] == PACED]
    assert low <= pin["ceiling"] <= high
    result.stdout.fnmatch_lines([f"*--ceiling {pin['ceiling']:g}*"])
    if slowest_ms < offender["ms"]:
        # The usual case: the re-timings ran alone, faster than the loaded suite.
        assert pin["ceiling"] < suggested_ceiling(offender["ms"] / 1000)


@pytest.mark.integration
def test_confirm_zero_fails_on_one_sample(project: pytest.Pytester) -> None:
    project.path.joinpath("tests", "test_noisy.py").write_text(NOISY_TEST)
    out = project.path / "slow.json"
    _run(project, f"--slow-json={out}", "--slow-confirm=0")
    data = read_json(out)
    # A loaded machine can stretch the band test (sleep 0.06 s) past the limit
    # too (0.213 s under load 24): one sample fails it as well.
    assert {o["nodeid"] for o in data["offenders"]} - {BAND} == {SLOW, NOISY}
    assert data["unconfirmed"] == []
    assert data["retimed"] is None


def test_a_pin_is_removable_only_after_three_fast_runs_in_a_row(project: pytest.Pytester) -> None:
    write_pins(project, {"nodeid": FAST, "ceiling": 1.0})
    out = project.path / "slow.json"
    states = []
    for _ in range(3):
        _run(project, f"--slow-json={out}", "--slow-confirm=0")
        (pin,) = read_json(out)["pins"]
        states.append((pin["state"], pin["streak"], len(pin["history_ms"])))
    assert states == [("within-budget", 1, 1), ("within-budget", 2, 2), ("removable", 3, 3)]


def test_the_offender_is_a_failed_case_in_junit_xml(project: pytest.Pytester) -> None:
    xml = project.path / "out.xml"
    result = _run(project, f"--junitxml={xml}", "--slow-confirm=0")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    cases = {(case.get("classname"), case.get("name")): case for case in _testcases(xml)}
    case = cases[("slow-test ratchet", SLOW)]
    (failure,) = case.findall("failure")
    assert "past 9 × the 'unit' tier budget 0.02 s" in (failure.get("message") or "")
    # The three real tests are still there, passing.
    assert ("tests.test_three", "test_slow") in cases
    assert int(_suite(xml).get("failures") or 0) >= 1


def test_a_clean_run_shows_the_ratchet_passing_in_junit_xml(project: pytest.Pytester) -> None:
    xml = project.path / "out.xml"
    _run(project, f"--junitxml={xml}", "--slow-budget=5", "--slow-confirm=0")
    names = {(c.get("classname"), c.get("name"), len(c)) for c in _testcases(xml)}
    assert ("slow-test ratchet", "all tests within their limits", 0) in names


def test_the_offender_is_a_failed_test_in_ctrf(project: pytest.Pytester) -> None:
    ctrf = project.path / "ctrf.json"
    _run(project, "-p", "ctrf.main", f"--ctrf={ctrf}", "--slow-confirm=0")
    tests = {t["name"]: t for t in json.loads(ctrf.read_text())["results"]["tests"]}
    entry = tests[f"slow-test ratchet::{SLOW}"]
    assert entry["status"] == "failed"
    assert "past 9 × the 'unit' tier budget" in entry["message"]


def test_github_actions_gets_error_and_warning_annotations(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = _run(project, "--slow-confirm=0")
    result.stdout.fnmatch_lines(
        [
            (
                "::error file=tests/test_three.py,line=10,title=slow-test ratchet%3A "
                f"{SLOW.replace(':', '%3A')}::{SLOW} took * s: past 9 × the 'unit' tier budget*"
            ),
            (
                "::warning file=tests/test_three.py,line=7,title=slow-test ratchet%3A "
                f"{BAND.replace(':', '%3A')}::{BAND} took * s: in the band, over its budget 0.02 s "
                "(fails past 0.18 s)"
            ),
        ]
    )


def test_no_annotations_outside_github_actions(project: pytest.Pytester) -> None:
    result = _run(project, "--slow-confirm=0")
    result.stdout.no_fnmatch_line("::error*")
