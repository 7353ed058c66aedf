"""Fixes found by trying the ratchet on real suites, and what pytest-fail-slow,
pytest-timeout and ``--durations`` users expect. One regression test per finding.

Real pytest sessions (pytester, autoload off so only the plugins named load)
and the real ``lanes`` CLI in-process; ``confirm = 0`` in the planted
project (slow_helpers), so one sample decides unless a test says otherwise.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from lanes.cli import main
from tests.slow.slow_helpers import BAND, FAST, IN_PROCESS_RATCHET, SLOW, make_project, write_pins
from tests.support.documents import read_json
from tests.support.git import git, git_repo

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    make_project(pytester)
    return pytester


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        *IN_PROCESS_RATCHET,
        *args,
    )


# -- lanes slow check: placeholders ------------------------------------------


@pytest.mark.parametrize(
    ("reason", "tracking", "problem"),
    [
        ("<why it is slow>", "#12", "reason '<why it is slow>' is a placeholder"),
        ("spawns a real server per case", "<issue>", "tracking '<issue>' is a placeholder"),
        ("slow", "#12", "reason 'slow' says nothing"),
        ("network", "#12", "reason 'network' is too short to explain anything"),
    ],
)
def test_check_rejects_placeholder_and_empty_justifications(
    project: pytest.Pytester,
    capsys: pytest.CaptureFixture[str],
    reason: str,
    tracking: str,
    problem: str,
) -> None:
    root = project.path
    git_repo(root)
    write_pins(project, {"nodeid": SLOW, "ceiling": 1.0, "reason": reason, "tracking": tracking})
    # A repository with one empty commit, so HEAD exists and has no pins.
    git(root, "commit", "-q", "--allow-empty", "-m", "base")
    assert main(["slow", "check", "--base", "HEAD", "--config", str(root / "pyproject.toml")]) == 1
    out = capsys.readouterr().out
    assert f"FAIL unjustified pin {SLOW}" in out
    assert problem in out


@pytest.mark.usefixtures("project")
def test_pin_refuses_the_placeholders_its_own_message_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [
        "slow",
        "pin",
        SLOW,
        "--reason",
        "<why it is slow>",
        "--tracking",
        "<issue>",
        "--ceiling",
        "1",
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert (
        "error: this pin would not pass `lanes slow check`: reason '<why it is slow>' is a placeholder"
        in err
    )
    assert "hint: " in err


# -- a damaged pin entry: the hint's command works -----------------------------


def test_unpin_removes_a_damaged_entry_that_stops_the_run(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_pins(project, {"nodeid": SLOW, "ceiling": 1.0}, {"nodeid": FAST, "ceiling": 1.0})
    document = json.loads(path.read_text())
    (damaged,) = [p for p in document["pins"] if p["nodeid"] == FAST]
    del damaged["ceiling"]
    path.write_text(json.dumps(document))
    result = _run(project)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*is missing ceiling*", "*lanes slow unpin NODEID*"])
    assert main(["slow", "unpin", FAST]) == 0
    assert "unpinned" in capsys.readouterr().out
    remaining = json.loads(path.read_text())["pins"]
    assert [p["nodeid"] for p in remaining] == [SLOW]
    assert _run(project).ret == 0  # the file loads again; SLOW's pin holds


# -- a subset run is recorded as partial ----------------------------------------


def test_a_run_over_a_subset_is_marked_partial_with_its_arguments(project: pytest.Pytester) -> None:
    out = project.path / "slow.json"
    _run(project, f"--slow-json={out}", FAST).stdout.fnmatch_lines(
        [f"slow-test ratchet passed: * — PARTIAL run (selected paths: {FAST}): *"]
    )
    data = read_json(out)
    assert data["partial"] is True
    assert data["partial_reasons"] == [f"selected paths: {FAST}"]
    assert FAST in data["pytest_args"]
    # lanekit's own --slow-json (a temporary path of this machine) is not the user's argument.
    assert not any(arg.startswith("--slow-json") for arg in data["pytest_args"])


def test_a_full_run_is_not_partial(project: pytest.Pytester) -> None:
    out = project.path / "slow.json"
    _run(project, f"--slow-json={out}", "tests")
    assert read_json(out)["partial"] is False
    # The session-started marker (read only when pytest dies mid-session) goes
    # once the result is written: it used to pile up beside every envelope.
    assert sorted(p.name for p in out.parent.glob("slow.json*")) == ["slow.json"]
    _run(project, f"--slow-json={out}", "-k", "fast")
    assert read_json(out)["partial_reasons"] == ["-k fast"]


@pytest.mark.parametrize("stop", ["-x", "--maxfail=1"])
def test_a_run_stopped_early_by_a_failure_is_marked_partial(
    project: pytest.Pytester, stop: str
) -> None:
    # tests/test_a_fails.py runs first and fails; -x / --maxfail then leaves
    # tests/test_three.py unrun, so the verdict says nothing about it.
    project.path.joinpath("tests", "test_a_fails.py").write_text("def test_x():\n    assert 0\n")
    out = project.path / "slow.json"
    result = _run(project, f"--slow-json={out}", stop, "tests")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*PARTIAL run (stopped early: *"])
    data = read_json(out)
    assert data["partial"] is True
    assert [r for r in data["partial_reasons"] if r.startswith("stopped early: ")], data


# -- pin after a plain pytest run ------------------------------------------------


def test_pin_without_ceiling_after_a_plain_pytest_run(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(project).ret == pytest.ExitCode.TESTS_FAILED  # no --slow-json, no envelope
    argv = ["slow", "pin", SLOW, "--reason", "sleeps on purpose", "--tracking", "#1"]
    assert main(argv) == 0
    assert f"pinned {SLOW} (tier 'unit', ceiling " in capsys.readouterr().out
    (pin,) = json.loads((project.path / "baselines" / "slow-tests.json").read_text())["pins"]
    assert pin["ceiling"] >= 0.75  # 0.6 s measured (or more, under load) + 25%, rounded up


# -- pytest-rerunfailures: the slowest attempt is judged -------------------------

RERUN_TEST = """
import pathlib, time

