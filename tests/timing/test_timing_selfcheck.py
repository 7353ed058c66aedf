"""``lanes timing --self-check``: the planted project's regressions and the planted figure fault."""

from __future__ import annotations

import pytest

from lanes.timing.selfcheck import MAX_REGRESSION, run_self_check


@pytest.mark.integration
def test_the_self_check_catches_the_regressions_and_the_planted_peak_memory_fault(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = run_self_check()
    assert result["passed"], result["summary"]
    assert [c["name"] for c in result["checks"] if c["passed"]] == [
        "cpu gate",
        "peak memory",
        "collected",
    ]
    # The planted slowdown clears the gate by a wide margin, not by luck: a
    # fixed +0.6 s measured +27.9% (a pass) where pytest's start-up took most
    # of the run's 1.76 s.
    [cpu] = [m for m in result["slower"]["metrics"] if m["metric"] == "cpu_ms"]
    assert cpu["delta_pct"] is not None
    assert cpu["delta_pct"] >= 2 * MAX_REGRESSION
    [plant] = result["planted"]
    assert plant["fault"].startswith("an xdist run's peak memory taken as the largest")
    # A controller and two workers of 40, 100 and 90 MiB: the run needs 230 MiB.
    assert (plant["expected"], plant["real"], plant["planted"]) == (
        "235520 KiB",
        "235520 KiB",
        "102400 KiB",
    )
    assert plant["caught"]
    assert "caught" in result["summary"]
    err = capsys.readouterr().err
    assert "timing self-check: planted fault caught: an xdist run's peak memory" in err
