"""The timing baseline file and the Δ against it, word for word.

What ``lanes timing --record`` writes (its keys, layout and time stamp), which
files ``read_baseline`` refuses and what it says (the file, the figure, the
fix), and the Δ block ``compare`` gives: each figure's noise and flag at its
boundaries, the collected count, and the gate's reasons. Real files in a
temporary directory; the functions called directly.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from lanes.errors import StateError
from lanes.timing.baseline import (
    BASELINE_FORMAT,
    MAX_FIGURE,
    BaselineError,
    _cpu_model,
    compare,
    fingerprint_differences,
    host_fingerprint,
    read_baseline,
    record_baseline,
)

if TYPE_CHECKING:
    from lanes.payloads.timing import TimingFingerprint, TimingMeasurement, TimingStat

HOST: TimingFingerprint = {
    "cpu_count": 2,
    "cpu_model": "Test CPU",
    "platform": "linux",
    "machine": "x86_64",
}
HINT = (
    "restore it from git (git checkout -- <file>) or re-record it with "
    "`lanes timing --record` and review the diff"
)


def _stat(median: int, low: int | None = None, high: int | None = None) -> TimingStat:
    return {
        "median": median,
        "min": median if low is None else low,
        "max": median if high is None else high,
    }


def _suite(
    *,
    cpu: TimingStat | None = None,
    wall: TimingStat | None = None,
    rss: TimingStat | None = None,
    collected: int | None = 120,
    python: str = "cpython 3.11.7",
    command: str = "pytest tests -q",
) -> TimingMeasurement:
    suite: dict[str, Any] = {
        "name": "unit",
        "command": command,
        "runner": "pytest",
        "python": python,
        "status": "failed",
        "exit_codes": [1],
        "outcomes": {"passed": 119, "failed": 1},
        "collected": collected,
        "measured": {
            "arm": "serial",
            "argv": command.split(),
            "repeat": 3,
            "workers": 0,
            "wall_ms": wall or _stat(12_000),
            "cpu_ms": cpu or _stat(10_000),
            "peak_rss_kib": rss or _stat(100_000),
            "tree_peak_rss_kib": _stat(100_000),
            "processes": [],
            "samples": [],
        },
        "offenders": None,
        "xdist": None,
        "xdist_skipped": None,
        "failure": None,
    }
    return suite  # type: ignore[return-value]  # a complete measurement, built as a dict


# -- recording -------------------------------------------------------------------


@pytest.mark.usefixtures("zone_on_another_date")
def test_a_recorded_baseline_is_a_reviewable_file_stamped_in_utc(tmp_path: Path) -> None:
    path = tmp_path / "new" / "baselines" / "timing.json"  # directories made as needed
    before = dt.datetime.now(tz=dt.UTC).replace(microsecond=0)
    written = record_baseline(
        path, previous=None, fingerprint=HOST, suites=[_suite()], commit="a" * 40
    )
    after = dt.datetime.now(tz=dt.UTC)
    text = path.read_text(encoding="utf-8")
    document = json.loads(text)
    assert document == written
    # In the order a reviewer reads it, two-space indented, one key per line.
    assert list(document) == ["format", "version", "recorded_at", "commit", "fingerprint", "suites"]
    assert text.startswith('{\n  "format": "lanekit.timing-baseline",\n  "version": 1,\n')
    assert text.endswith("\n}\n")
    assert document["commit"] == "a" * 40
    stamp = document["recorded_at"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", stamp), stamp
    recorded = dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    # The wall clock can step back between two readings (this VM's did: the
    # stamp read 11:18:47 and the later `after` 11:18:46): a few seconds of
    # slack, far below the hours a local-time stamp would be off by.
    slack = dt.timedelta(seconds=5)
    assert before - slack <= recorded <= after + slack
    assert document["suites"] == {
        "unit": {
            "command": "pytest tests -q",
            "python": "cpython 3.11.7",
            "status": "failed",
            "outcomes": {"passed": 119, "failed": 1},
            "collected": 120,
            "repeat": 3,
            "workers": 0,
            "wall_ms": _stat(12_000),
            "cpu_ms": _stat(10_000),
            "peak_rss_kib": _stat(100_000),
            # The measured arm again, by name, so a later run of another arm
            # (the main job's -n N + slow ratchet) keeps it comparable.
            "arms": {
                "serial": {
                    "workers": 0,
                    "repeat": 3,
                    "wall_ms": _stat(12_000),
                    "cpu_ms": _stat(10_000),
                    "peak_rss_kib": _stat(100_000),
                }
            },
        }
    }
    assert list(document["suites"]["unit"])[:7] == [
        "command",
        "python",
        "status",
        "outcomes",
        "collected",
        "repeat",
        "workers",
    ]


def test_a_baseline_that_cannot_be_written_names_the_path_and_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "timing.json"
    path.mkdir()  # a directory where the file goes
    with pytest.raises(StateError) as info:
        record_baseline(path, previous=None, fingerprint=HOST, suites=[_suite()], commit=None)
    assert info.value.message == (f"cannot write the timing baseline {str(path)!r}: Is a directory")
    assert info.value.hint == (
        "make the baseline path a writable file location ([tool.lanes.timing] "
        "baseline, else <baseline_dir>/timing.json), then record again with --record"
    )


# -- reading -------------------------------------------------------------------------


def _write(tmp_path: Path, document: object) -> Path:
    path = tmp_path / "timing.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _document(**suite: object) -> dict[str, Any]:
    figures = {key: _stat(10) for key in ("wall_ms", "cpu_ms", "peak_rss_kib")}
    return {
        "format": BASELINE_FORMAT,
        "version": 1,
        "fingerprint": HOST,
        "suites": {"unit": {**figures, **suite}},
    }


@pytest.mark.parametrize(
    ("document", "why"),
    [
        ({"format": "lanekit.other", "version": 1}, "its format is not 'lanekit.timing-baseline'"),
        ({"format": BASELINE_FORMAT, "version": 2}, "version 2, this lanekit reads 1"),
        ({"format": BASELINE_FORMAT, "version": 1, "suites": {}}, "it has no fingerprint object"),
        ({"format": BASELINE_FORMAT, "version": 1, "fingerprint": HOST}, "it has no suites object"),
        (
            {"format": BASELINE_FORMAT, "version": 1, "fingerprint": HOST, "suites": {"unit": 3}},
            "suite 'unit' is not an object",
        ),
        (
            _document(cpu_ms={"median": True, "min": 0, "max": 1}),
            (
                "suite 'unit' cpu_ms must be {median, min, max} integers, got "
                "{'median': True, 'min': 0, 'max': 1}"
            ),
        ),
        (
            _document(cpu_ms={"median": 1, "min": 0}),
            "suite 'unit' cpu_ms must be {median, min, max} integers, got {'median': 1, 'min': 0}",
        ),
        (
            _document(peak_rss_kib=_stat(MAX_FIGURE + 1)),
            (
                f"suite 'unit' peak_rss_kib figures must be between 0 and {MAX_FIGURE}, got "
                f"{{'median': {MAX_FIGURE + 1}, 'min': {MAX_FIGURE + 1}, 'max': {MAX_FIGURE + 1}}}"
            ),
        ),
        (
            _document(wall_ms=_stat(5, 6, 7)),
            (
                "suite 'unit' wall_ms must have min <= median <= max, got "
                "{'median': 5, 'min': 6, 'max': 7}"
            ),
        ),
        (
            _document(collected=True),
            f"suite 'unit' collected must be an integer 0..{MAX_FIGURE} or null, got True",
        ),
        (
            _document(collected="3"),
            f"suite 'unit' collected must be an integer 0..{MAX_FIGURE} or null, got '3'",
        ),
        (
            _document(collected=MAX_FIGURE + 1),
            (
                f"suite 'unit' collected must be an integer 0..{MAX_FIGURE} or null, "
                f"got {MAX_FIGURE + 1}"
            ),
        ),
    ],
)
def test_a_file_that_is_no_baseline_is_refused_naming_the_file_and_the_figure(
    tmp_path: Path, document: object, why: str
) -> None:
    path = _write(tmp_path, document)
    with pytest.raises(BaselineError) as info:
        read_baseline(path)
    assert (info.value.message, info.value.hint) == (
        f"{path} is not a timing baseline: {why}",
        HINT,
    )


def test_a_broken_json_file_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "timing.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(BaselineError) as info:
        read_baseline(path)
    assert info.value.message.startswith(f"{path} is not a timing baseline: {path} is not valid")
    assert info.value.hint == HINT


def test_figures_at_the_ends_of_their_range_are_read(tmp_path: Path) -> None:
    edges = _document(
        wall_ms=_stat(0), cpu_ms=_stat(MAX_FIGURE), peak_rss_kib=_stat(5, 0, MAX_FIGURE)
    )
    for collected in (0, MAX_FIGURE, None):
        document = {
            **edges,
            "suites": {"unit": {**edges["suites"]["unit"], "collected": collected}},
        }
        assert read_baseline(_write(tmp_path, document)) == document


def test_a_baseline_behind_a_link_the_user_configured_is_read(tmp_path: Path) -> None:
    real = _write(tmp_path, _document())
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert read_baseline(link) == _document()


# -- the host ------------------------------------------------------------------------


def test_the_host_fingerprint_is_this_machine() -> None:
    fingerprint = host_fingerprint()
    assert fingerprint["cpu_count"] == os.cpu_count()
    assert fingerprint["platform"] == platform.system().lower()
    assert fingerprint["machine"] == platform.machine()


@pytest.mark.skipif(not Path("/proc/cpuinfo").exists(), reason="Linux's /proc/cpuinfo")
def test_the_cpu_model_is_the_one_proc_cpuinfo_names() -> None:
    named = [
        line.split(":", 1)[1].strip()
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
        if line.split(":", 1)[0].strip() in {"model name", "Hardware", "cpu model"}
    ]
    assert host_fingerprint()["cpu_model"] == (named[0] if named else "unknown")


def test_a_fingerprint_key_on_one_side_only_is_a_difference() -> None:
    recorded = {"cpu_count": 2, "cpu_model": "A"}
    current = {"cpu_count": 2, "machine": "arm64"}
    assert fingerprint_differences(recorded, current) == [
        "cpu_model: 'A' → None",
        "machine: None → 'arm64'",
    ]


# -- the Δ ---------------------------------------------------------------------------


def _baseline(tmp_path: Path, suite: TimingMeasurement) -> dict[str, Any]:
    path = tmp_path / "timing.json"
    record_baseline(path, previous=None, fingerprint=HOST, suites=[suite], commit=None)
    document = read_baseline(path)
    assert document is not None
    return document


def test_without_a_baseline_the_block_says_how_to_record() -> None:
    assert compare(_suite(), None, HOST, max_regression=30, max_wall_regression=50) == {
        "status": "no baseline",
        "reason": "no baseline recorded for this suite: run `lanes timing --record`",
        "metrics": [],
        "collected": None,
        "gate": {
            "max_regression": 30,
            "max_wall_regression": 50,
            "failed": False,
            "reason": None,
        },
    }


def test_a_baseline_from_elsewhere_lists_every_difference(tmp_path: Path) -> None:
    baseline = _baseline(tmp_path, _suite())
    other: TimingFingerprint = {**HOST, "cpu_count": 8, "machine": "arm64"}
    current = _suite(python="cpython 3.13.1", command="pytest -n 2")
    assert compare(current, baseline, other, max_regression=None) == {
        "status": "not comparable",
        "reason": "recorded elsewhere: cpu_count: 2 → 8; machine: 'x86_64' → 'arm64'; "
        "python: 'cpython 3.11.7' → 'cpython 3.13.1'; "
        "command: 'pytest tests -q' → 'pytest -n 2'",
        "metrics": [],
        "collected": None,
        "gate": {
            "max_regression": None,
            "max_wall_regression": None,
            "failed": False,
            "reason": None,
        },
    }


def test_each_figure_is_flagged_only_beyond_its_noise(tmp_path: Path) -> None:
    baseline = _baseline(
        tmp_path,
        _suite(wall=_stat(10_000, 9_700, 10_300), cpu=_stat(8_000), rss=_stat(0)),
    )
    # wall: noise is the larger spread (600 ms then, 400 now) over the 5% floor
    # (500 ms); 600 ms faster is exactly the noise. CPU: the 5% floor (400 ms),
    # 401 ms faster is beyond it. Memory: no base, no percentage.
    current = _suite(wall=_stat(9_400, 9_200, 9_600), cpu=_stat(7_599), rss=_stat(10))
    result = compare(current, baseline, HOST, max_regression=30)
    assert result["status"] == "compared"
    assert result["reason"] is None
    assert result["metrics"] == [
        {
            "metric": "wall_ms",
            "baseline": 10_000,
            "current": 9_400,
            "delta": -600,
            "delta_pct": -6.0,
            "noise": 600,
            "flag": "within noise",
        },
        {
            "metric": "cpu_ms",
            "baseline": 8_000,
            "current": 7_599,
            "delta": -401,
            "delta_pct": -5.0,
            "noise": 400,
            "flag": "improved",
        },
        {
            "metric": "peak_rss_kib",
            "baseline": 0,
            "current": 10,
            "delta": 10,
            "delta_pct": None,
            "noise": 0,
            "flag": "regressed",
        },
    ]
    assert result["gate"] == {
        "max_regression": 30,
        "max_wall_regression": None,
        "failed": False,
        "reason": None,
    }


def test_growth_of_exactly_the_noise_is_within_it(tmp_path: Path) -> None:
    baseline = _baseline(tmp_path, _suite(cpu=_stat(8_000)))

    def cpu(current: TimingStat) -> tuple[int, str]:
        metrics = compare(_suite(cpu=current), baseline, HOST, max_regression=None)["metrics"]
        (figure,) = [m for m in metrics if m["metric"] == "cpu_ms"]
        return figure["noise"], figure["flag"]

    # The 5% floor (400 ms) when neither side spread; this run's spread when it is wider.
    assert cpu(_stat(8_400)) == (400, "within noise")
    assert cpu(_stat(8_500, 8_000, 8_500)) == (500, "within noise")


@pytest.mark.parametrize(
    ("recorded", "current", "change"),
    [
        (120, 120, {"baseline": 120, "current": 120, "delta": 0, "flag": "same"}),
        (120, 121, {"baseline": 120, "current": 121, "delta": 1, "flag": "grew"}),
        (120, 119, {"baseline": 120, "current": 119, "delta": -1, "flag": "dropped"}),
        (None, 119, None),
        (120, None, None),
    ],
)
def test_the_collected_count_is_compared_when_both_sides_have_one(
    tmp_path: Path, recorded: int | None, current: int | None, change: object
) -> None:
    baseline = _baseline(tmp_path, _suite(collected=recorded))
    assert (
        compare(_suite(collected=current), baseline, HOST, max_regression=None)["collected"]
        == change
    )


def test_both_gates_give_their_reasons_with_the_spread(tmp_path: Path) -> None:
    baseline = _baseline(tmp_path, _suite(cpu=_stat(10_000, 9_000, 11_006), wall=_stat(12_000)))
    current = _suite(cpu=_stat(14_000, 13_900, 14_100), wall=_stat(24_000))
    gate = compare(current, baseline, HOST, max_regression=30, max_wall_regression=50)["gate"]
    assert gate == {
        "max_regression": 30,
        "max_wall_regression": 50,
        "failed": True,
        "reason": "median CPU time 10.00s → 14.00s (+40.0%) exceeds max_regression 30%; "
        "the spread (2.01s); "
        "median wall clock 12.00s → 24.00s (+100.0%) exceeds max_wall_regression 50%; "
        "no spread measured (one run on each side: record and measure with "
        "--repeat 2+ for one)",
    }


def test_a_gate_at_its_limit_or_within_the_spread_does_not_fail(tmp_path: Path) -> None:
    baseline = _baseline(tmp_path, _suite(cpu=_stat(10_000)))
    at_limit = compare(_suite(cpu=_stat(13_000)), baseline, HOST, max_regression=30)
    assert at_limit["gate"]["failed"] is False
    # +3000 ms is exactly the spread of this run's repeats: not beyond it.
    in_spread = _suite(cpu=_stat(13_000, 11_000, 14_000))
    assert compare(in_spread, baseline, HOST, max_regression=20)["gate"]["failed"] is False
    beyond = _suite(cpu=_stat(13_001, 11_001, 14_000))
    assert compare(beyond, baseline, HOST, max_regression=20)["gate"]["failed"] is True


def test_a_gate_without_a_percentage_never_fails(tmp_path: Path) -> None:
    baseline = _baseline(tmp_path, _suite(cpu=_stat(0)))
    result = compare(_suite(cpu=_stat(5_000)), baseline, HOST, max_regression=30)
    assert result["gate"]["failed"] is False


@pytest.mark.parametrize(
    ("cpuinfo", "model"),
    [
        ("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu\n", "AMD EPYC 7B13"),
        ("processor\t: 0\nmodel name\t: Vendor: Chip 9\n", "Vendor: Chip 9"),
        ("Processor\t: ARMv7 rev 4 (v7l)\nHardware\t: BCM2835\n", "BCM2835"),
        ("system type\t\t: MT7621\ncpu model\t\t: MIPS 1004Kc V2.15\n", "MIPS 1004Kc V2.15"),
    ],
)
def test_the_cpu_model_is_read_on_x86_arm_and_mips(
    tmp_path: Path, cpuinfo: str, model: str
) -> None:
    path = tmp_path / "cpuinfo"
    path.write_text(cpuinfo, encoding="utf-8")
    assert _cpu_model(path) == model


def test_a_cpuinfo_with_bytes_that_are_no_text_still_names_the_model(tmp_path: Path) -> None:
    path = tmp_path / "cpuinfo"
    path.write_bytes(b"vendor\t: \xff\xfe\nmodel name\t: Chip 9\n")
    assert _cpu_model(path) == "Chip 9"


def test_without_a_model_in_cpuinfo_the_platform_names_the_processor(tmp_path: Path) -> None:
    fallback = platform.processor() or "unknown"
    path = tmp_path / "cpuinfo"
    path.write_text("processor\t: 0\n", encoding="utf-8")
    assert _cpu_model(path) == fallback
    assert _cpu_model(tmp_path / "absent") == fallback
