"""``lanes timing`` end to end on a planted project: record, regress, lose a test, break."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

import pytest

from lanes.cli import main
from lanes.exitcodes import ExitCode
from lanes.timing.selfcheck import write_planted
from tests.support.documents import read_envelope
from tests.support.processes import alive

if TYPE_CHECKING:
    from pathlib import Path

PYTEST = (
    f"{shlex.quote(sys.executable)} -m pytest tests -q -p no:cacheprovider -p no:hypothesispytest"
)


def _project(root: Path, command: str = PYTEST, extra: str = "") -> Path:
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        f"[tool.lanes.suites.planted]\ncommand = {json.dumps(command)}\n{extra}", encoding="utf-8"
    )
    return pyproject


def _envelope(root: Path) -> dict[str, Any]:
    return read_envelope(root / "envelopes" / "timing.json")


def _lanes(config: Path, *args: str) -> int:
    return main(["timing", "--config", str(config), "--workers", "0", "--repeat", "1", *args])


@pytest.mark.integration
def test_record_then_catch_a_slower_suite_that_also_lost_a_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _project(tmp_path)
    write_planted(tmp_path)
    assert _lanes(config, "--record") == ExitCode.OK
    out, err = capsys.readouterr()
    assert "recorded baselines/timing.json" in out
    # Regression: the recording run told the user to run `lanes timing --record`.
    assert "run `lanes timing --record`" not in out
    # One stderr line per measured run; none of them on stdout.
    assert "timing: planted run-1: wall" in err
    assert "run-1" not in out
    baseline = json.loads((tmp_path / "baselines" / "timing.json").read_text(encoding="utf-8"))
    assert baseline["suites"]["planted"]["collected"] == 3
    assert _envelope(tmp_path)["data"]["record"]["written"]

    # Three times the CPU work, twice the memory, one test deleted.
    write_planted(tmp_path, cpu=3, memory=2, keep_last=False)
    assert _lanes(config, "--max-regression", "30%") == ExitCode.FAIL
    out, _ = capsys.readouterr()
    assert "REGRESSION: median CPU time" in out
    assert "collected dropped 3 → 2" in out
    envelope = _envelope(tmp_path)
    assert envelope["result"] == "fail"
    comparison = envelope["data"]["suites"][0]["comparison"]
    assert comparison["gate"]["failed"]
    flags = {m["metric"]: m["flag"] for m in comparison["metrics"]}
    assert flags["cpu_ms"] == flags["peak_rss_kib"] == "regressed"
    assert envelope["data"]["table"][0]["collected"] == "3 → 2 (-1)"


@pytest.mark.integration
def test_the_opt_in_wall_gate_fails_a_suite_that_newly_sleeps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _project(tmp_path)
    write_planted(tmp_path)
    assert _lanes(config, "--record") == ExitCode.OK
    # Far past the 30% gate, whatever the load: a loaded machine stretched the
    # recording run of this ~2 s project to 3 s and a 2 s sleep showed as
    # +29%. Load stretches the sleeping run too, so only a baseline stretched
    # past 4x its unloaded time could hide 6 s.
    (tmp_path / "tests" / "test_wait.py").write_text(
        "import time\n\ndef test_wait():\n    time.sleep(6)\n", encoding="utf-8"
    )
    capsys.readouterr()
    # Both gates judge the one sleeping run (each of its runs costs 6 s of wall).
    assert (
        _lanes(config, "--max-regression", "30%", "--max-wall-regression", "30%") == ExitCode.FAIL
    )
    out, _ = capsys.readouterr()
    assert "REGRESSION: median wall clock" in out
    assert "exceeds max_wall_regression 30%" in out
    # CPU time does not see a sleep: the CPU gate alone passes it.
    assert "REGRESSION: median CPU time" not in out
    gate = _envelope(tmp_path)["data"]["suites"][0]["comparison"]["gate"]
    assert gate["max_regression"] == 30.0
    assert "CPU time" not in gate["reason"]


@pytest.mark.integration
def test_a_test_that_fails_only_under_xdist_fails_the_suite_and_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Regression: the xdist arm's failing runs were absorbed, the suite stayed
    # "passed" and nobody learnt which test broke under -n.
    # When this suite itself runs under xdist, its worker's variable would
    # reach the lane's serial run too, and make it fail as well.
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    config = _project(tmp_path)
    write_planted(tmp_path)
    (tmp_path / "tests" / "test_serial_only.py").write_text(
        "import os\n\n\ndef test_serial_only():\n"
        "    assert 'PYTEST_XDIST_WORKER' not in os.environ\n",
        encoding="utf-8",
    )
    code = main(["timing", "--config", str(config), "--workers", "2", "--repeat", "1"])
    assert code == ExitCode.FAIL
    out, _ = capsys.readouterr()
    assert (
        "planted: the suite FAILED: failing runs: xdist-1 (exit 1); xdist-1's output ends:" in out
    )
    assert "test_serial_only" in out
    suite = _envelope(tmp_path)["data"]["suites"][0]
    assert (suite["status"], suite["exit_codes"]) == ("failed", [0])


@pytest.mark.integration
def test_a_failing_suite_is_measured_and_recorded_marked_as_failing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _project(tmp_path)
    write_planted(tmp_path)
    (tmp_path / "tests" / "test_red.py").write_text("def test_red():\n    assert False\n")
    assert _lanes(config, "--record") == ExitCode.FAIL
    out, _ = capsys.readouterr()
    assert "the suite FAILED" in out
    assert "recorded from a FAILING run of planted" in out
    baseline = json.loads((tmp_path / "baselines" / "timing.json").read_text(encoding="utf-8"))
    assert baseline["suites"]["planted"]["status"] == "failed"
    assert baseline["suites"]["planted"]["outcomes"] == {"passed": 3, "failed": 1}
    envelope = _envelope(tmp_path)
    assert envelope["stage"] == "complete"
    assert envelope["result"] == "fail"
    suite = envelope["data"]["suites"][0]
    assert suite["status"] == "failed"
    assert suite["measured"]["cpu_ms"]["median"] > 0


@pytest.mark.integration
def test_a_suite_that_cannot_start_is_stage_error_and_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The envelope was open (the lane had begun): "could not complete", not
    # "nothing ran" (lanes/exitcodes.py).
    config = _project(tmp_path, command="no-such-command-for-lanes-timing tests")
    assert _lanes(config) == ExitCode.CRASH
    err = capsys.readouterr().err
    assert "error: the suite command" in err
    assert "hint: " in err
    envelope = _envelope(tmp_path)
    assert envelope["stage"] == "error"
    assert envelope["error"]["type"] == "SuiteStartError"


def test_bad_configuration_and_unknown_suites_exit_2_before_any_envelope(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _project(tmp_path, extra="\n[tool.lanes.timing]\nrepet = 3\n")
    assert _lanes(config) == ExitCode.USAGE
    assert "did you mean 'repeat'" in capsys.readouterr().err
    config = _project(tmp_path)
    assert _lanes(config, "--suite", "nope") == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "no such suite" in err
    assert "planted" in err
    assert not (tmp_path / "envelopes").exists()


def test_a_bad_max_regression_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["timing", "--max-regression", "-5"])
    assert caught.value.code == ExitCode.USAGE
    assert "expected a percentage > 0" in capsys.readouterr().err


HANGING = """\
import os
import time


def test_hangs():
    with open(os.environ["LANES_TEST_PID_FILE"], "w") as handle:
        handle.write(str(os.getpid()))
    time.sleep(120)
"""


@pytest.mark.integration
def test_sigterm_leaves_an_error_envelope_and_no_suite_behind(tmp_path: Path) -> None:
    config = _project(tmp_path)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_hangs.py").write_text(HANGING, encoding="utf-8")
    pid_file = tmp_path / "suite.pid"
    lanes = subprocess.Popen(
        [sys.executable, "-m", "lanes", "timing", "--config", str(config), "--workers", "0"],
        env={**os.environ, "LANES_TEST_PID_FILE": str(pid_file), "LANES_PROGRESS": "0"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    # The collect run does not execute the test: the pid appears only once the suite runs.
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    suite_pid = int(pid_file.read_text())
    lanes.send_signal(signal.SIGTERM)
    assert lanes.wait(timeout=30) == -signal.SIGTERM
    envelope = _envelope(tmp_path)
    assert envelope["stage"] == "error"
    assert envelope["error"]["type"] == "Terminated"
    deadline = time.monotonic() + 15
    while alive(suite_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(suite_pid), "the suite outlived the lane"
