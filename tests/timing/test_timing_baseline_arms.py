"""The timing baseline keeps each arm apart: serial, ``-n N``, with the slow ratchet.

A run is compared only with the figures recorded in its own arm, recording
one arm keeps the suite's other arms (same host, same command, same Python),
and a baseline written before arms were kept still reads as one arm. Real
files in a temporary directory; the functions called in this process.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from lanes.timing.baseline import (
    BaselineError,
    arm_key,
    baseline_entry,
    compare,
    read_baseline,
    record_baseline,
    recorded_arms,
)

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.payloads.timing import TimingArm, TimingFingerprint, TimingMeasurement, TimingStat

HOST: TimingFingerprint = {
    "cpu_count": 2,
    "cpu_model": "Test CPU",
    "platform": "linux",
    "machine": "x86_64",
}
COMMAND = "pytest tests -q"


def _stat(median: int) -> TimingStat:
    return {"median": median, "min": median, "max": median}


def _arm(*, workers: int = 0, argv: list[str] | None = None, cpu: int = 10_000) -> TimingArm:
    return {
        "arm": "xdist" if workers else "serial",
        "argv": COMMAND.split() if argv is None else argv,
        "repeat": 2 + workers,  # differs per arm, so a test sees which arm's count was kept
        "workers": workers,
        "wall_ms": _stat(cpu + 2_000),
        "cpu_ms": _stat(cpu),
        "peak_rss_kib": _stat(100_000 + workers),
        "tree_peak_rss_kib": _stat(90_000),
        "processes": [],
        "samples": [],
    }


def _suite(
    measured: TimingArm,
    *,
    other: TimingArm | None = None,
    command: str = COMMAND,
    python: str = "cpython 3.11.7",
) -> TimingMeasurement:
    xdist: dict[str, Any] | None = None
    if other is not None:
        # Only other_arm matters to the baseline; the verdict's figures are the xdist lane's.
        xdist = {"verdict": "within noise", "workers": 2, "other_arm": other}
    suite: dict[str, Any] = {
        "name": "unit",
        "command": command,
        "runner": "pytest",
        "python": python,
        "status": "passed",
        "exit_codes": [0],
        "outcomes": {"passed": 120},
        "collected": 120,
        "measured": measured,
        "offenders": None,
        "xdist": xdist,
        "xdist_skipped": None,
        "failure": None,
    }
    return suite  # type: ignore[return-value]  # a complete measurement, built as a dict


def _figures(arm: TimingArm) -> dict[str, Any]:
    return {
        "workers": arm["workers"],
        "repeat": arm["repeat"],
        "wall_ms": arm["wall_ms"],
        "cpu_ms": arm["cpu_ms"],
        "peak_rss_kib": arm["peak_rss_kib"],
    }


def _record(path: Path, *suites: TimingMeasurement, host: TimingFingerprint = HOST) -> None:
    record_baseline(
        path, previous=read_baseline(path), fingerprint=host, suites=suites, commit=None
    )


# -- naming the arm ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("workers", "argv", "key"),
    [
        (0, ["pytest", "tests"], "serial"),
        (4, ["pytest", "tests", "-n", "4"], "-n 4"),
        (0, ["pytest", "tests", "--slow-json", "out.json"], "serial + slow ratchet"),
        (2, ["pytest", "-n", "2", "--slow-json=out.json"], "-n 2 + slow ratchet"),
        # An argument that merely mentions the option is not the ratchet riding along.
        (0, ["pytest", "tests/test-slow-json.py", "-k", "x--slow-json"], "serial"),
    ],
)
def test_an_arm_is_named_by_its_workers_and_whether_the_slow_ratchet_rode_along(
    workers: int, argv: list[str], key: str
) -> None:
    assert arm_key(_arm(workers=workers, argv=argv)) == key


def test_a_baseline_from_before_arms_were_kept_reads_as_the_one_arm_it_measured() -> None:
    figures = {"wall_ms": _stat(3), "cpu_ms": _stat(2), "peak_rss_kib": _stat(1)}
    assert recorded_arms({**figures, "workers": 0, "command": COMMAND}) == {"serial": figures}
    assert recorded_arms({**figures, "workers": 3, "repeat": 5}) == {"-n 3": figures}
    # No workers recorded at all (older still): a plain serial run.
    assert recorded_arms(figures) == {"serial": figures}
    assert recorded_arms({**figures, "workers": None}) == {"serial": figures}


def test_the_arms_a_baseline_keeps_are_read_as_recorded_and_a_copy() -> None:
    arms = {"serial": {"workers": 0}, "-n 2": {"workers": 2}}
    entry = {"arms": arms, "workers": 7, "wall_ms": _stat(1)}
    read = recorded_arms(entry)
    assert read == arms
    read["-n 9"] = {}
    assert set(arms) == {"serial", "-n 2"}


# -- recording --------------------------------------------------------------------


def test_an_entry_keeps_the_measured_arm_and_the_xdist_comparisons_other_arm() -> None:
    serial = _arm(workers=0, cpu=10_000)
    xdist = _arm(workers=2, argv=[*COMMAND.split(), "-n", "2"], cpu=14_000)
    entry = baseline_entry(_suite(serial, other=xdist))
    assert entry["arms"] == {"-n 2": _figures(xdist), "serial": _figures(serial)}
    assert list(entry["arms"]) == ["-n 2", "serial"]  # sorted, whatever was measured first
    # The top-level figures stay the measured arm's, as before arms were kept.
    assert (entry["workers"], entry["repeat"], entry["cpu_ms"]) == (0, 2, _stat(10_000))


def test_recording_one_arm_keeps_the_suites_other_arms(tmp_path: Path) -> None:
    path = tmp_path / "timing.json"
    serial = _arm(workers=0, cpu=10_000)
    _record(path, _suite(serial))
    shared = _arm(workers=0, argv=[*COMMAND.split(), "--slow-json", "s.json"], cpu=11_000)
    _record(path, _suite(shared))
    document = read_baseline(path)
    assert document is not None
    arms = document["suites"]["unit"]["arms"]
    assert arms == {"serial": _figures(serial), "serial + slow ratchet": _figures(shared)}
    assert list(arms) == ["serial", "serial + slow ratchet"]
    # Re-recording an arm replaces its own figures only.
    again = _arm(workers=0, cpu=9_000)
    _record(path, _suite(again))
    document = read_baseline(path)
    assert document is not None
    assert document["suites"]["unit"]["arms"] == {
        "serial": _figures(again),
        "serial + slow ratchet": _figures(shared),
    }


def test_recording_keeps_the_one_arm_of_a_baseline_from_before_arms_were_kept(
    tmp_path: Path,
) -> None:
    path = tmp_path / "timing.json"
    _record(path, _suite(_arm(workers=2, argv=["pytest", "-n", "2"], cpu=8_000)))
    document = read_baseline(path)
    assert document is not None
    legacy = document["suites"]["unit"]
    del legacy["arms"]  # as lanekit wrote it before arms were kept
    shared = _arm(workers=0, argv=["pytest", "--slow-json=s.json"])
    record_baseline(path, previous=document, fingerprint=HOST, suites=[_suite(shared)], commit=None)
    document = read_baseline(path)
    assert document is not None
    assert document["suites"]["unit"]["arms"] == {
        "-n 2": {"wall_ms": _stat(10_000), "cpu_ms": _stat(8_000), "peak_rss_kib": _stat(100_002)},
        "serial + slow ratchet": _figures(shared),
    }


@pytest.mark.parametrize(
    ("command", "python"),
    [("pytest tests -q -x", "cpython 3.11.7"), (COMMAND, "cpython 3.12.1")],
    ids=["another command", "another python"],
)
def test_recording_with_another_command_or_python_drops_the_other_arms(
    tmp_path: Path, command: str, python: str
) -> None:
    path = tmp_path / "timing.json"
    _record(path, _suite(_arm(workers=0)))
    shared = _arm(workers=0, argv=[*command.split(), "--slow-json", "s.json"])
    _record(path, _suite(shared, command=command, python=python))
    document = read_baseline(path)
    assert document is not None
    assert document["suites"]["unit"]["arms"] == {"serial + slow ratchet": _figures(shared)}


def test_recording_on_another_host_drops_every_arm_recorded_before(tmp_path: Path) -> None:
    path = tmp_path / "timing.json"
    _record(path, _suite(_arm(workers=0)))
    shared = _arm(workers=0, argv=["pytest", "--slow-json", "s.json"])
    _record(path, _suite(shared), host={**HOST, "cpu_count": 8})
    document = read_baseline(path)
    assert document is not None
    assert list(document["suites"]["unit"]["arms"]) == ["serial + slow ratchet"]


# -- comparing ---------------------------------------------------------------------


def test_a_run_is_compared_with_its_own_arms_figures(tmp_path: Path) -> None:
    path = tmp_path / "timing.json"
    serial = _arm(workers=0, cpu=10_000)
    xdist = _arm(workers=2, argv=["pytest", "-n", "2"], cpu=20_000)
    _record(path, _suite(serial, other=xdist))
    baseline = read_baseline(path)
    # The -n 2 run's CPU (its workers' start-up on top) against the serial
    # figures would be +100%: against its own arm it is no change.
    result = compare(_suite(xdist), baseline, HOST, max_regression=10)
    assert (result["status"], result["arm"]) == ("compared", "-n 2")
    cpu = result["metrics"][1]
    assert (cpu["metric"], cpu["baseline"], cpu["delta"]) == ("cpu_ms", 20_000, 0)
    assert result["gate"]["failed"] is False
    result = compare(_suite(serial), baseline, HOST, max_regression=10)
    assert (result["arm"], result["metrics"][1]["baseline"]) == ("serial", 10_000)


def test_a_run_in_an_arm_the_baseline_lacks_is_not_comparable_and_says_how_to_record_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "timing.json"
    _record(path, _suite(_arm(workers=0), other=_arm(workers=2, argv=["pytest", "-n", "2"])))
    baseline = read_baseline(path)
    shared = _arm(workers=2, argv=["pytest", "-n", "2", "--slow-json", "s.json"], cpu=50_000)
    result = compare(_suite(shared), baseline, HOST, max_regression=10)
    assert result == {
        "status": "not comparable",
        "arm": "-n 2 + slow ratchet",
        "reason": "the baseline records this suite's '-n 2' and 'serial' arm(s), not "
        "'-n 2 + slow ratchet': like is compared only with like; record this arm with "
        "the same options plus --record",
        "metrics": [],
        "collected": None,
        "gate": {
            "max_regression": 10,
            "max_wall_regression": None,
            "failed": False,
            "reason": None,
        },
    }


# -- reading ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arms", "why"),
    [
        ([], "suite 'unit' arms is not an object"),
        ({"serial": 5}, "suite 'unit' arm 'serial' is not an object"),
        (
            {"serial": {"wall_ms": _stat(1), "peak_rss_kib": _stat(1)}},
            "suite 'unit: serial' cpu_ms must be {median, min, max} integers, got None",
        ),
    ],
    ids=["arms not an object", "an arm not an object", "an arm missing a figure"],
)
def test_a_baseline_with_broken_arms_is_refused_naming_the_suite_and_the_arm(
    tmp_path: Path, arms: object, why: str
) -> None:
    path = tmp_path / "timing.json"
    _record(path, _suite(_arm(workers=0)))
    document = json.loads(path.read_text(encoding="utf-8"))
    document["suites"]["unit"]["arms"] = arms
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(BaselineError) as info:
        read_baseline(path)
    assert info.value.message == f"{path} is not a timing baseline: {why}"
