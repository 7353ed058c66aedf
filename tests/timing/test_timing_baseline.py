"""The baseline and the Δ: comparable hosts only, flags beyond noise, the CPU gate, the table."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from lanes.timing import table
from lanes.timing.baseline import (
    BaselineError,
    compare,
    host_fingerprint,
    read_baseline,
    record_baseline,
)

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.payloads.timing import (
        TimingFingerprint,
        TimingMeasurement,
        TimingSample,
        TimingStat,
        TimingSuite,
    )

HOST: TimingFingerprint = {
    "cpu_count": 2,
    "cpu_model": "Test CPU",
    "platform": "linux",
    "machine": "x86_64",
}


def _stat(median: int, spread: int = 0) -> TimingStat:
    return {"median": median, "min": median - spread // 2, "max": median + spread - spread // 2}


def _suite(
    *,
    name: str = "unit",
    cpu: int = 10_000,
    cpu_spread: int = 0,
    wall: int = 12_000,
    rss: int = 100_000,
    collected: int | None = 120,
    python: str = "cpython 3.11.7",
    command: str = "pytest tests -q",
) -> TimingMeasurement:
    sample: TimingSample = {
        "wall_ms": wall,
        "cpu_ms": cpu,
        "user_ms": cpu,
        "system_ms": 0,
        "peak_rss_kib": rss,
        "tree_peak_rss_kib": rss,
        "exit_code": 0,
    }
    return {
        "name": name,
        "command": command,
        "runner": "pytest",
        "python": python,
        "status": "passed",
        "exit_codes": [0, 0, 0],
        "outcomes": {"passed": collected or 0},
        "collected": collected,
        "measured": {
            "arm": "serial",
            "argv": command.split(),
            "repeat": 3,
            "workers": 0,
            "wall_ms": _stat(wall),
            "cpu_ms": _stat(cpu, cpu_spread),
            "peak_rss_kib": _stat(rss),
            "tree_peak_rss_kib": _stat(rss),
            "processes": [{"role": "controller", "peak_rss_kib": rss, "cpu_ms": cpu}],
            "samples": [sample, sample, sample],
        },
        "offenders": {
            "tests": [{"nodeid": "tests/test_a.py::test_slow", "ms": 2500}],
            "files": [],
            "fixtures": [],
            "startup_ms": None,
            "collection_ms": None,
            "first_test_ms": None,
        },
        "xdist": None,
        "xdist_skipped": "workers = 0: the comparison is switched off",
        "failure": None,
    }


def _recorded(
    tmp_path: Path, *suites: TimingMeasurement, host: TimingFingerprint = HOST
) -> dict[str, Any]:
    path = tmp_path / "baselines" / "timing.json"
    record_baseline(path, previous=None, fingerprint=host, suites=list(suites), commit=None)
    document = read_baseline(path)
    assert document is not None
    return document


def test_cpu_regression_beyond_max_regression_and_spread_fails_the_gate(tmp_path: Path) -> None:
    baseline = _recorded(tmp_path, _suite(cpu=10_000, cpu_spread=400))
    result = compare(_suite(cpu=14_000, cpu_spread=600), baseline, HOST, max_regression=30)
    assert result["status"] == "compared"
    assert result["gate"]["failed"]
    assert "+40.0%" in str(result["gate"]["reason"])
    cpu = next(m for m in result["metrics"] if m["metric"] == "cpu_ms")
    assert cpu["flag"] == "regressed"


def test_a_regression_within_the_spread_does_not_fail(tmp_path: Path) -> None:
    # +40% median, but the repeats of this run spread over 5 s: not a verdict.
    baseline = _recorded(tmp_path, _suite(cpu=10_000))
    result = compare(_suite(cpu=14_000, cpu_spread=5_000), baseline, HOST, max_regression=30)
    assert not result["gate"]["failed"]


def test_without_max_regression_the_delta_is_reported_but_never_fails(tmp_path: Path) -> None:
    baseline = _recorded(tmp_path, _suite(cpu=10_000))
    result = compare(_suite(cpu=30_000), baseline, HOST, max_regression=None)
    assert not result["gate"]["failed"]
    assert {m["metric"]: m["flag"] for m in result["metrics"]}["cpu_ms"] == "regressed"


def test_the_opt_in_wall_gate_fails_a_test_that_newly_waits(tmp_path: Path) -> None:
    # Regression: the gate was CPU-only, so a test that newly sleeps 2 s
    # (+85% wall, CPU unchanged) passed --max-regression 30.
    baseline = _recorded(tmp_path, _suite(wall=2_350, cpu=2_000))
    slept = _suite(wall=4_350, cpu=2_000)
    assert not compare(slept, baseline, HOST, max_regression=30)["gate"]["failed"]
    gate = compare(slept, baseline, HOST, max_regression=30, max_wall_regression=30)["gate"]
    assert gate["failed"]
    assert gate["reason"] == (
        "median wall clock 2.35s → 4.35s (+85.1%) exceeds max_wall_regression 30%; "
        "no spread measured (one run on each side: record and measure with --repeat 2+ for one)"
    )
    assert gate["max_wall_regression"] == 30


def test_memory_and_wall_are_flagged_beyond_noise_only(tmp_path: Path) -> None:
    baseline = _recorded(tmp_path, _suite(rss=100_000, wall=12_000))
    result = compare(_suite(rss=200_000, wall=12_300), baseline, HOST, max_regression=30)
    flags = {m["metric"]: m["flag"] for m in result["metrics"]}
    # +100% memory is flagged; +2.5% wall is inside the 5% noise floor.
    assert flags == {
        "wall_ms": "within noise",
        "cpu_ms": "within noise",
        "peak_rss_kib": "regressed",
    }


@pytest.mark.parametrize(
    ("host", "current", "why"),
    [
        ({**HOST, "cpu_count": 64}, _suite(cpu=50_000), "cpu_count: 2 → 64"),
        ({**HOST, "cpu_model": "Other CPU"}, _suite(cpu=50_000), "cpu_model"),
        (HOST, _suite(cpu=50_000, python="cpython 3.13.1"), "python"),
        (HOST, _suite(cpu=50_000, command="pytest tests -q -n 4"), "command"),
    ],
)
def test_another_host_python_or_command_is_not_comparable_never_a_regression(
    tmp_path: Path, host: TimingFingerprint, current: TimingMeasurement, why: str
) -> None:
    baseline = _recorded(tmp_path, _suite(cpu=10_000))
    result = compare(current, baseline, host, max_regression=30)
    assert result["status"] == "not comparable"
    assert why in str(result["reason"])
    assert not result["gate"]["failed"]
    assert result["metrics"] == []
    assert table.row({**_suite(), "comparison": result})["delta"] == "not comparable"


def test_a_suite_missing_from_the_baseline_says_how_to_record(tmp_path: Path) -> None:
    baseline = _recorded(tmp_path, _suite(name="other"))
    result = compare(_suite(), baseline, HOST, max_regression=30)
    assert result["status"] == "no baseline"
    assert "lanes timing --record" in str(result["reason"])
    assert compare(_suite(), None, HOST, max_regression=30)["status"] == "no baseline"


def test_collected_dropping_is_flagged_and_shown_in_the_table(tmp_path: Path) -> None:
    baseline = _recorded(tmp_path, _suite(collected=1374))
    measured = _suite(collected=1102)
    current: TimingSuite = {
        **measured,
        "comparison": compare(measured, baseline, HOST, max_regression=None),
    }
    assert current["comparison"]["collected"] == {
        "baseline": 1374,
        "current": 1102,
        "delta": -272,
        "flag": "dropped",
    }
    assert table.row(current)["collected"] == "1,374 → 1,102 (-272)"


def test_the_table_has_one_row_per_suite_with_every_column(tmp_path: Path) -> None:
    baseline = _recorded(tmp_path, _suite(cpu=10_000))
    measured = _suite(cpu=20_000)
    current: TimingSuite = {
        **measured,
        "comparison": compare(measured, baseline, HOST, max_regression=30),
    }
    row = table.row(current)
    assert set(row) == set(table.COLUMNS)
    assert row["top_offender"] == "tests/test_a.py::test_slow 2.5s"
    assert row["cpu"] == "20.0s"
    assert "CPU +100.0% regressed" in row["delta"]
    assert "FAIL" in row["delta"]
    assert row["xdist"].startswith("not measured (workers = 0")
    e2e = _suite(name="e2e")
    no_baseline = compare(e2e, None, HOST, max_regression=30)
    rendered = table.render([row, table.row({**e2e, "comparison": no_baseline})])
    lines = rendered.splitlines()
    assert lines[0].startswith("suite")
    assert len(lines) == 4


def test_recording_keeps_other_suites_only_from_the_same_host(tmp_path: Path) -> None:
    path = tmp_path / "timing.json"
    record_baseline(
        path, previous=None, fingerprint=HOST, suites=[_suite(name="e2e")], commit="a" * 40
    )
    same_host = read_baseline(path)
    record_baseline(path, previous=same_host, fingerprint=HOST, suites=[_suite()], commit=None)
    document = read_baseline(path)
    assert document is not None
    assert sorted(document["suites"]) == ["e2e", "unit"]
    other_host: TimingFingerprint = {**HOST, "cpu_count": 8}
    record_baseline(path, previous=document, fingerprint=other_host, suites=[_suite()], commit=None)
    document = read_baseline(path)
    assert document is not None
    assert sorted(document["suites"]) == ["unit"]
    assert document["fingerprint"] == other_host


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{", "not valid JSON"),
        ("[" * 3000 + "]" * 3000, "nested too deeply"),
        ("[]", "must hold a JSON object"),
        (json.dumps({"format": "lanekit.timing-baseline", "version": 99}), "version 99"),
        (
            json.dumps(
                {
                    "format": "lanekit.timing-baseline",
                    "version": 1,
                    "fingerprint": HOST,
                    "suites": {"unit": {"wall_ms": 5}},
                }
            ),
            "wall_ms must be {median, min, max} integers",
        ),
    ],
)
def test_a_broken_baseline_is_a_typed_error_with_a_hint(
    tmp_path: Path, text: str, why: str
) -> None:
    path = tmp_path / "timing.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BaselineError, match=why) as caught:
        read_baseline(path)
    assert "--record" in caught.value.hint


def test_the_host_fingerprint_names_the_cpus_and_the_platform() -> None:
    fingerprint = host_fingerprint()
    assert set(fingerprint) == {"cpu_count", "cpu_model", "platform", "machine"}
    assert fingerprint["cpu_count"] >= 1
    assert fingerprint["cpu_model"]


@pytest.mark.parametrize(
    ("stat", "why"),
    [
        ({"median": -30_000, "min": -30_000, "max": -30_000}, "between 0 and"),
        ({"median": 10, "min": 20, "max": 5}, "min <= median <= max"),
        ({"median": 10, "min": 20, "max": 30}, "min <= median <= max"),
        ({"median": 10**300, "min": 10**300, "max": 10**300}, "between 0 and"),
    ],
)
def test_a_baseline_figure_that_no_measurement_gives_is_refused(
    tmp_path: Path, stat: dict[str, int], why: str
) -> None:
    # negative, inverted and 10^300 figures were accepted
    # ("CPU -30260.0% regressed", exit 0).
    path = tmp_path / "timing.json"
    suite = {"wall_ms": stat, "cpu_ms": _stat(10), "peak_rss_kib": _stat(10), "collected": 1}
    document = {
        "format": "lanekit.timing-baseline",
        "version": 1,
        "fingerprint": HOST,
        "suites": {"unit": suite},
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(BaselineError, match=why) as caught:
        read_baseline(path)
    assert "wall_ms" in caught.value.message
    assert "--record" in caught.value.hint


def test_a_negative_collected_count_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "timing.json"
    suite = {key: _stat(10) for key in ("wall_ms", "cpu_ms", "peak_rss_kib")}
    document = {
        "format": "lanekit.timing-baseline",
        "version": 1,
        "fingerprint": HOST,
        "suites": {"unit": {**suite, "collected": -4}},
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(BaselineError, match="collected must be"):
        read_baseline(path)
