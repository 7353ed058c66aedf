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

A median over the goal whose interval still reaches it is reported as a pass
with a note ("within noise"), so a noisy runner never fails the lane alone.
"""

from __future__ import annotations

import math
import statistics

__all__ = ["median_interval"]

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
