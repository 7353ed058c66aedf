"""Measuring a real suite: counts, offenders, failures, commands that cannot start, the whole tree."""

from __future__ import annotations

import shlex
import sys
from typing import TYPE_CHECKING

import pytest

from lanes.config import Suite
from lanes.timing.measure import ProcessFigures, Sample, SuiteStartError
from lanes.timing.suite import SuitePlan, measure_suite

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.payloads.timing import TimingMeasurement

# The child pytest does not need Hypothesis's plugin (seconds of import).
PYTEST = (
    f"{shlex.quote(sys.executable)} -m pytest tests -q -p no:cacheprovider -p no:hypothesispytest"
)

TESTS = """\
import time

import pytest


@pytest.fixture
def slow_setup():
    time.sleep(0.15)
    return 1


def test_slowest():
    time.sleep(0.3)


def test_with_fixture(slow_setup):
    assert slow_setup == 1


def test_fast():
    assert True
"""


def _project(root: Path, body: str = TESTS) -> Path:
    (root / "tests").mkdir()
    (root / "tests" / "test_sample.py").write_text(body, encoding="utf-8")
    return root


def _measure(root: Path, command: str = PYTEST, workers: int = 0) -> TimingMeasurement:
    return measure_suite(
        Suite(name="sample", paths=("tests",), command=command),
        SuitePlan(repeat=1, workers=workers, offenders=3),
        root=root,
        before_run=lambda _label: None,
        after_run=lambda _sample: None,
    )


@pytest.mark.integration
def test_a_passing_suite_is_counted_timed_and_its_offenders_named(tmp_path: Path) -> None:
    suite = _measure(_project(tmp_path))
    assert suite["status"] == "passed"
    assert suite["collected"] == 3
    assert suite["outcomes"] == {"passed": 3}
    measured = suite["measured"]
    assert measured["arm"] == "serial"
    assert measured["repeat"] == 1
    assert [p["role"] for p in measured["processes"]] == ["controller"]
    assert measured["wall_ms"]["median"] >= 450  # the sleeps alone
    assert measured["cpu_ms"]["median"] > 0
    assert measured["peak_rss_kib"]["median"] > 10_000
    offenders = suite["offenders"]
    assert offenders is not None
    assert offenders["tests"][0]["nodeid"] == "tests/test_sample.py::test_slowest"
    assert offenders["files"][0] == {
        "path": "tests/test_sample.py",
        "ms": offenders["files"][0]["ms"],
        "tests": 3,
    }
    assert offenders["fixtures"][0]["name"] == "slow_setup"
    assert offenders["fixtures"][0]["total_ms"] >= 140
    assert offenders["first_test_ms"] is not None
    assert offenders["startup_ms"] is not None
    assert offenders["first_test_ms"] >= offenders["startup_ms"] > 0
    assert suite["xdist"] is None
    assert "workers = 0" in str(suite["xdist_skipped"])
    sizing = suite.get("sizing")
    assert sizing is not None
    assert (sizing["repeat"], sizing["arms"], sizing["chosen_by"]) == (1, 1, "configured")
    assert sizing["reason"] == "1 run per arm, as configured"
    assert abs(sizing["first_run_ms"] - measured["wall_ms"]["median"]) <= 1


@pytest.mark.integration
def test_a_failing_suite_is_still_measured_and_the_failure_recorded(tmp_path: Path) -> None:
    suite = _measure(_project(tmp_path, TESTS + "\n\ndef test_broken():\n    assert 1 == 2\n"))
    assert suite["status"] == "failed"
    assert suite["exit_codes"] == [1]
    assert suite["outcomes"] == {"passed": 3, "failed": 1}
    assert suite["collected"] == 4
    assert suite["measured"]["wall_ms"]["median"] > 0
    assert "test_broken" in str(suite["failure"])
    assert suite["xdist_skipped"] is not None


@pytest.mark.integration
@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("no-such-command-for-lanes-timing tests", "cannot start"),
        (PYTEST + " --no-such-option", "did not start a test session"),
    ],
)
def test_a_suite_that_cannot_start_is_a_typed_error(tmp_path: Path, command: str, why: str) -> None:
    with pytest.raises(SuiteStartError, match=why) as caught:
        _measure(_project(tmp_path), command=command)
    assert caught.value.hint.strip()


ORPHAN = """\
import os, subprocess, sys, time
if len(sys.argv) > 1:  # the grandchild: burn CPU after its parent is gone
    time.sleep(0.2)
    end = time.process_time() + 0.6
    while time.process_time() < end:
        pass
    sys.exit(0)
# start the grandchild in its own session and leave without waiting for it
subprocess.Popen([sys.executable, __file__, "burn"], start_new_session=True)
"""


@pytest.mark.integration
def test_cpu_of_descendants_that_outlive_their_parent_is_counted(tmp_path: Path) -> None:
    # A plain wait4 on the child would lose the grandchild's 0.6 s: nobody
    # waits for it. The reaper adopts and reaps it.
    script = tmp_path / "orphan.py"
    script.write_text(ORPHAN, encoding="utf-8")
    suite = _measure(tmp_path, command=f"{shlex.quote(sys.executable)} {script}")
    assert suite["runner"] == "command"
    assert suite["collected"] is None
    assert suite["offenders"] is None
    assert suite["measured"]["cpu_ms"]["median"] >= 600


@pytest.mark.integration
def test_xdist_arms_report_every_worker_and_a_verdict(tmp_path: Path) -> None:
    suite = _measure(_project(tmp_path), workers=2)
    block = suite["xdist"]
    assert block is not None, suite["xdist_skipped"]
    assert block["verdict"] in {"xdist pays", "serial wins", "within noise"}
    assert block["workers"] == 2
    other = block["other_arm"]
    assert other["arm"] == "xdist"
    assert [p["role"] for p in other["processes"]] == ["controller", "gw0", "gw1"]
    # The sum of the three processes' own peaks bounds the tree from above.
    assert other["peak_rss_kib"]["median"] >= other["tree_peak_rss_kib"]["median"]
    assert block["xdist_empty_ms"] > 0
    assert block["explanation"]


def test_an_xdist_runs_peak_memory_is_the_sum_of_each_processs_own_peak() -> None:
    # The controller and two workers each hold their memory at once: the run
    # needs their sum, and the largest alone (a plausible slip) would
    # understate it by the two others.
    processes = [
        ProcessFigures(role="controller", peak_rss_kib=50_000, cpu_ms=100),
        ProcessFigures(role="gw0", peak_rss_kib=80_000, cpu_ms=900),
        ProcessFigures(role="gw1", peak_rss_kib=70_000, cpu_ms=800),
    ]
    sample = Sample(
        arm="xdist", argv=["pytest", "-n", "2"], exit_code=0, wall_ms=1_000, cpu_ms=1_800,
        user_ms=1_700, system_ms=100, tree_peak_rss_kib=80_000, processes=processes,
    )  # fmt: skip
    assert sample.peak_rss_kib == 200_000
    assert sample.workers == 2
    serial = Sample(
        arm="serial", argv=["pytest"], exit_code=0, wall_ms=1_000, cpu_ms=1_000, user_ms=900,
        system_ms=100, tree_peak_rss_kib=90_000, processes=processes[:1],
    )  # fmt: skip
    assert serial.peak_rss_kib == 90_000  # one process: the kernel's figure for the tree
