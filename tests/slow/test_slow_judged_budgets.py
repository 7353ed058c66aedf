"""What each test is judged against, and what a judgement reports about a tier.

A test's own budget (``@pytest.mark.slow_budget``) replaces its tier's; a test
of a tier no longer configured is judged by the default tier; reruns are
counted; the tests near their budget and every tier's figures (count, total,
percentiles, slowest) are what the report and ``lanes slow propose`` read;
the tighten advice and a pin's history have exact boundaries. Pure functions,
called directly on real configuration.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from lanes.config import parse_config
from lanes.slow.pins import Pin, PinList
from lanes.slow.verdicts import PinState, Timings, Verdict, confirm, judge

if TYPE_CHECKING:
    from lanes.slow.settings import SlowConfig


def _config(**table: object) -> SlowConfig:
    # unit: fine up to 1 s, band to 2 s; integration: fine up to 10 s, band to 20 s.
    tiers = {"unit": {"budget": 1.0}, "integration": {"budget": 10.0}}
    return parse_config(
        {"slow": {"fail_factor": 2.0, "tighten_below": 0.25, "tiers": tiers, **table}},
        root=Path("/p"),
    ).slow


@pytest.fixture
def slow() -> SlowConfig:
    return _config()


def _pin(nodeid: str, ceiling: float, tier: str = "unit") -> Pin:
    return Pin(nodeid, tier, ceiling, "talks to a real database", "#12", "2026-01-01")


def test_an_own_budget_replaces_the_tier_budget(slow: SlowConfig) -> None:
    timings = Timings(
        {"t.py::tight": 0.6, "t.py::tighter": 1.1, "t.py::loose": 3.0, "t.py::plain": 0.6},
        tiers={"t.py::tight": "unit", "t.py::loose": "unit"},
        budgets={"t.py::tight": 0.5, "t.py::tighter": 0.5, "t.py::loose": 5.0},
    )
    judgement = judge(slow, timings, {})
    judged = {n: judgement.judged(n) for n in timings.calls}
    assert {n: (j.budget, j.limit, j.verdict) for n, j in judged.items()} == {
        "t.py::tight": (0.5, 1.0, Verdict.BAND),
        "t.py::tighter": (0.5, 1.0, Verdict.FAIL),
        "t.py::loose": (5.0, 10.0, Verdict.OK),
        "t.py::plain": (1.0, 2.0, Verdict.OK),
    }
    assert judged["t.py::tight"].measurement.budget == 0.5
    assert judged["t.py::plain"].measurement.budget is None
    assert [j.nodeid for j in judgement.failures] == ["t.py::tighter"]
    assert [j.nodeid for j in judgement.band] == ["t.py::tight"]


def test_a_test_of_a_tier_no_longer_configured_is_judged_by_the_default_tier(
    slow: SlowConfig,
) -> None:
    timings = Timings({"t.py::gone": 1.5, "t.py::unit": 0.1}, tiers={"t.py::gone": "nightly"})
    judgement = judge(slow, timings, {})
    gone = judgement.judged("t.py::gone")
    assert (gone.measurement.tier, gone.budget, gone.verdict) == ("nightly", 1.0, Verdict.BAND)
    assert judgement.tests() == [("t.py::gone", "nightly", 1.5), ("t.py::unit", "unit", 0.1)]
    # Counted in no configured tier's figures.
    assert [(t.name, t.count) for t in judgement.tiers] == [("unit", 1), ("integration", 0)]


def test_reruns_are_counted_on_the_judged_test(slow: SlowConfig) -> None:
    timings = Timings({"t.py::flaky": 2.5, "t.py::once": 2.5}, attempts={"t.py::flaky": 3})
    judgement = judge(slow, timings, {})
    assert judgement.judged("t.py::flaky").measurement.attempts == 3
    assert judgement.judged("t.py::once").measurement.attempts == 1


def test_a_judged_test_carries_its_tier_and_allowance(slow: SlowConfig) -> None:
    timings = Timings({"t.py::pinned": 4.0, "t.py::slow": 2.5}, tiers={"t.py::slow": "unit"})
    judgement = judge(slow, timings, PinList("p.json", {"t.py::pinned": _pin("t.py::pinned", 3.0)}))
    pinned, plain = judgement.judged("t.py::pinned"), judgement.judged("t.py::slow")
    assert (pinned.measurement.tier, pinned.allowance, pinned.limit) == ("unit", 3.0, 6.0)
    assert (plain.measurement.tier, plain.allowance, plain.limit) == ("unit", 1.0, 2.0)
    assert [(r.pin.nodeid, r.state, r.seconds, r.budget) for r in judgement.pins] == [
        ("t.py::pinned", PinState.OVER_CEILING, 4.0, 1.0)
    ]


def test_near_budget_names_every_test_judged_in_full_and_those_close_to_their_budget(
    slow: SlowConfig,
) -> None:
    timings = Timings(
        {
            "t.py::a_offender": 2.5,
            "t.py::b_at_budget": 1.0,
            "t.py::c_close": 0.85,
            "t.py::d_far": 0.5,
            "t.py::e_own": 0.45,
            "t.py::f_integration": 8.0,
            "t.py::g_integration_far": 1.0,
            "t.py::h_pinned": 0.1,
        },
        tiers={"t.py::f_integration": "integration", "t.py::g_integration_far": "integration"},
        budgets={"t.py::e_own": 0.5},
    )
    judgement = judge(slow, timings, {"t.py::h_pinned": _pin("t.py::h_pinned", 3.0)})
    assert judgement.near_budget(0.8) == [
        ("t.py::a_offender", "unit", 2.5),
        ("t.py::b_at_budget", "unit", 1.0),
        ("t.py::c_close", "unit", 0.85),
        ("t.py::e_own", "unit", 0.45),
        ("t.py::f_integration", "integration", 8.0),
        ("t.py::h_pinned", "unit", 0.1),
    ]
    # Exactly at the share of the smallest budget is near it too.
    assert judge(slow, Timings({"t.py::a": 0.8}), {}).near_budget(0.8) == [("t.py::a", "unit", 0.8)]
    # Past twice its budget only the offender is; the pinned test is named anyway.
    assert judgement.near_budget(2.0) == [
        ("t.py::a_offender", "unit", 2.5),
        ("t.py::h_pinned", "unit", 0.1),
    ]


def test_a_test_exactly_at_its_budget_is_fine_and_not_named(slow: SlowConfig) -> None:
    timings = Timings(
        {"t.py::tier": 1.0, "t.py::own": 0.5, "t.py::integration": 10.0},
        tiers={"t.py::integration": "integration"},
        budgets={"t.py::own": 0.5},
    )
    judgement = judge(slow, timings, {})
    assert judgement.ok == 3
    assert judgement.near_budget(2.0) == []
    # Without tiers assigned, the default tier's budget decides the same way.
    assert judge(slow, Timings({"t.py::tier": 1.0}), {}).near_budget(2.0) == []


def test_each_tier_reports_its_count_total_percentiles_and_slowest(slow: SlowConfig) -> None:
    seconds = {f"t.py::t{i:02}": i / 10 for i in range(1, 11)}  # 0.1 .. 1.0
    judgement = judge(slow, Timings(seconds, tiers=dict.fromkeys(seconds, "unit")), {})
    unit, integration = judgement.tiers
    assert (unit.name, unit.budget, unit.count) == ("unit", 1.0, 10)
    assert unit.total == pytest.approx(5.5)
    assert (unit.p50, unit.p90, unit.max, unit.slowest) == (0.5, 0.9, 1.0, "t.py::t10")
    assert (integration.name, integration.budget, integration.count) == ("integration", 10.0, 0)
    assert (integration.total, integration.p50, integration.p90, integration.max) == (0, 0, 0, 0)
    assert integration.slowest is None


def test_one_test_is_every_percentile_of_its_tier(slow: SlowConfig) -> None:
    (unit, _) = judge(slow, Timings({"t.py::a": 0.3}), {}).tiers
    assert (unit.count, unit.total, unit.p50, unit.p90, unit.max) == (1, 0.3, 0.3, 0.3, 0.3)


def test_the_tighten_hint_is_worded_with_its_figures() -> None:
    (hint,) = judge(
        _config(), Timings({"t.py::a": 0.6}, tiers={"t.py::a": "integration"}), {}
    ).tighten
    assert (hint.tier, hint.budget, hint.slowest, hint.suggestion) == (
        "integration",
        10.0,
        0.6,
        1.8,
    )
    assert hint.share == pytest.approx(0.06)
    assert hint.message() == (
        "tier 'integration': its slowest test takes 0.6 s, 6% of its 10 s budget — a budget "
        "nobody approaches protects nothing; consider budget = 1.8 "
        "(lanes slow propose --write sets it)"
    )


def test_a_tier_at_the_tighten_share_gets_no_hint() -> None:
    # 2.5 s is exactly tighten_below (0.25) of the 10 s budget.
    timings = Timings({"t.py::a": 2.5}, tiers={"t.py::a": "integration"})
    assert judge(_config(), timings, {}).tighten == ()


def test_a_tier_exactly_at_a_low_tighten_share_gets_no_hint() -> None:
    # 1 s is exactly tighten_below (0.1) of 10 s; 3x of it would halve the budget.
    config = _config(tighten_below=0.1, tiers={"unit": {"budget": 10.0}})
    assert judge(config, Timings({"t.py::a": 1.0}), {}).tighten == ()
    (hint,) = judge(config, Timings({"t.py::a": 0.99}), {}).tighten
    assert hint.suggestion == pytest.approx(3.0)


def test_a_hint_that_halves_the_budget_exactly_is_given() -> None:
    # 3x the slowest (0.8 s * 3 = 2.4 s) against a 4.8 s budget: exactly half.
    config = _config(tiers={"unit": {"budget": 4.8}})
    (hint,) = judge(config, Timings({"t.py::a": 0.8}), {}).tighten
    assert hint.suggestion == pytest.approx(2.4)
    # 3x of 1.2 s is 3.6 s, more than half of a 6 s budget: not worth a cut.
    assert (
        judge(_config(tiers={"unit": {"budget": 6.0}}), Timings({"t.py::a": 1.2}), {}).tighten == ()
    )
    # Between a third and a half of the budget: still a cut worth making.
    (hint,) = judge(_config(tiers={"unit": {"budget": 7.0}}), Timings({"t.py::a": 1.0}), {}).tighten
    assert hint.suggestion == pytest.approx(3.0)


def test_a_tier_without_a_worthwhile_cut_does_not_hide_the_next_tiers_hint() -> None:
    # unit: 3x of 0.2 s is 0.6 s, more than half of its 1 s budget: no hint;
    # integration, configured after it, still gets its own.
    timings = Timings(
        {"t.py::a": 0.2, "t.py::b": 0.6}, tiers={"t.py::a": "unit", "t.py::b": "integration"}
    )
    assert [h.tier for h in judge(_config(), timings, {}).tighten] == ["integration"]


def test_a_pin_run_exactly_at_the_tier_budget_is_within_it(slow: SlowConfig) -> None:
    pins = {"t.py::p": _pin("t.py::p", 5.0)}
    judgement = judge(slow, Timings({"t.py::p": 1.0}), pins, {"t.py::p": [1000, 1001]})
    # 1001 ms breaks the streak; this run (1000 ms, exactly the budget) starts a new one.
    assert [(r.state, r.streak, r.history_ms) for r in judgement.pins] == [
        (PinState.WITHIN_BUDGET, 1, (1000, 1001, 1000))
    ]


def test_a_pins_history_records_its_milliseconds(slow: SlowConfig) -> None:
    pins = {"t.py::p": _pin("t.py::p", 5.0)}
    (report,) = judge(slow, Timings({"t.py::p": 1.5}), pins).pins
    assert (report.state, report.seconds, report.budget, report.history_ms) == (
        PinState.HOLDING,
        1.5,
        1.0,
        (1500,),
    )


def test_a_pin_that_did_not_run_reports_its_tier_budget(slow: SlowConfig) -> None:
    pins = {
        "t.py::integration": _pin("t.py::integration", 30.0, tier="integration"),
        "t.py::gone_tier": _pin("t.py::gone_tier", 3.0, tier="nightly"),
    }
    reports = judge(slow, Timings({}), pins, {"t.py::integration": [9000, 11000, 9500]}).pins
    assert [(r.pin.nodeid, r.state, r.seconds, r.budget, r.streak) for r in reports] == [
        ("t.py::gone_tier", PinState.NOT_RUN, None, 1.0, 0),
        ("t.py::integration", PinState.NOT_RUN, None, 10.0, 1),
    ]


def test_the_slowest_of_a_tier_survive_confirmation(slow: SlowConfig) -> None:
    timings = Timings({"t.py::a": 3.0, "t.py::b": 0.5})
    confirmed = confirm(judge(slow, timings, {}), {"t.py::a": [1.0]})
    assert [(j.nodeid, j.samples) for j in confirmed.slowest(tier="unit")] == [
        ("t.py::a", (1.0,)),
        ("t.py::b", ()),
    ]