def test_flaky_and_slow_first():
    flag = pathlib.Path(__file__).with_suffix(".ran")
    if not flag.exists():
        flag.write_text("once")
        time.sleep(0.6)
        raise AssertionError("first attempt fails")
"""


RERUN_FIXTURE_TEST = """
import pathlib, time, pytest

@pytest.fixture
def slow_on_the_first_attempt():
    flag = pathlib.Path(__file__).with_suffix(".ran")
    if not flag.exists():
        flag.write_text("once")
        time.sleep(0.6)
        return True
    return False

def test_flaky_with_a_slow_first_setup(slow_on_the_first_attempt):
    assert not slow_on_the_first_attempt, "first attempt fails"
"""


@pytest.mark.parametrize(
    ("source", "nodeid"),
    [
        (RERUN_TEST, "tests/test_rerun.py::test_flaky_and_slow_first"),
        # The stopwatch keeps every attempt's function-fixture setup; the
        # reports are read only at the session end, so the attempts must pair
        # up in order.
        (RERUN_FIXTURE_TEST, "tests/test_rerun.py::test_flaky_with_a_slow_first_setup"),
    ],
    ids=["slow-call", "slow-fixture-setup"],
)
def test_a_slow_first_attempt_is_judged_not_the_fast_rerun(
    project: pytest.Pytester, source: str, nodeid: str
) -> None:
    project.path.joinpath("tests", "test_three.py").unlink()
    project.path.joinpath("tests", "test_rerun.py").write_text(source)
    out = project.path / "slow.json"
    result = _run(project, "-p", "pytest_rerunfailures", "--reruns=1", f"--slow-json={out}")
    assert result.parseoutcomes() == {"passed": 1, "rerun": 1, "past": 1}
    (offender,) = read_json(out)["offenders"]
    assert offender["nodeid"] == nodeid
    assert offender["attempts"] == 2
    assert offender["ms"] >= 600


# -- outcomes as pytest counts them ------------------------------------------------

OUTCOMES_TEST = """
import pytest

