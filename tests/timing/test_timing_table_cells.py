"""The timing table's words, cell by cell: what the terminal, the job summary and
the report all show for one suite (lanes/timing/table.py).

Each cell is checked to its full text for every shape a suite entry takes:
one run or a spread, one process or several, no baseline, not comparable, a
failed gate, an xdist verdict or why there is none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from lanes.timing import table

if TYPE_CHECKING:
    from lanes.payloads.timing import (
        TimingComparison,
        TimingMetric,
        TimingStat,
        TimingSuite,
        TimingXdist,
    )


def _stat(median: int, low: int | None = None, high: int | None = None) -> TimingStat:
    return {
        "median": median,
        "min": median if low is None else low,
        "max": median if high is None else high,
    }


NO_BASELINE: TimingComparison = {
    "status": "no baseline",
    "reason": "no baseline recorded for this suite: run `lanes timing --record`",
    "metrics": [],
    "collected": None,
    "gate": {"max_regression": 30, "max_wall_regression": None, "failed": False, "reason": None},
}


def _suite(**overrides: Any) -> TimingSuite:
    """A passed suite of one process, 12.3 s wall, 10 s CPU, 100 MiB, no baseline."""
    suite: dict[str, Any] = {
        "name": "unit",
        "command": "pytest tests -q",
        "runner": "pytest",
        "python": "cpython 3.11.7",
        "status": "passed",
        "exit_codes": [0],
        "outcomes": {"passed": 1374},
        "collected": 1374,
        "measured": {
            "arm": "serial",
            "argv": ["pytest", "tests", "-q"],
            "repeat": 1,
            "workers": 0,
            "wall_ms": _stat(12_351),
            "cpu_ms": _stat(10_000),
            "peak_rss_kib": _stat(102_400),
            "tree_peak_rss_kib": _stat(102_400),
            "processes": [{"role": "controller", "peak_rss_kib": 102_400, "cpu_ms": 10_000}],
            "samples": [],
        },
        "offenders": {
            "tests": [
                {"nodeid": "tests/test_a.py::test_slow", "ms": 2_551},
                {"nodeid": "tests/test_a.py::test_less", "ms": 1_000},
            ],
            "files": [],
            "fixtures": [],
            "startup_ms": None,
            "collection_ms": None,
            "first_test_ms": None,
        },
        "xdist": None,
        "xdist_skipped": "workers = 0: the comparison is switched off",
        "failure": None,
        "comparison": NO_BASELINE,
    }
    suite.update(overrides)
    return suite  # type: ignore[return-value]  # a complete entry built from a dict of overrides


def _measured(**overrides: Any) -> dict[str, Any]:
    return {**_suite()["measured"], **overrides}


def _metric(metric: str, pct: float | None, flag: str) -> TimingMetric:
    return {
        "metric": metric,  # type: ignore[typeddict-item]  # one of the three names, by parameter
        "baseline": 1000,
        "current": 1000,
        "delta": 0,
        "delta_pct": pct,
        "noise": 50,
        "flag": flag,  # type: ignore[typeddict-item]  # one of the flags, by parameter
    }


def _compared(*metrics: TimingMetric, failed: bool = False, collected: Any = None) -> Any:
    return {
        "status": "compared",
        "reason": None,
        "metrics": list(metrics),
        "collected": collected,
        "gate": {
            "max_regression": 30,
            "max_wall_regression": None,
            "failed": failed,
            "reason": "over" if failed else None,
        },
    }


def test_a_suite_of_one_run_and_one_process() -> None:
    assert table.row(_suite()) == {
        "suite": "unit",
        "collected": "1,374",
        "wall": "12.4s",
        "cpu": "10.0s",
        "peak_memory": "100 MiB",
        "top_offender": "tests/test_a.py::test_slow 2.6s",
        "xdist": "not measured (workers = 0: the comparison is switched off)",
        "delta": "no baseline",
    }


def test_a_failed_suite_says_so_in_its_name() -> None:
    assert table.row(_suite(status="failed"))["suite"] == "unit (FAILED)"


def test_repeats_show_their_spread_and_processes_their_sum() -> None:
    measured = _measured(
        wall_ms=_stat(12_345, 11_960, 13_050),
        cpu_ms=_stat(10_000, 9_940, 10_000),
        peak_rss_kib=_stat(460_800),
        processes=[{"role": "controller"}, {"role": "gw0"}, {"role": "gw1"}],
    )
    row = table.row(_suite(measured=measured))
    assert row["wall"] == "12.3s [12.0-13.1]"
    assert row["cpu"] == "10.0s [9.9-10.0]"
    assert row["peak_memory"] == "450 MiB (sum of 3 processes)"
    # A controller and one worker are two processes; KiB are 1,024 to the MiB.
    two = _measured(
        peak_rss_kib=_stat(1_025_000), processes=[{"role": "controller"}, {"role": "gw0"}]
    )
    assert table.row(_suite(measured=two))["peak_memory"] == "1001 MiB (sum of 2 processes)"


@pytest.mark.parametrize(
    ("collected", "change", "cell"),
    [
        (None, None, "—"),
        (1374, None, "1,374"),
        (1374, {"baseline": 1374, "current": 1374, "delta": 0, "flag": "same"}, "1,374"),
        (
            1400,
            {"baseline": 1374, "current": 1400, "delta": 26, "flag": "grew"},
            "1,374 → 1,400 (+26)",
        ),
        (
            1375,
            {"baseline": 1374, "current": 1375, "delta": 1, "flag": "grew"},
            "1,374 → 1,375 (+1)",
        ),
        (
            1102,
            {"baseline": 2374, "current": 1102, "delta": -1272, "flag": "dropped"},
            "2,374 → 1,102 (-1,272)",
        ),
    ],
)
def test_the_collected_cell_shows_a_change_against_the_baseline(
    collected: int | None, change: Any, cell: str
) -> None:
    suite = _suite(collected=collected, comparison=_compared(collected=change))
    assert table.row(suite)["collected"] == cell


@pytest.mark.parametrize(
    "offenders",
    [None, {"tests": [], "files": [], "fixtures": []}],
)
def test_without_offenders_the_cell_is_a_dash(offenders: Any) -> None:
    assert table.row(_suite(offenders=offenders))["top_offender"] == "—"


def _xdist(verdict: str, speedup: float | None) -> TimingXdist:
    block: dict[str, Any] = {"verdict": verdict, "workers": 2, "recommended_n": 2}
    block["speedup"] = speedup
    return block  # type: ignore[return-value]  # only the keys the cell reads


@pytest.mark.parametrize(
    ("xdist", "skipped", "cell"),
    [
        (None, None, "not measured (skipped)"),
        (None, "the suite failed", "not measured (the suite failed)"),
        (_xdist("xdist pays", 1.456), None, "xdist pays (-n 2, 1.46× at -n 2)"),
        (_xdist("within noise", None), None, "within noise (-n 2)"),
    ],
)
def test_the_xdist_cell_gives_the_verdict_or_why_there_is_none(
    xdist: TimingXdist | None, skipped: str | None, cell: str
) -> None:
    assert table.row(_suite(xdist=xdist, xdist_skipped=skipped))["xdist"] == cell


def test_the_delta_cell_names_each_figure_and_flags_only_beyond_noise() -> None:
    comparison = _compared(
        _metric("wall_ms", 2.54, "within noise"),
        _metric("cpu_ms", -12.0, "improved"),
        _metric("peak_rss_kib", None, "regressed"),
    )
    assert table.row(_suite(comparison=comparison))["delta"] == (
        "wall +2.5%, CPU -12.0% improved, mem n/a regressed"
    )
    failed = _compared(_metric("cpu_ms", 40.0, "regressed"), failed=True)
    assert table.row(_suite(comparison=failed))["delta"] == (
        "CPU +40.0% regressed, FAIL: over the regression gate"
    )


def test_a_suite_recorded_elsewhere_is_not_comparable() -> None:
    comparison = {**_compared(), "status": "not comparable", "reason": "recorded elsewhere"}
    assert table.row(_suite(comparison=comparison))["delta"] == "not comparable"


def test_the_table_pads_each_column_to_its_widest_cell() -> None:
    rows = [table.row(_suite()), table.row(_suite(name="e2e", collected=None, offenders=None))]
    assert table.render(rows).splitlines() == [
        (
            "suite | collected | wall  | CPU   | peak memory | top offender                    "
            "| xdist verdict                                              | Δ vs baseline"
        ),
        (
            "------+-----------+-------+-------+-------------+---------------------------------"
            "+------------------------------------------------------------+--------------"
        ),
        (
            "unit  | 1,374     | 12.4s | 10.0s | 100 MiB     | tests/test_a.py::test_slow 2.6s "
            "| not measured (workers = 0: the comparison is switched off) | no baseline"
        ),
        (
            "e2e   | —         | 12.4s | 10.0s | 100 MiB     | —                               "
            "| not measured (workers = 0: the comparison is switched off) | no baseline"
        ),
    ]
