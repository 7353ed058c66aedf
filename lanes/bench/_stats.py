"""Noise-aware verdicts for benchmark figures.

A goal is *missed beyond noise* when even the optimistic end of the figure's
95% confidence interval misses it:

- for a median of paired ratios, the interval is the distribution-free one
  from order statistics (the ranks ``n/2 ± 1.96·√n/2`` of the sorted ratios),
  so one slow outlier moves nothing, and a miss must be consistent across the
  pairs before the lane fails;
- for a throughput, the best of several rounds is the least-disturbed
  measurement on a shared machine; the goal is missed only when the best
  round misses it.

Goals are of two kinds:

- a *gating* goal (the hook on a non-test command, the economy simulation's
  hard requirements) fails the lane when missed beyond noise;
- a *tracked* goal (the gate's PreToolUse latency, the slow plugin's
  overhead) is measured, compared and reported every run, but its miss is the
  verdict ``"miss"``, which does not fail the lane: these goals are targets
  whose floor depends on the machine (git process start-up, pytest's own
  per-test cost), and a lane that goes red on hardware trains people to
  ignore it.

A median over a gating goal whose interval still reaches it is a ``"miss"``
with a note ("within noise"), so a noisy runner never fails the lane alone.
"""

from __future__ import annotations

import math
import statistics
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lanes.bench.registry import Verdict

__all__ = ["goal_verdict", "median_interval"]

_Z95 = 1.96


def median_interval(values: list[float]) -> tuple[float, float, float]:
    """``(median, low, high)``: the median and its ~95% confidence interval."""
    if not values:
        msg = "median_interval needs at least one value"
        raise ValueError(msg)
    ordered = sorted(values)
    n = len(ordered)
    half_width = _Z95 * math.sqrt(n) / 2
    low_rank = max(1, math.floor(n / 2 - half_width))
    high_rank = min(n, math.ceil(n / 2 + 1 + half_width))
    return statistics.median(ordered), ordered[low_rank - 1], ordered[high_rank - 1]


def goal_verdict(
    median: float, low: float, high: float, goal: float, *, gating: bool, unit: str = ""
) -> tuple[Verdict, str]:
    """``(verdict, note)`` for a median (with its interval) against an upper goal."""
    if median <= goal:
        return "pass", ""
    interval = f"{low:.3g}{unit} to {high:.3g}{unit}"
    if gating and low > goal:
        return "fail", f"the whole 95% interval ({interval}) is above the goal"
    if gating:
        return "miss", f"median {median:.3g}{unit} over the goal but within noise ({interval})"
    return "miss", (
        f"median {median:.3g}{unit} over the goal ({interval}); a tracked goal: "
        "reported, it does not fail the lane"
    )
