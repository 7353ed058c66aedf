"""The pure judgement: band, failure, pins and their states, tighten hints."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from lanes.config import parse_config
from lanes.slow.pins import Pin
from lanes.slow.tier_figures import round_up
from lanes.slow.verdicts import PinState, Timings, Verdict, judge

if TYPE_CHECKING:
    from lanes.slow.settings import SlowConfig


@pytest.fixture
def slow() -> SlowConfig:
    table = {
        "fail_factor": 2.0,
        "tighten_below": 0.25,
        "tiers": {"unit": {"budget": 1.0}, "integration": {"budget": 10.0}},
    }
    return parse_config({"slow": table}, root=Path("/p")).slow


def _timed(*tests: tuple[str, str, float]) -> Timings:
    """Call-phase seconds of (nodeid, tier, seconds) tests."""
    return Timings({n: s for n, _, s in tests}, tiers={n: t for n, t, _ in tests})


def _pin(nodeid: str, ceiling: float, tier: str = "unit") -> Pin:
    return Pin(nodeid, tier, ceiling, "talks to a real database", "#12", "2026-01-01")


@pytest.mark.parametrize(
    ("seconds", "verdict"),
    [
        (0.5, Verdict.OK),
        (1.0, Verdict.OK),
        (1.5, Verdict.BAND),
        (2.0, Verdict.BAND),
        (2.01, Verdict.FAIL),
    ],
)
def test_band_boundaries(slow: SlowConfig, seconds: float, verdict: Verdict) -> None:
    judgement = judge(slow, _timed(("t.py::a", "unit", seconds)), {})
    assert judgement.judged("t.py::a").verdict is verdict
    assert judgement.ok == (verdict is Verdict.OK)
    assert judgement.passed is (verdict is not Verdict.FAIL)


def test_function_fixture_setup_is_charged(slow: SlowConfig) -> None:
    judgement = judge(slow, Timings({"t.py::a": 0.9}, fixtures={"t.py::a": 1.2}), {})
    assert judgement.seconds["t.py::a"] == pytest.approx(2.1)
    assert judgement.failures[0].nodeid == "t.py::a"
    assert judgement.failures[0].measurement.fixtures == pytest.approx(1.2)


def test_pins_judge_against_their_own_ceiling(slow: SlowConfig) -> None:
    pins = {
        "t.py::removable": _pin("t.py::removable", 5.0),
        "t.py::holding": _pin("t.py::holding", 5.0),
        "t.py::over": _pin("t.py::over", 5.0),
        "t.py::broken": _pin("t.py::broken", 5.0),
        "t.py::gone": _pin("t.py::gone", 5.0),
    }
    measured = _timed(
        ("t.py::removable", "unit", 0.2),
        ("t.py::holding", "unit", 4.0),
        ("t.py::over", "unit", 7.0),
        ("t.py::broken", "unit", 10.5),
    )
    # Two earlier runs within the 2.5 s budget, and this one: removable_after = 3.
    judgement = judge(slow, measured, pins, {"t.py::removable": [300, 250]})
    states = {r.pin.nodeid: r.state for r in judgement.pins}
    assert states == {
        "t.py::removable": PinState.REMOVABLE,
        "t.py::holding": PinState.HOLDING,
        "t.py::over": PinState.OVER_CEILING,
        "t.py::broken": PinState.BROKEN,
        "t.py::gone": PinState.NOT_RUN,
    }
    assert [j.nodeid for j in judgement.failures] == ["t.py::broken"]
    assert [j.nodeid for j in judgement.band] == ["t.py::over"]
    assert judgement.failures[0].limit == pytest.approx(10.0)


def test_a_ceiling_below_the_budget_is_never_stricter_than_no_pin(slow: SlowConfig) -> None:
    judgement = judge(slow, _timed(("t.py::a", "unit", 1.5)), {"t.py::a": _pin("t.py::a", 0.1)})
    assert judgement.judged("t.py::a").verdict is Verdict.BAND


def test_tiers_and_tighten_hints(slow: SlowConfig) -> None:
    measured = _timed(
        ("t.py::a", "unit", 0.9),
        ("t.py::b", "unit", 0.1),
        ("t.py::c", "integration", 1.0),
    )
    judgement = judge(slow, measured, {})
    by_name = {t.name: t for t in judgement.tiers}
    assert by_name["unit"].count == 2
    assert by_name["unit"].max == pytest.approx(0.9)
    assert by_name["unit"].slowest == "t.py::a"
    assert by_name["integration"].p50 == pytest.approx(1.0)
    # integration's slowest test uses 10% of its budget: a budget nobody approaches.
    assert [h.tier for h in judgement.tighten] == ["integration"]
    hint = judgement.tighten[0]
    assert hint.suggestion == pytest.approx(3.0)  # 3x the slowest: headroom for jitter
    assert "protects nothing" in hint.message()


def test_the_tighten_advice_does_not_ratchet_toward_jitter() -> None:
    # Regression: each run suggested 2x its slowest test, 2.5 -> 0.13 ->
    # 0.065 s: a budget the next busy runner's jitter fails.
    budget, suggested = 2.5, []
    for slowest in (0.065, 0.031, 0.04, 0.02):
        table = {"tighten_below": 0.25, "tiers": {"unit": {"budget": budget}}}
        config = parse_config({"slow": table}, root=Path("/p")).slow
        hints = judge(config, _timed(("t.py::a", "unit", slowest)), {}).tighten
        if hints:
            budget = hints[0].suggestion
            suggested.append(budget)
    # One cut, to the floor (3x the slowest test is below it), and no more.
    assert suggested == [0.25]


def test_an_empty_tier_gets_no_hint(slow: SlowConfig) -> None:
    assert judge(slow, Timings({}), {}).tighten == ()


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [(0.2134, 0.22), (1.0, 1.0), (12.01, 13.0), (0.0004, 0.0004), (0.0, 0.01)],
)
def test_round_up(seconds: float, expected: float) -> None:
    assert round_up(seconds) == pytest.approx(expected)


def test_one_fast_run_does_not_make_a_pin_removable(slow: SlowConfig) -> None:
    pins = {"t.py::p": _pin("t.py::p", 5.0)}
    fast = _timed(("t.py::p", "unit", 0.2))
    first = judge(slow, fast, pins)
    assert [(r.state, r.streak, r.history_ms) for r in first.pins] == [
        (PinState.WITHIN_BUDGET, 1, (200,))
    ]
    # A run over the budget in between breaks the streak.
    broken = judge(slow, fast, pins, {"t.py::p": [100, 4000, 120]})
    assert [(r.state, r.streak) for r in broken.pins] == [(PinState.WITHIN_BUDGET, 2)]
    third = judge(slow, fast, pins, {"t.py::p": [4000, 100, 120]})
    assert [(r.state, r.streak) for r in third.pins] == [(PinState.REMOVABLE, 3)]
    # Not run: the history and the streak stay as they were.
    skipped = judge(slow, Timings({}), pins, {"t.py::p": [100, 120]})
    assert [(r.state, r.streak, r.history_ms) for r in skipped.pins] == [
        (PinState.NOT_RUN, 2, (100, 120))
    ]
