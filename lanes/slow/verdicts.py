"""Judge measured durations against tier budgets and pins: a pure function.

For a test of a tier with budget ``B`` and the configured ``fail_factor`` ``F``:

- ``seconds <= B``: fine;
- ``B < seconds <= F × B``: the **band** — reported, never failing, because
  host load legitimately stretches borderline tests and a flaky gate trains
  people to ignore it;
- ``seconds > F × B``: the run fails, unless the test is pinned.

A pinned test is judged against its own ``ceiling`` ``C`` instead of ``B``:
over ``C`` it is in the band, past ``F × C`` it fails. A pinned test that
now runs within its tier's budget ``B`` is reported as removable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple

from lanes.slow.pins import Pin, PinList

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from lanes.config import SlowConfig

__all__ = [
    "Judged",
    "Judgement",
    "Measurement",
    "PinReport",
    "PinState",
    "TierStats",
    "TightenHint",
    "Verdict",
    "judge",
    "round_up",
    "suggested_ceiling",
]


class Verdict(StrEnum):
    OK = "ok"
    BAND = "band"
    FAIL = "fail"


class PinState(StrEnum):
    REMOVABLE = "removable"
    """The test now runs within its tier's budget: the pin protects nothing."""
    HOLDING = "holding"
    """Over the tier budget, within the pin's ceiling: the waiver is doing its job."""
    OVER_CEILING = "over-ceiling"
    """Between the ceiling and fail_factor × ceiling: reported, not failing."""
    BROKEN = "broken"
    """Past fail_factor × ceiling: the run fails."""
    NOT_RUN = "not-run"
    """The pinned test did not run in this session (deselected, or gone: see `lanes slow check`)."""


class Measurement(NamedTuple):
    """What one test cost. ``seconds`` is what the budget judges.

    A named tuple, like :class:`Judged`: one exists per test, and the bench lane
    holds the plugin to 2% of a suite's CPU time.
    """

    nodeid: str
    tier: str
    call: float
    """Duration of the call phase (the test function's body)."""
    fixtures: float = 0.0
    """Setup of the test's function-scoped fixtures (their own, exclusive time)."""
    outcome: str = "passed"

    @property
    def seconds(self) -> float:
        return self.call + self.fixtures


class Judged(NamedTuple):
    measurement: Measurement
    seconds: float
    """What the budget judged: ``measurement.seconds``."""
    budget: float
    """The tier's budget."""
    allowance: float
    """Where the band starts: the pin's ceiling for a pinned test, else the budget."""
    limit: float
    """Past this the run fails: fail_factor × allowance."""
    verdict: Verdict
    pin: Pin | None = None

    @property
    def nodeid(self) -> str:
        return self.measurement.nodeid


@dataclass(frozen=True)
class PinReport:
    pin: Pin
    state: PinState
    seconds: float | None
    budget: float


@dataclass(frozen=True)
class TierStats:
    name: str
    budget: float
    count: int
    total: float
    p50: float
    p90: float
    max: float
    slowest: str | None


@dataclass(frozen=True)
class TightenHint:
    tier: str
    budget: float
    slowest: float
    share: float
    suggestion: float

    def message(self) -> str:
        return (
            f"tier {self.tier!r}: its slowest test takes {self.slowest:.3g} s, "
            f"{self.share:.0%} of its {self.budget:g} s budget — a budget nobody approaches "
            f"protects nothing; consider budget = {self.suggestion:g}"
        )


@dataclass(frozen=True)
class Judgement:
    fail_factor: float
    judged: tuple[Judged, ...]
    failures: tuple[Judged, ...]
    band: tuple[Judged, ...]
    pins: tuple[PinReport, ...]
    tiers: tuple[TierStats, ...]
    tighten: tuple[TightenHint, ...]

    @property
    def passed(self) -> bool:
        return not self.failures

    def slowest(self, count: int = 10) -> tuple[Judged, ...]:
        return tuple(sorted(self.judged, key=lambda j: (-j.seconds, j.nodeid))[:count])


def round_up(seconds: float, digits: int = 2) -> float:
    """Round up to ``digits`` significant figures (a readable ceiling or budget)."""
    if seconds <= 0:
        return 0.01
    exponent = math.floor(math.log10(seconds)) - (digits - 1)
    step = 10.0**exponent
    return round(math.ceil(seconds / step - 1e-9) * step, max(0, -exponent))


