"""Judge measured durations against tier budgets and pins: a pure function.

For a test of a tier with budget ``B`` and the configured ``fail_factor`` ``F``:

- ``seconds <= B``: fine;
- ``B < seconds <= F × B``: the **band** — reported, never failing, because
  host load legitimately stretches borderline tests and a flaky gate trains
  people to ignore it;
- ``seconds > F × B``: the run fails, unless the test is pinned.

A test with its own budget (``@pytest.mark.slow_budget(S)``) is judged against
``S`` instead of its tier's. A pinned test is judged against its own
``ceiling`` ``C`` instead of ``B``: over ``C`` it is in the band, past ``F × C``
it fails.

Two rules make a verdict survive noise (docs/how-to/slow.md, "Verdicts that survive noise"):

- **confirmation**: a test past its limit fails only if it stays past the
  limit in every re-timing sample (:func:`confirm`); otherwise it is reported
  as *unconfirmed*, with its samples;
- **removable pins**: a pinned test is removable only after ``removable_after``
  consecutive runs within its tier budget (the history travels with the
  ratchet's last-run file and the envelope), never after one fast run.

Each tier's figures and the advice to tighten a budget are
:mod:`lanes.slow.tier_figures`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple

from lanes.slow.pins import Pin, PinList
from lanes.slow.tier_figures import round_up, tier_stats, tighten_hints

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from lanes.slow.settings import SlowConfig
    from lanes.slow.tier_figures import TierStats, TightenHint

__all__ = [
    "Judged",
    "Judgement",
    "Measurement",
    "PinReport",
    "PinState",
    "Timings",
    "Verdict",
    "confirm",
    "held_seconds",
    "judge",
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
    WITHIN_BUDGET = "within-budget"
    """Within the tier budget this run, but not yet for ``removable_after`` runs in a row."""
    NOT_RUN = "not-run"
    """The pinned test did not run in this session (deselected, or gone: see `lanes slow check`)."""


class Measurement(NamedTuple):
    """What one test cost. ``seconds`` is what the budget judges.

    Made only for the tests a judgement names (offenders, the band, pins, the
    slowest): the run's measurements travel as :class:`Timings` columns.
    """

    nodeid: str
    tier: str
    call: float
    """Duration of the call phase (the test function's body)."""
    fixtures: float = 0.0
    """Its setup phase less the shared fixtures set up in it: the setup of its
    function-scoped fixtures (and pytest's own, some microseconds)."""
    budget: float | None = None
    """The test's own budget (``@pytest.mark.slow_budget``); None = its tier's."""
    attempts: int = 1
    """Call phases run (pytest-rerunfailures reruns a test); the slowest is judged."""

    @property
    def seconds(self) -> float:
        return self.call + self.fixtures


class Timings:
    """What a run measured, by node id: the judgement's input.

    Columns rather than a :class:`Measurement` per test, because the session
    end's cost is per test (the bench lane holds the plugin to 2% of a suite's
    instructions) and most tests are only ever counted, never named.
    ``calls`` has an entry for every test that reached its call phase (and
    ``fixtures``, from pytest's reports, one for every passing setup); the
    other columns hold only what differs from the default.
    """

    __slots__ = ("attempts", "budgets", "calls", "fixtures", "tiers")

    def __init__(
        self,
        calls: dict[str, float],
        *,
        fixtures: dict[str, float] | None = None,
        tiers: Mapping[str, str] | None = None,
        budgets: Mapping[str, float] | None = None,
        attempts: Mapping[str, int] | None = None,
    ) -> None:
        self.calls = calls
        """Call-phase seconds."""
        self.fixtures = {} if fixtures is None else fixtures
        """Setup-phase seconds less shared fixtures (:class:`Measurement`); absent = none."""
        self.tiers: Mapping[str, str] = {} if tiers is None else tiers
        """Tier names; absent = the default tier."""
        self.budgets: Mapping[str, float] = {} if budgets is None else budgets
        """Own budgets (``@pytest.mark.slow_budget``); absent = the tier's."""
        self.attempts: Mapping[str, int] = {} if attempts is None else attempts
        """Call phases run, where more than one (reruns)."""

    def measurement(self, nodeid: str, default_tier: str) -> Measurement:
        return Measurement(
            nodeid,
            self.tiers.get(nodeid, default_tier),
            self.calls[nodeid],
            self.fixtures.get(nodeid, 0.0),
            self.budgets.get(nodeid),
            self.attempts.get(nodeid, 1),
        )


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
    samples: tuple[float, ...] = ()
    """Confirmation re-timings (seconds) of a test that went past its limit."""

    @property
    def nodeid(self) -> str:
        return self.measurement.nodeid


class PinReport(NamedTuple):
    pin: Pin
    state: PinState
    seconds: float | None
    budget: float
    history_ms: tuple[int, ...] = ()
    """This pin's recent measurements (ms), oldest first, this run included."""
    streak: int = 0
    """Consecutive runs, ending with the last one measured, within the tier budget."""


class Judgement:
    """One run's verdicts.

    The tests it names — offenders, the band, the unconfirmed, pinned tests —
    are :class:`Judged`; every other test is only a duration in ``seconds``
    and becomes a :class:`Judged` when asked for (:meth:`judged`,
    :meth:`slowest`): an object per test was most of the session end's cost on
    a suite of fast tests (the bench lane holds the plugin to 2%). A plain
    class, not a dataclass, for the same reason: this module is on the enabled
    plugin's import path, and creating a dataclass costs some 4 M instructions.
    """

    __slots__ = (
        "_members",
        "_run",
        "band",
        "fail_factor",
        "failures",
        "named",
        "ok",
        "pins",
        "seconds",
        "tiers",
        "tighten",
        "unconfirmed",
    )

    def __init__(
        self,
        *,
        fail_factor: float,
        seconds: Mapping[str, float],
        ok: int,
        failures: tuple[Judged, ...],
        band: tuple[Judged, ...],
        pins: tuple[PinReport, ...],
        tiers: tuple[TierStats, ...],
        tighten: tuple[TightenHint, ...],
        unconfirmed: tuple[Judged, ...] = (),
        run: _Run,
        named: Mapping[str, Judged],
        members: Mapping[str, Sequence[str]],
    ) -> None:
        self.fail_factor = fail_factor
        self.seconds = seconds
        """Every judged test's seconds, in node-id order."""
        self.ok = ok
        """Tests within their allowance."""
        self.failures = failures
        self.band = band
        self.pins = pins
        self.tiers = tiers
        self.tighten = tighten
        self.unconfirmed = unconfirmed
        """Past the limit once, but not in every confirmation sample: reported, not failing."""
        self.named = named
        """The tests judged in full (offenders, the band, pinned tests), by node id."""
        self._run = run
        self._members = members

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def count(self) -> int:
        """Tests judged: those that reached their call phase."""
        return len(self.seconds)

    def judged(self, nodeid: str) -> Judged:
        named = self.named.get(nodeid)
        return named if named is not None else self._run.judge(nodeid)

    def tests(self) -> list[tuple[str, str, float]]:
        """``(nodeid, tier, seconds)`` of every judged test, in node-id order."""
        tier_of, default = self._run.timings.tiers.get, self._run.default_tier
        return [(nodeid, tier_of(nodeid, default), took) for nodeid, took in self.seconds.items()]

    def near_budget(self, share: float) -> list[tuple[str, str, float]]:
        """``(nodeid, tier, seconds)`` of the tests at ``share`` of their budget or
        more, and of every test judged in full (offenders, band, pinned), in
        node-id order."""
        run, seconds, named = self._run, self.seconds, self.named
        floor = share * min((*run.budgets.values(), *run.timings.budgets.values()))
        tier_of, default = run.timings.tiers.get, run.default_tier
        near = []
        # One comparison a test first, in a comprehension: most tests are far
        # below the smallest budget (the bench lane holds the plugin to 2%).
        for nodeid in [n for n, took in seconds.items() if took >= floor or n in named]:
            tier = tier_of(nodeid, default)
            took = seconds[nodeid]
            if nodeid in named or took >= share * run.budget(nodeid, tier):
                near.append((nodeid, tier, took))
        return near

    def slowest(self, count: int = 10, tier: str | None = None) -> tuple[Judged, ...]:
        pool = self.seconds if tier is None else self._members.get(tier, ())
        # The pool is in node-id order and a reversed sort is still stable, so
        # equal durations stay in node-id order; the key is read in C.
        top = sorted(pool, key=self.seconds.__getitem__, reverse=True)[:count]
        return tuple(map(self.judged, top))

    def confirmed(
        self,
        failures: tuple[Judged, ...],
        unconfirmed: tuple[Judged, ...],
        pins: tuple[PinReport, ...],
    ) -> Judgement:
        """This judgement after confirmation (:func:`confirm`): the re-timed tests
        are named with their samples wherever it names them again (the slowest
        lists, the last-run record)."""
        retimed = {j.nodeid: j for j in (*failures, *unconfirmed)}
        return Judgement(
            fail_factor=self.fail_factor,
            seconds=self.seconds,
            ok=self.ok,
            failures=failures,
            band=self.band,
            pins=pins,
            tiers=self.tiers,
            tighten=self.tighten,
            unconfirmed=unconfirmed,
            run=self._run,
            named={**self.named, **retimed},
            members=self._members,
        )


class _Run:
    """What judging one test takes: the budgets, the pins and the run's timings."""

    __slots__ = ("budgets", "default_budget", "default_tier", "factor", "pins", "timings")

    def __init__(self, slow: SlowConfig, timings: Timings, pins: Mapping[str, Pin]) -> None:
        self.timings = timings
        self.pins = pins
        self.factor = slow.fail_factor
        self.default_tier = slow.default_tier
        self.budgets = {name: tier.budget for name, tier in slow.tiers.items()}
        # A test of a tier no longer configured is judged by the default tier's budget.
        self.default_budget = self.budgets[slow.default_tier]

    def budget(self, nodeid: str, tier: str) -> float:
        """The test's own budget, else its tier's (an unknown tier: the default's)."""
        own = self.timings.budgets.get(nodeid)
        return own if own is not None else self.budgets.get(tier, self.default_budget)

    def judge(self, nodeid: str) -> Judged:
        m = self.timings.measurement(nodeid, self.default_tier)
        return _judge_one(m, self.budget(nodeid, m.tier), self.factor, self.pins.get(nodeid))


CEILING_HEADROOM = 1.25
"""A suggested pin ceiling leaves a quarter on top of the measurement, so that
ordinary jitter does not put a freshly pinned test straight into the band."""


def suggested_ceiling(seconds: float) -> float:
    """The ceiling ``lanes slow pin`` defaults to (and failure messages suggest)."""
    return round_up(seconds * CEILING_HEADROOM)


def held_seconds(judged: Judged) -> float:
    """The duration a pin of this test should hold: its slowest re-timing when
    it was re-timed alone (serially, CPU wait taken out), else what the suite
    measured. A ceiling taken from a run under load is loose by the load's
    factor (an attrs test measured 3.0 s in the suite, 0.76 s re-timed)."""
    return max(judged.samples) if judged.samples else judged.seconds


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


HISTORY_KEPT = 20
"""Measurements kept per pin: enough for any sensible ``removable_after``."""


def _streak(history_ms: Sequence[int], budget: float) -> int:
    limit_ms = round(budget * 1000)
    streak = 0
    for ms in reversed(history_ms):
        if ms > limit_ms:
            break
        streak += 1
    return streak


def _pin_state(judged: Judged, streak: int, removable_after: int) -> PinState:
    if judged.seconds <= judged.budget:
        return PinState.REMOVABLE if streak >= removable_after else PinState.WITHIN_BUDGET
    if judged.verdict is Verdict.OK:
        return PinState.HOLDING
    if judged.verdict is Verdict.BAND:
        return PinState.OVER_CEILING
    return PinState.BROKEN


def _pin_reports(
    slow: SlowConfig,
    by_nodeid: Mapping[str, Pin],
    seen: Mapping[str, Judged],
    history: Mapping[str, Sequence[int]],
) -> list[PinReport]:
    reports: list[PinReport] = []
    for nodeid, pin in sorted(by_nodeid.items()):
        ran = seen.get(nodeid)
        previous = tuple(history.get(nodeid, ()))
        if ran is None:
            # Not run (deselected, partial run): the streak neither grows nor breaks.
            tier = slow.tiers.get(pin.tier) or slow.tiers[slow.default_tier]
            streak = _streak(previous, tier.budget)
            reports.append(
                PinReport(
                    pin, PinState.NOT_RUN, None, tier.budget, previous[-HISTORY_KEPT:], streak
                )
            )
            continue
        kept = (*previous, round(ran.seconds * 1000))[-HISTORY_KEPT:]
        streak = _streak(kept, ran.budget)
        state = _pin_state(ran, streak, slow.removable_after)
        reports.append(PinReport(pin, state, ran.seconds, ran.budget, kept, streak))
    return reports


def judge(
    slow: SlowConfig,
    timings: Timings,
    pins: PinList | Mapping[str, Pin],
    history: Mapping[str, Sequence[int]] | None = None,
) -> Judgement:
    """Judge every timed test; ``pins`` by node id; ``history``: each pin's earlier ms."""
    by_nodeid = pins.pins if isinstance(pins, PinList) else pins
    run = _Run(slow, timings, by_nodeid)
    default_tier, default_budget = run.default_tier, run.default_budget
    # Comprehensions over the columns, in C where they can be: a test within
    # its budget and unpinned is fine whatever else holds, so only the others
    # are judged in full (the bench lane holds the plugin to 2% of a suite's
    # instructions, and most of a suite's tests are fast).
    calls, setup_of = timings.calls, timings.fixtures.get
    seconds = {nodeid: calls[nodeid] + setup_of(nodeid, 0.0) for nodeid in sorted(calls)}
    members: dict[str, list[str]] = {name: [] for name in slow.tiers}
    tiers = timings.tiers
    if tiers:
        tier_of = tiers.get
        for nodeid in seconds:
            group = members.get(tier_of(nodeid, default_tier))
            if group is not None:
                group.append(nodeid)
        budget_of = run.budgets.get
        over = {
            nodeid
            for nodeid, took in seconds.items()
            if took > budget_of(tier_of(nodeid, default_tier), default_budget)
        }
    else:
        members[default_tier] = list(seconds)
        over = {nodeid for nodeid, took in seconds.items() if took > default_budget}
    # An own budget replaces the tier's: a test within a larger one is judged
    # (fine) with the rest, one past a smaller one is over too.
    over.update(n for n, own in timings.budgets.items() if n in seconds and seconds[n] > own)
    over.update(n for n in by_nodeid if n in seconds)
    named = sorted(over)
    judged = {nodeid: run.judge(nodeid) for nodeid in named}
    failures = tuple(j for j in judged.values() if j.verdict is Verdict.FAIL)
    band = tuple(j for j in judged.values() if j.verdict is Verdict.BAND)
    seen = {nodeid: j for nodeid, j in judged.items() if j.pin is not None}
    reports = _pin_reports(slow, by_nodeid, seen, history or {})
    stats = tier_stats(slow, seconds, members)
    return Judgement(
        fail_factor=slow.fail_factor,
        seconds=seconds,
        ok=len(seconds) - len(failures) - len(band),
        failures=failures,
        band=band,
        pins=tuple(reports),
        tiers=stats,
        tighten=tighten_hints(slow, stats),
        run=run,
        named=judged,
        members=members,
    )


def confirm(judgement: Judgement, samples: Mapping[str, Sequence[float]]) -> Judgement:
    """Keep a failure only if every confirmation sample of it stays past its limit.

    ``samples`` by node id: a failure without an entry was not re-timed
    (``confirm = 0``) and stands; one whose re-timing measured nothing (the
    test did not run again) stands too: noise is never assumed. An
    unconfirmed failure moves to ``unconfirmed`` and its pin, if any, reads
    ``over-ceiling``: reported, not failing.
    """
    failures: list[Judged] = []
    unconfirmed: list[Judged] = []
    for judged in judgement.failures:
        taken = samples.get(judged.nodeid)
        if taken is None:
            failures.append(judged)
            continue
        timed = judged._replace(samples=tuple(taken))
        if all(sample > judged.limit for sample in taken):
            failures.append(timed)
        else:
            unconfirmed.append(timed)
    if not unconfirmed and not samples:
        return judgement
    noise = {j.nodeid for j in unconfirmed}
    pins = tuple(
        report._replace(state=PinState.OVER_CEILING)
        if report.pin.nodeid in noise and report.state is PinState.BROKEN
        else report
        for report in judgement.pins
    )
    return judgement.confirmed(tuple(failures), tuple(unconfirmed), pins)
