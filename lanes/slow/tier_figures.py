"""A run's figures per budget tier, and the advice to tighten a budget nobody approaches.

Every run reports each tier's durations (:class:`TierStats`: count, total,
p50, p90, the slowest test). A tier whose slowest test uses less than
``tighten_below`` of its budget gets a :class:`TightenHint`: a budget nobody
approaches protects nothing, and a test can grow several times over under it.
The suggestion is sized by the rule ``lanes slow propose`` uses too
(:data:`TIGHTEN_HEADROOM`, :data:`TIGHTEN_FLOOR`, :func:`round_up`), so the
two never suggest different numbers from one run.

Pure functions of the run's seconds, called by :func:`lanes.slow.verdicts.judge`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from lanes.slow.settings import SlowConfig

__all__ = [
    "TIGHTEN_FLOOR",
    "TIGHTEN_HEADROOM",
    "TierStats",
    "TightenHint",
    "round_up",
    "tier_stats",
    "tighten_hints",
]


# TierStats and TightenHint are plain slotted classes, not dataclasses: this
# module is on the enabled plugin's import path, where creating a dataclass
# costs some 4 M instructions (the bench lane holds the plugin to 2%).


class TierStats:
    """One tier's durations this run."""

    __slots__ = ("budget", "count", "max", "name", "p50", "p90", "slowest", "total")

    def __init__(
        self,
        *,
        name: str,
        budget: float,
        count: int,
        total: float,
        p50: float,
        p90: float,
        max: float,
        slowest: str | None,
    ) -> None:
        self.name = name
        self.budget = budget
        self.count = count
        self.total = total
        self.p50 = p50
        self.p90 = p90
        self.max = max
        self.slowest = slowest


class TightenHint:
    """A tier whose slowest test uses a small share of its budget."""

    __slots__ = ("budget", "share", "slowest", "suggestion", "tier")

    def __init__(
        self, *, tier: str, budget: float, slowest: float, share: float, suggestion: float
    ) -> None:
        self.tier = tier
        self.budget = budget
        self.slowest = slowest
        self.share = share
        self.suggestion = suggestion

    def message(self) -> str:
        return (
            f"tier {self.tier!r}: its slowest test takes {self.slowest:.3g} s, "
            f"{self.share:.0%} of its {self.budget:g} s budget — a budget nobody approaches "
            f"protects nothing; consider budget = {self.suggestion:g} "
            "(lanes slow propose --write sets it)"
        )


def round_up(seconds: float, digits: int = 2) -> float:
    """Round up to ``digits`` significant figures (a readable ceiling or budget)."""
    if seconds <= 0:
        return 0.01
    exponent = math.floor(math.log10(seconds)) - (digits - 1)
    step = 10.0**exponent
    return round(math.ceil(seconds / step - 1e-9) * step, max(0, -exponent))


def _percentile(ordered: list[float], share: float) -> float:
    # Nearest rank: always a value that was measured, never an interpolation.
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]


def tier_stats(
    slow: SlowConfig, seconds: Mapping[str, float], members: Mapping[str, Sequence[str]]
) -> tuple[TierStats, ...]:
    took = seconds.__getitem__
    out: list[TierStats] = []
    for name, tier in slow.tiers.items():
        group = members.get(name, ())
        ordered = sorted(map(took, group))
        out.append(
            TierStats(
                name=name,
                budget=tier.budget,
                count=len(group),
                total=sum(ordered),
                p50=_percentile(ordered, 0.5) if ordered else 0.0,
                p90=_percentile(ordered, 0.9) if ordered else 0.0,
                max=ordered[-1] if ordered else 0.0,
                # The first of the slowest in node-id order, as the slowest list has it.
                slowest=max(group, key=took) if group else None,
            )
        )
    return tuple(out)


# The tighten advice must not ratchet a budget toward scheduler jitter: 2x the
# slowest test of one run went 2.5 -> 0.13 -> 0.065 s over three runs. Three
# guards: a floor (a busy CI runner delays a trivial test by a tenth of a
# second or more), headroom (the slowest test of one run uses a third of the
# suggestion, so a runner three times slower still leaves it within), and
# hysteresis (a hint only when it at least halves the budget, so a run a
# little faster than the last does not ask for another cut). `lanes slow
# propose` sizes budgets by the same rule, so the two never suggest different
# numbers from one run.
TIGHTEN_FLOOR: Final = 0.25
TIGHTEN_HEADROOM: Final = 3.0


def tighten_hints(slow: SlowConfig, stats: Iterable[TierStats]) -> tuple[TightenHint, ...]:
    hints: list[TightenHint] = []
    for tier in stats:
        if tier.count == 0 or tier.max >= slow.tighten_below * tier.budget:
            continue
        suggestion = max(round_up(tier.max * TIGHTEN_HEADROOM), TIGHTEN_FLOOR)
        if suggestion > tier.budget / 2:
            continue
        hints.append(
            TightenHint(
                tier=tier.name,
                budget=tier.budget,
                slowest=tier.max,
                share=tier.max / tier.budget,
                suggestion=suggestion,
            )
        )
    return tuple(hints)
