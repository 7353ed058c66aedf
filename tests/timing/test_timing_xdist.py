"""The xdist verdict: measured arms decide, noise holds, the crossover explains."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.timing.xdist import verdict

if TYPE_CHECKING:
    from lanes.payloads.timing import TimingArm


def _arm(wall: int, spread: int = 0, cpu: int = 1000) -> TimingArm:
    return {
        "arm": "serial",
        "argv": ["pytest"],
        "repeat": 3,
        "workers": 0,
        "wall_ms": {"median": wall, "min": wall - spread, "max": wall + spread},
        "cpu_ms": {"median": cpu, "min": cpu, "max": cpu},
        "peak_rss_kib": {"median": 50_000, "min": 50_000, "max": 50_000},
        "tree_peak_rss_kib": {"median": 50_000, "min": 50_000, "max": 50_000},
        "processes": [],
        "samples": [
            {
                "wall_ms": wall,
                "cpu_ms": cpu,
                "user_ms": cpu,
                "system_ms": 0,
                "peak_rss_kib": 50_000,
                "tree_peak_rss_kib": 50_000,
                "exit_code": 0,
            }
        ],
    }


@pytest.mark.parametrize(
    ("serial", "parallel", "expected", "recommended"),
    [
        (_arm(60_000), _arm(35_000), "xdist pays", 2),
        (_arm(5_000), _arm(12_000), "serial wins", 0),
        (_arm(60_000), _arm(58_000), "within noise", 0),  # inside the 5% floor
        (_arm(60_000, spread=8_000), _arm(50_000), "within noise", 0),  # inside the spread
    ],
)
def test_the_verdict_follows_the_measured_arms(
    serial: TimingArm, parallel: TimingArm, expected: str, recommended: int
) -> None:
    block = verdict(serial, parallel, workers=2, serial_empty_ms=4_000, parallel_empty_ms=9_000)
    assert block["verdict"] == expected
    assert block["recommended_n"] == recommended


def test_the_crossover_is_the_fixed_cost_scaled_by_the_workers() -> None:
    block = verdict(
        _arm(64_000), _arm(40_000), workers=4, serial_empty_ms=4_000, parallel_empty_ms=10_000
    )
    # F = 6 s extra to start 4 workers; pays once B > F * 4 / 3 = 8 s; B = 60 s.
    assert block["fixed_cost_ms"] == 6_000
    assert block["crossover_ms"] == 8_000
    assert block["tests_ms"] == 60_000
    assert "over 8.0s serially" in block["explanation"]
    assert "above the crossover" in block["explanation"]
    assert block["speedup"] == 1.6


def test_one_worker_never_pays_for_itself() -> None:
    block = verdict(
        _arm(10_000), _arm(13_000), workers=1, serial_empty_ms=2_000, parallel_empty_ms=5_000
    )
    assert block["crossover_ms"] is None
    assert "never pays" in block["explanation"]
