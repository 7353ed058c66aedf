"""The real-process guard: real workers, real flock, SIGKILLed holders."""

from __future__ import annotations

import pytest

from lanes.torture.real import RealReport, _judge, run_real_guard


@pytest.mark.integration
def test_real_guard_passes_against_the_governor() -> None:
    report = run_real_guard(3, 15, seed=1)
    assert report.problems == []
    assert report.overlaps == 0
    assert report.critical_sections > 0
    assert not report.lock_left
    data = report.to_dict()
    assert data["passed"] is True


def test_the_judge_fails_overlaps_slow_takeovers_and_leftover_locks() -> None:
    report = RealReport(2, 1, critical_sections=5, overlaps=1, takeovers_ms=[45_000.0])
    report.lock_left = True
    report.probe = "probe blocked"
    _judge(report)
    assert len(report.problems) == 3
    assert not report.passed
