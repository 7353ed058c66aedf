"""One suite run for two lanes: ``lanes timing --with-slow-ratchet`` then ``lanes slow run --from-run``.

Real runs of a planted project: the timing lane measures the suite once with
the slow ratchet enabled, the slow lane judges that run, and the timing lane
compares it only with a baseline arm recorded the same way.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from typing import TYPE_CHECKING, Any

import pytest

from lanes.cli import main
from lanes.exitcodes import ExitCode
from lanes.timing.shared import exit_path
from tests.support.documents import read_envelope

if TYPE_CHECKING:
    from pathlib import Path

PYTEST = (
    f"{shlex.quote(sys.executable)} -m pytest tests -q -p no:cacheprovider -p no:hypothesispytest"
)

# A fast test and one that sleeps past a 0.2 s budget (fail_factor 1: the
# limit is the budget), so the ratchet fails it in the suite and in its
# confirmation re-timing.
_TESTS = """\
import time


def test_fast():
    assert True


def test_sleeps_past_its_budget():
    time.sleep({sleep})
"""


def _project(root: Path, *, sleep: float) -> Path:
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        "[tool.pytest.ini_options]\n"
        'testpaths = ["tests"]\n\n'
        f"[tool.lanes.suites.planted]\ncommand = {json.dumps(PYTEST)}\n"
        'tier = "unit"\n\n'
        "[tool.lanes.slow]\nfail_factor = 1.0\n\n"
        "[tool.lanes.slow.tiers.unit]\nbudget = 0.2\n",
        encoding="utf-8",
    )
    tests = root / "tests"
    tests.mkdir(exist_ok=True)
    tests.joinpath("test_planted.py").write_text(_TESTS.format(sleep=sleep), encoding="utf-8")
    return pyproject


def _timing(config: Path, *args: str) -> int:
    return main(["timing", "--config", str(config), "--workers", "0", *args])


def _suite(root: Path) -> dict[str, Any]:
    suite: dict[str, Any] = read_envelope(root / "envelopes" / "timing.json")["data"]["suites"][0]
    return suite


@pytest.mark.integration
def test_one_run_is_measured_by_timing_and_judged_by_the_slow_lane(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the slow lane reads the project's configuration from here
    config = _project(tmp_path, sleep=0.6)
    shared = tmp_path / "shared" / "slow-ratchet.json"
    # A stale result from an earlier run must not be judged as this run's.
    shared.parent.mkdir()
    shared.write_text("{}", encoding="utf-8")
    # The ratchet's FAIL is the slow lane's verdict: the suite's tests all
    # passed, so the timing lane's run is not a failing suite.
    assert _timing(config, "--with-slow-ratchet", str(shared)) == ExitCode.OK
    suite = _suite(tmp_path)
    assert suite["status"] == "passed"
    assert suite["exit_codes"] == [1]
    assert f"--slow-json={shared}" in suite["measured"]["argv"]
    assert suite["measured"]["repeat"] == 1
    assert suite["xdist"] is None
    assert "shared with the slow-test ratchet" in suite["xdist_skipped"]
    assert "shared with the slow-test ratchet" in suite["sizing"]["reason"]
    assert exit_path(shared).read_text(encoding="utf-8") == "1\n"

    assert main(["slow", "run", "--from-run", str(shared)]) == ExitCode.FAIL
    slow = read_envelope(tmp_path / "envelopes" / "slow.json")
    assert slow["result"] == "fail"
    assert slow["data"]["pytest_exit"] == 1
    assert [o["nodeid"] for o in slow["data"]["offenders"]] == [
        "tests/test_planted.py::test_sleeps_past_its_budget"
    ]
    # The arguments of the run it judged: the timing lane's suite command.
    assert slow["data"]["pytest_args"][:2] == ["tests", "-q"]


@pytest.mark.integration
def test_a_shared_run_is_compared_only_with_the_arm_recorded_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _project(tmp_path, sleep=0.0)
    shared = tmp_path / "slow-ratchet.json"
    # The nightly's plain serial arm is recorded first.
    assert _timing(config, "--repeat", "1", "--record") == ExitCode.OK
    # The ratchet's hooks and re-timings run inside a shared run: compared with
    # the plain arm, its figures would be a false regression (or hide one).
    assert _timing(config, "--with-slow-ratchet", str(shared)) == ExitCode.OK
    comparison = _suite(tmp_path)["comparison"]
    assert comparison["status"] == "not comparable"
    assert comparison["arm"] == "serial + slow ratchet"
    assert "'serial' arm(s), not 'serial + slow ratchet'" in comparison["reason"]
    assert comparison["metrics"] == []

    # Recording the shared arm keeps the serial one; each run then meets its own.
    assert _timing(config, "--with-slow-ratchet", str(shared), "--record") == ExitCode.OK
    baseline = json.loads((tmp_path / "baselines" / "timing.json").read_text(encoding="utf-8"))
    assert set(baseline["suites"]["planted"]["arms"]) == {"serial", "serial + slow ratchet"}
    capsys.readouterr()
    assert _timing(config, "--with-slow-ratchet", str(shared)) == ExitCode.OK
    comparison = _suite(tmp_path)["comparison"]
    assert (comparison["status"], comparison["arm"]) == ("compared", "serial + slow ratchet")
    assert _timing(config, "--repeat", "1") == ExitCode.OK
    comparison = _suite(tmp_path)["comparison"]
    assert (comparison["status"], comparison["arm"]) == ("compared", "serial")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--suite", "planted", "--repeat", "2"], "takes one run, got --repeat 2"),
        (["--suite", "planted", "--suite", "other"], "measures one suite, got 2"),
    ],
)
def test_a_shared_run_is_one_run_of_one_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: str
) -> None:
    config = _project(tmp_path, sleep=0.0)
    with config.open("a", encoding="utf-8") as file:
        file.write(f"\n[tool.lanes.suites.other]\ncommand = {json.dumps(PYTEST)}\n")
    shared = tmp_path / "slow-ratchet.json"
    assert _timing(config, "--with-slow-ratchet", str(shared), *args) == ExitCode.USAGE
    assert expected in capsys.readouterr().err


def test_the_slow_lane_refuses_a_run_that_left_no_exit_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, sleep=0.0)
    shared = tmp_path / "slow-ratchet.json"
    shared.write_text("{}", encoding="utf-8")
    code = main(["slow", "run", "--from-run", str(shared)])
    assert code == ExitCode.CRASH
    err = capsys.readouterr().err
    assert "slow-ratchet.json.pytest-exit" in err
    assert "lanes timing --with-slow-ratchet PATH" in err
    envelope = read_envelope(tmp_path / "envelopes" / "slow.json")
    assert envelope["stage"] == "error"


def test_from_run_takes_no_pytest_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, sleep=0.0)
    code = main(["slow", "run", "--from-run", "x.json", "--", "-k", "fast"])
    assert code == ExitCode.USAGE
    assert "--from-run judges a run already made" in capsys.readouterr().err


@pytest.mark.timeout(60)  # before the strict read, a FIFO here blocked the lane forever
def test_the_slow_lane_reads_a_shared_result_only_as_a_regular_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # --from-run names a file in the project that any earlier step may have
    # left: a FIFO (or a device) is refused with the reason, never read.
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, sleep=0.0)
    shared = tmp_path / "slow-ratchet.json"
    os.mkfifo(shared)
    exit_path(shared).write_text("0\n", encoding="utf-8")
    code = main(["slow", "run", "--from-run", str(shared)])
    assert code == ExitCode.CRASH
    err = capsys.readouterr().err
    assert "is not a regular file" in err
    assert "hint:" in err
