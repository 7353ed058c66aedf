"""The timing lane sizes its runs to the suite: a 3 s suite gets its
three runs per arm, a 30-minute suite one and no second arm, and the envelope
says what was chosen and why."""

from __future__ import annotations

import pytest

from lanes.timing.settings import AUTO_REPEAT
from lanes.timing.sizing import LANE_BUDGET_S, SECOND_ARM_UNDER_S, choose


@pytest.mark.parametrize(
    ("first_s", "comparable", "repeat"),
    [
        (3.0, True, AUTO_REPEAT),  # 2 arms x 3 runs = 18 s: well inside the budget
        (7.0, True, 2),  # 2 x 2 x 7 s = 28 s
        (10.0, True, 2),  # 40 s
        (10.0, False, AUTO_REPEAT),  # one arm: 3 x 10 s = 30 s
        (30.0, True, 1),
        (59.0, True, 1),  # the old rule gave 3 runs per arm here: six minutes of lane
        (1800.0, True, 1),
    ],
)
def test_the_automatic_repeat_fits_the_lane_budget(
    first_s: float, comparable: bool, repeat: int
) -> None:
    sized, _ = choose(first_s, repeat=None, comparable=comparable, workers_set=False)
    assert sized["repeat"] == repeat
    assert sized["chosen_by"] == "automatic"
    assert sized["arms"] * sized["repeat"] * first_s <= max(LANE_BUDGET_S, sized["arms"] * first_s)
    assert f"the first run took {first_s:.1f} s" in sized["reason"] or "min" in sized["reason"]


def test_a_suite_of_half_an_hour_gets_one_run_and_no_second_arm() -> None:
    sized, no_second_arm = choose(1800.0, repeat=None, comparable=True, workers_set=False)
    assert (sized["repeat"], sized["arms"]) == (1, 1)
    assert sized["first_run_ms"] == 1_800_000
    assert no_second_arm is not None
    assert "30.0 min" in no_second_arm
    assert "set workers to compare" in no_second_arm
    assert no_second_arm in sized["reason"]


def test_configured_workers_ask_for_the_comparison_whatever_it_costs() -> None:
    sized, no_second_arm = choose(
        SECOND_ARM_UNDER_S, repeat=None, comparable=True, workers_set=True
    )
    assert sized["arms"] == 2
    assert no_second_arm is None


def test_a_configured_repeat_is_kept_and_said() -> None:
    sized, _ = choose(1800.0, repeat=5, comparable=True, workers_set=True)
    assert (sized["repeat"], sized["chosen_by"]) == (5, "configured")
    assert sized["reason"] == "5 runs per arm, as configured"
