"""A judgement after confirmation, and what it names: the slowest tests, a pin's ceiling.

:func:`lanes.slow.verdicts.confirm` keeps a failure only when every re-timing
stays past its limit; the rest of the judgement must come through unchanged.
Pure functions, called directly on real configuration.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from lanes.config import parse_config
from lanes.slow.pins import Pin
from lanes.slow.verdicts import (
    PinState,
    Timings,
    Verdict,
    confirm,
    held_seconds,
    judge,
    suggested_ceiling,
)

if TYPE_CHECKING:
    from lanes.slow.settings import SlowConfig
    from lanes.slow.verdicts import Judgement


@pytest.fixture
def slow() -> SlowConfig:
    # unit: band 1-2 s, fails past 2 s; integration: band 10-20 s.
    table = {
        "fail_factor": 2.0,
        "tighten_below": 0.25,
        "tiers": {"unit": {"budget": 1.0}, "integration": {"budget": 10.0}},
    }
    return parse_config({"slow": table}, root=Path("/p")).slow


def _pin(nodeid: str, ceiling: float) -> Pin:
    return Pin(nodeid, "unit", ceiling, "talks to a real database", "#12", "2026-01-01")


def _two_offenders(slow: SlowConfig) -> Judgement:
    """t.py::noisy (3 s, unpinned) and t.py::pinned (5 s, ceiling 2: limit 4) fail;
    t.py::band is in the band, t.py::fast fine."""
    timings = Timings(
        {"t.py::band": 1.5, "t.py::fast": 0.1, "t.py::noisy": 3.0, "t.py::pinned": 5.0}
    )
    judgement = judge(slow, timings, {"t.py::pinned": _pin("t.py::pinned", 2.0)})
    assert [j.nodeid for j in judgement.failures] == ["t.py::noisy", "t.py::pinned"]
    return judgement


def test_without_retimings_every_failure_stands(slow: SlowConfig) -> None:
    judgement = _two_offenders(slow)
    assert confirm(judgement, {}) is judgement  # nothing re-timed: nothing to change


def test_a_failure_past_its_limit_in_every_sample_stays_a_failure(slow: SlowConfig) -> None:
    confirmed = confirm(_two_offenders(slow), {"t.py::noisy": [2.5, 3.1]})
    assert [(j.nodeid, j.samples) for j in confirmed.failures] == [
        ("t.py::noisy", (2.5, 3.1)),
        ("t.py::pinned", ()),  # not re-timed: stands as measured
    ]
    assert confirmed.unconfirmed == ()
    assert not confirmed.passed
    # Named with its samples wherever the judgement names it again.
    assert confirmed.judged("t.py::noisy").samples == (2.5, 3.1)
    assert [(j.nodeid, j.samples) for j in confirmed.slowest(2)][1] == ("t.py::noisy", (2.5, 3.1))


def test_a_failure_within_its_limit_once_is_unconfirmed_and_reported(slow: SlowConfig) -> None:
    judgement = _two_offenders(slow)
    # 2.0 s is exactly the limit: within it, so the first offender was noise.
    confirmed = confirm(judgement, {"t.py::noisy": [2.5, 2.0]})
    assert [j.nodeid for j in confirmed.failures] == ["t.py::pinned"]
    assert [(j.nodeid, j.samples, j.verdict) for j in confirmed.unconfirmed] == [
        ("t.py::noisy", (2.5, 2.0), Verdict.FAIL)
    ]
    assert confirmed.judged("t.py::noisy").samples == (2.5, 2.0)
    # Everything else is the judgement it was.
    assert confirmed.band == judgement.band
    assert confirmed.seconds == judgement.seconds
    assert confirmed.ok == judgement.ok == 1
    assert confirmed.tiers == judgement.tiers
    assert confirmed.tighten == judgement.tighten
    assert confirmed.fail_factor == judgement.fail_factor == 2.0
    assert confirmed.judged("t.py::band").verdict is Verdict.BAND
    assert confirmed.judged("t.py::fast").verdict is Verdict.OK
    assert [t[0] for t in confirmed.tests()] == list(judgement.seconds)


def test_an_unconfirmed_pinned_test_reads_over_ceiling_not_broken(slow: SlowConfig) -> None:
    judgement = _two_offenders(slow)
    assert [r.state for r in judgement.pins] == [PinState.BROKEN]
    noise = confirm(judgement, {"t.py::pinned": [5.0, 3.9]})
    assert noise.passed is False  # t.py::noisy was not re-timed: it stands
    assert [(r.pin.nodeid, r.state) for r in noise.pins] == [
        ("t.py::pinned", PinState.OVER_CEILING)
    ]
    # Confirmed in every sample: the pin stays broken.
    real = confirm(judgement, {"t.py::pinned": [5.0, 4.1], "t.py::noisy": [1.0]})
    assert [r.state for r in real.pins] == [PinState.BROKEN]
    assert [j.nodeid for j in real.unconfirmed] == ["t.py::noisy"]
    assert [j.nodeid for j in real.failures] == ["t.py::pinned"]


def test_a_pin_of_an_unconfirmed_test_that_was_not_broken_keeps_its_state(
    slow: SlowConfig,
) -> None:
    pins = {"t.py::held": _pin("t.py::held", 2.0), "t.py::noisy": _pin("t.py::noisy", 1.0)}
    timings = Timings({"t.py::held": 1.5, "t.py::noisy": 3.0})
    judgement = judge(slow, timings, pins)
    confirmed = confirm(judgement, {"t.py::noisy": [1.0]})
    assert [(r.pin.nodeid, r.state) for r in confirmed.pins] == [
        ("t.py::held", PinState.HOLDING),
        ("t.py::noisy", PinState.OVER_CEILING),
    ]
    assert confirmed.passed


def test_a_retiming_that_measured_nothing_leaves_the_failure_standing(slow: SlowConfig) -> None:
    # The test did not run again: noise is never assumed.
    confirmed = confirm(_two_offenders(slow), {"t.py::noisy": []})
    assert [j.nodeid for j in confirmed.failures] == ["t.py::noisy", "t.py::pinned"]
    assert confirmed.unconfirmed == ()


def test_the_slowest_tests_come_first_and_ties_keep_node_id_order(slow: SlowConfig) -> None:
    timings = Timings(
        {"t.py::c": 0.3, "t.py::a": 0.3, "t.py::b": 0.9, "t.py::d": 0.1, "t.py::e": 12.0},
        tiers={"t.py::e": "integration"},
    )
    judgement = judge(slow, timings, {})
    assert [j.nodeid for j in judgement.slowest()] == [
        "t.py::e",
        "t.py::b",
        "t.py::a",
        "t.py::c",
        "t.py::d",
    ]
    assert [(j.nodeid, j.seconds) for j in judgement.slowest(2)] == [
        ("t.py::e", 12.0),
        ("t.py::b", 0.9),
    ]
    # Judged in full on demand, each by its own tier's budget.
    unit = judgement.slowest(2, tier="unit")
    assert [(j.nodeid, j.budget, j.verdict) for j in unit] == [
        ("t.py::b", 1.0, Verdict.OK),
        ("t.py::a", 1.0, Verdict.OK),
    ]
    assert [(j.nodeid, j.budget, j.verdict) for j in judgement.slowest(tier="integration")] == [
        ("t.py::e", 10.0, Verdict.BAND)
    ]
    assert judgement.slowest(tier="nightly") == ()


def test_at_most_ten_slowest_by_default(slow: SlowConfig) -> None:
    timings = Timings({f"t.py::t{i:02}": i / 100 for i in range(12)})
    slowest = judge(slow, timings, {}).slowest()
    assert [j.nodeid for j in slowest] == [f"t.py::t{i:02}" for i in range(11, 1, -1)]


@pytest.mark.parametrize(
    ("seconds", "ceiling"),
    [(2.0, 2.5), (0.81, 1.1), (3.2, 4.0), (0.0, 0.01)],
)
def test_a_suggested_ceiling_leaves_a_quarter_on_top_rounded_up(
    seconds: float, ceiling: float
) -> None:
    assert suggested_ceiling(seconds) == pytest.approx(ceiling)


def test_a_pin_holds_the_slowest_retiming_else_the_suite_measurement(slow: SlowConfig) -> None:
    judgement = _two_offenders(slow)
    confirmed = confirm(judgement, {"t.py::noisy": [2.5, 2.9, 2.6]})
    assert held_seconds(confirmed.judged("t.py::noisy")) == pytest.approx(2.9)
    assert held_seconds(confirmed.judged("t.py::pinned")) == pytest.approx(5.0)