def test_passes(): pass

@pytest.mark.skip(reason="planted")
def test_skipped(): pass

@pytest.mark.xfail(strict=False)
def test_xfails(): assert False

@pytest.mark.xfail(strict=False)
def test_xpasses(): pass
"""


def test_outcomes_count_skips_and_xfails(project: pytest.Pytester) -> None:
    project.path.joinpath("tests", "test_three.py").unlink()
    project.path.joinpath("tests", "test_outcomes.py").write_text(OUTCOMES_TEST)
    out = project.path / "slow.json"
    _run(project, f"--slow-json={out}")
    assert read_json(out)["outcomes"] == {"passed": 1, "skipped": 1, "xfailed": 1, "xpassed": 1}


# -- --slow-json PATH outside the project: loud, never silently other budgets ---


def test_a_moved_rootdir_is_an_error_not_default_budgets(
    project: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("outside") / "slow.json"
    elsewhere.write_text("{}")  # an existing path: pytest takes it for a test path
    # No test paths on the command line: the space-separated value is the only
    # "path" pytest sees, and its rootdir leaves the project.
    result = _run(project, "--slow-json", str(elsewhere))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*pytest chose rootdir*but the working directory belongs to*"])
    result.stderr.fnmatch_lines(["hint: write option values with '='*"])


# -- per-test budget, CLI overrides, slowest lists, hard stop ---------------------

MARKED_TEST = """
import time, pytest

@pytest.mark.slow_budget(1.0)
def test_own_budget():
    time.sleep(0.6)
"""


def test_a_marked_test_is_judged_against_its_own_budget(project: pytest.Pytester) -> None:
    project.path.joinpath("tests", "test_marked.py").write_text(MARKED_TEST)
    out = project.path / "slow.json"
    _run(project, f"--slow-json={out}")
    data = read_json(out)
    assert [o["nodeid"] for o in data["offenders"]] == [SLOW]
    marked = {t["nodeid"]: t for t in data["tests"]}["tests/test_marked.py::test_own_budget"]
    assert marked["ms"] >= 600


MARKED_ABOVE = """
import time, pytest

pytestmark = pytest.mark.slow_budget(0.3)

def test_module_marked():
    time.sleep(0.6)

@pytest.mark.slow_budget(1.0)
class TestClassMarked:
    def test_in_class(self):
        time.sleep(0.6)

def test_marked_by_conftest():
    time.sleep(0.6)
"""

CONFTEST_MARKS = """
import pytest

def pytest_collection_modifyitems(items):
    for item in items:
        if item.name == "test_marked_by_conftest":
            item.add_marker(pytest.mark.slow_budget(1.0))