CEILING_HEADROOM = 1.25
"""A suggested pin ceiling leaves a quarter on top of the measurement, so that
ordinary jitter does not put a freshly pinned test straight into the band."""


def suggested_ceiling(seconds: float) -> float:
    """The ceiling ``lanes slow pin`` defaults to (and failure messages suggest)."""
    return round_up(seconds * CEILING_HEADROOM)


def _percentile(ordered: list[float], share: float) -> float:
    # Nearest rank: always a value that was measured, never an interpolation.
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]


def _judge_one(m: Measurement, budget: float, factor: float, pin: Pin | None) -> Judged:
    # A ceiling below the tier budget would make a pin stricter than no pin.
    allowance = max(pin.ceiling, budget) if pin is not None else budget
    limit = factor * allowance
    seconds = m.seconds
    if seconds <= allowance:
        verdict = Verdict.OK
    elif seconds <= limit:
        verdict = Verdict.BAND
    else:
        verdict = Verdict.FAIL
    return Judged(m, seconds, budget, allowance, limit, verdict, pin)


def _pin_state(judged: Judged) -> PinState:
    if judged.seconds <= judged.budget:
        return PinState.REMOVABLE
    if judged.verdict is Verdict.OK:
        return PinState.HOLDING
    if judged.verdict is Verdict.BAND:
        return PinState.OVER_CEILING
    return PinState.BROKEN


def _tier_stats(slow: SlowConfig, judged: Iterable[Judged]) -> tuple[TierStats, ...]:
    by_tier: dict[str, list[Judged]] = {}
    for item in judged:
        by_tier.setdefault(item.measurement.tier, []).append(item)
    out: list[TierStats] = []
    for name, tier in slow.tiers.items():
        members = by_tier.get(name, [])
        ordered = sorted(j.seconds for j in members)
        slowest = max(members, key=lambda j: j.seconds, default=None)
        out.append(
            TierStats(
                name=name,
                budget=tier.budget,
                count=len(members),
                total=sum(ordered),
                p50=_percentile(ordered, 0.5) if ordered else 0.0,
                p90=_percentile(ordered, 0.9) if ordered else 0.0,
                max=ordered[-1] if ordered else 0.0,
                slowest=None if slowest is None else slowest.nodeid,
            )
        )
    return tuple(out)


def _tighten(slow: SlowConfig, stats: Iterable[TierStats]) -> tuple[TightenHint, ...]:
    hints: list[TightenHint] = []
    for tier in stats:
        if tier.count == 0 or tier.max >= slow.tighten_below * tier.budget:
            continue
        # Suggest a budget the slowest test would use half of: tight enough to
        # notice the next slow test, loose enough not to band the current one.
        suggestion = min(round_up(max(tier.max, 0.005) * 2), tier.budget)
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


def judge(
    slow: SlowConfig, measurements: Iterable[Measurement], pins: PinList | Mapping[str, Pin]
) -> Judgement:
    """Judge every measurement; ``pins`` by node id."""
    by_nodeid = pins.pins if isinstance(pins, PinList) else pins
    factor = slow.fail_factor
    judged: list[Judged] = []
    for m in measurements:
        tier = slow.tiers.get(m.tier) or slow.tiers[slow.default_tier]
        judged.append(_judge_one(m, tier.budget, factor, by_nodeid.get(m.nodeid)))
    judged.sort(key=lambda j: j.nodeid)
    seen = {j.nodeid: j for j in judged}
    reports: list[PinReport] = []
    for nodeid, pin in sorted(by_nodeid.items()):
        ran = seen.get(nodeid)
        if ran is None:
            tier = slow.tiers.get(pin.tier) or slow.tiers[slow.default_tier]
            reports.append(PinReport(pin, PinState.NOT_RUN, None, tier.budget))
        else:
            reports.append(PinReport(pin, _pin_state(ran), ran.seconds, ran.budget))
    stats = _tier_stats(slow, judged)
    return Judgement(
        fail_factor=factor,
        judged=tuple(judged),
        failures=tuple(j for j in judged if j.verdict is Verdict.FAIL),
        band=tuple(j for j in judged if j.verdict is Verdict.BAND),
        pins=tuple(reports),
        tiers=stats,
        tighten=_tighten(slow, stats),
    )
