"""Verdicts are computed on the controller from replayed reports: -n 0 and -n 2 agree."""

from __future__ import annotations

import pytest

from tests.slow.slow_helpers import (
    BAND_SLEEP,
    SLOW_SLEEP,
    make_project,
    verdicts,
    write_pins,
)
from tests.support.documents import read_json


@pytest.mark.integration
def test_same_verdicts_with_and_without_workers(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    tests = pytester.path / "tests"
    # Tier by marker, tier by glob, a pinned test, and fixtures of both kinds:
    # everything a worker must resolve and ship to the controller.
    tests.joinpath("test_more.py").write_text(
        "import time, pytest\n"
        "@pytest.fixture\n"
        f"def slow_setup():\n    time.sleep({SLOW_SLEEP})\n"
        "@pytest.fixture(scope='module')\n"
        "def shared():\n    time.sleep(0.05)\n"
        "@pytest.mark.integration\n"
        f"def test_marked(shared):\n    time.sleep({BAND_SLEEP})\n"
        "def test_charged_fixture(slow_setup):\n    pass\n"
        f"def test_pinned():\n    time.sleep({BAND_SLEEP})\n"
    )
    pytester.mkdir("tests/integration").joinpath("test_globbed.py").write_text(
        f"import time\ndef test_globbed():\n    time.sleep({BAND_SLEEP})\n"
    )
    write_pins(pytester, {"nodeid": "tests/test_more.py::test_pinned", "ceiling": 1.0})

    # Hypothesis's plugin costs seconds of import per process (controller and
    # each worker) and has nothing to do with what is tested here.
    quiet = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")
    serial_json = pytester.path / "serial.json"
    serial = pytester.runpytest_subprocess(*quiet, "--slow-json", str(serial_json), "-n", "0")
    parallel_json = pytester.path / "parallel.json"
    parallel = pytester.runpytest_subprocess(
        *quiet, "-p", "xdist", "-n", "2", "--slow-json", str(parallel_json)
    )

    assert serial.ret == parallel.ret == pytest.ExitCode.TESTS_FAILED
    serial_data, parallel_data = read_json(serial_json), read_json(parallel_json)
    assert (serial_data["workers"], parallel_data["workers"]) == (0, 2)
    assert verdicts(parallel_data) == verdicts(serial_data)
    assert verdicts(serial_data)["offenders"] == [
        "tests/test_more.py::test_charged_fixture",
        "tests/test_three.py::test_slow",
    ]
    assert verdicts(serial_data)["pins"] == ["tests/test_more.py::test_pinned=holding"]
    assert [f["name"] for f in parallel_data["fixtures"]] == ["shared"]
    parallel.stdout.fnmatch_lines(
        ["*created: 2/2 workers*", "FAIL tests/test_three.py::test_slow took *"]
    )


@pytest.mark.integration
def test_a_deselected_test_makes_the_run_partial_with_workers_too(
    pytester: pytest.Pytester,
) -> None:
    # Deselection happens where collection does: on the workers under xdist,
    # where the controller's ratchet never hears of it (found on attrs: `-n 2
    # --deselect X` was reported as a full run).
    make_project(pytester)
    quiet = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "xdist")
    deselect = "--deselect=tests/test_three.py::test_band"
    for workers in ("0", "2"):
        out = pytester.path / f"run-{workers}.json"
        result = pytester.runpytest_subprocess(
            *quiet, deselect, "-n", workers, f"--slow-json={out}"
        )
        data = read_json(out)
        assert data["partial"] is True, (workers, data["partial_reasons"])
        assert data["partial_reasons"] == ["--deselect tests/test_three.py::test_band"]
        result.stdout.fnmatch_lines(["*PARTIAL run (--deselect tests/test_three.py::test_band)*"])


@pytest.mark.integration
def test_a_shared_fixture_is_first_for_the_earliest_test_whatever_its_outcome(
    pytester: pytest.Pytester,
) -> None:
    # The controller reads the replayed reports grouped by outcome, not in the
    # order they came: the first test to set a fixture up is the earliest one,
    # here a failing test before a passing one (on one worker, so in order).
    make_project(pytester)
    tests = pytester.path / "tests"
    tests.joinpath("test_three.py").unlink()
    tests.joinpath("conftest.py").write_text(
        "import time, pytest\n"
        "@pytest.fixture(scope='module')\n"
        "def per_module():\n    time.sleep(0.01)\n"
    )
    tests.joinpath("test_a.py").write_text(
        # A passing test first: its outcome's group is the first the controller reads.
        "def test_first():\n    pass\ndef test_fails(per_module):\n    assert False\n"
    )
    tests.joinpath("test_b.py").write_text("def test_passes(per_module):\n    pass\n")
    out = pytester.path / "slow.json"
    quiet = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "xdist")
    pytester.runpytest_subprocess(*quiet, "-n", "1", f"--slow-json={out}")
    (fixture,) = read_json(out)["fixtures"]
    assert (fixture["name"], fixture["count"]) == ("per_module", 2)
    assert fixture["first"] == "tests/test_a.py::test_fails"