"""


def test_a_budget_marker_on_a_module_class_or_added_by_a_hook_is_honoured(
    project: pytest.Pytester,
) -> None:
    # The marker is found once per module and class node, not per test: every
    # place get_closest_marker reads must still count.
    project.path.joinpath("tests", "test_marked_above.py").write_text(MARKED_ABOVE)
    project.path.joinpath("tests", "conftest.py").write_text(CONFTEST_MARKS)
    out = project.path / "slow.json"
    _run(project, f"--slow-json={out}")
    data = read_json(out)
    # Unmarked, each 0.6 s test would be past the unit limit (0.18 s).
    assert [o["nodeid"] for o in data["offenders"]] == [SLOW]
    # The module's 0.3 s budget puts its test in the band; the class's closer
    # 1.0 s marker and the hook's keep theirs within budget.
    band = {b["nodeid"] for b in data["band"]}
    assert band == {BAND, "tests/test_marked_above.py::test_module_marked"}


def test_a_bad_budget_marker_is_a_usage_error(project: pytest.Pytester) -> None:
    project.path.joinpath("tests", "test_marked.py").write_text(
        MARKED_TEST.replace("slow_budget(1.0)", "slow_budget('fast')")
    )
    result = _run(project)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*slow_budget expects one number of seconds > 0*"])


def test_cli_overrides_budget_and_fail_factor(project: pytest.Pytester) -> None:
    assert _run(project, "--slow-budget=unit=1").ret == 0
    assert _run(project, "--slow-budget=1").ret == 0
    assert _run(project, "--slow-fail-factor=100").ret == 0
    assert _run(project, "--slow-fail-factor=2").ret == pytest.ExitCode.TESTS_FAILED
    bad = _run(project, "--slow-budget=nightly=3")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(
        ["*names tier 'nightly', which is not configured*", "hint: use one of: unit, integration"]
    )


def test_the_slowest_lists_follow_the_configuration(project: pytest.Pytester) -> None:
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            "confirm = 0", "confirm = 0\nslowest = 1\nslowest_per_tier = 1"
        )
    )
    out = project.path / "slow.json"
    result = _run(project, f"--slow-json={out}")
    result.stdout.fnmatch_lines(
        ["slowest 1 (call + function-scoped fixture setup):", f"  * unit * {SLOW}"]
    )
    data = read_json(out)
    assert [t["nodeid"] for t in data["slowest"]] == [SLOW]
    assert {t["name"]: [s["nodeid"] for s in t["slowest_tests"]] for t in data["tiers"]} == {
        "unit": [SLOW],
        "integration": [],
    }


HUNG_TEST = """
import pathlib, time

def test_hangs():
    time.sleep(30)
    pathlib.Path(__file__).with_name("slept-it-out").write_text("the hard stop never came")
"""


def test_a_hung_test_hits_the_hard_stop_through_pytest_timeout(project: pytest.Pytester) -> None:
    pyproject = project.path / "pyproject.toml"
    # 2 × fail_factor 9 × budget 0.02 s = a 0.36 s hard stop.
    pyproject.write_text(
        pyproject.read_text().replace("confirm = 0", "confirm = 0\nhard_stop_factor = 2")
    )
    project.path.joinpath("tests", "test_three.py").write_text(HUNG_TEST)
    result = _run(project, "-p", "pytest_timeout")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*Timeout (>0.36s) from pytest-timeout*"])
    # Stopped inside its sleep, whatever the machine's load: it never got past it.
    assert not project.path.joinpath("tests", "slept-it-out").exists()


def test_without_pytest_timeout_the_hard_stop_says_it_is_off(project: pytest.Pytester) -> None:
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace("confirm = 0", "confirm = 0\nhard_stop_factor = 2")
    )
    result = _run(project)
    result.stdout.fnmatch_lines(
        ["hard stop off: pytest-timeout is not installed (hard_stop_factor)"]
    )


# -- pytest-timeout's thread method: the lane says what happened -------------------


@pytest.mark.integration
def test_the_lane_names_pytest_timeouts_thread_method(tmp_path: Path) -> None:
    tmp_path.joinpath("pyproject.toml").write_text("[tool.lanes.slow]\nconfirm = 0\n")
    tmp_path.joinpath("test_hang.py").write_text(HUNG_TEST)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "lanes",
            "slow",
            "run",
            "--",
            "-p",
            "no:cacheprovider",
            "--timeout=0.5",
            "--timeout-method=thread",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 3
    assert "pytest-timeout's thread method ends the process with os._exit" in proc.stderr
    assert "check that lanekit is installed" not in proc.stderr
    envelope = json.loads(tmp_path.joinpath("envelopes", "slow.json").read_text())
    assert envelope["stage"] == "error"
