"""How many runs the timing lane gives a suite, chosen from what its first run cost.

The lane's spread needs a few runs of a cheap suite and cannot afford them of
an expensive one: three runs per arm of a 3 s suite cost seconds, five of a
30-minute suite cost five hours. So, unless ``repeat`` is configured, the runs
per arm are what fits ``LANE_BUDGET_S`` of measuring (at most ``AUTO_REPEAT``,
at least one), and the xdist comparison's second arm — which doubles the
lane — is left out when one run already takes ``SECOND_ARM_UNDER_S`` or more,
unless ``workers`` is configured. The choice and its reason ride in the
envelope (``suites[].sizing``) and the report shows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from lanes.timing.settings import AUTO_REPEAT

if TYPE_CHECKING:
    from lanes.payloads.timing import TimingSizing

__all__ = ["LANE_BUDGET_S", "SECOND_ARM_UNDER_S", "choose"]

LANE_BUDGET_S: Final = 40.0
"""Seconds of suite runs (every arm) the automatic repeat aims at, so that the
lane costs well under a minute beyond the suite's own run for a suite of up to
~10 s (1.5 to 2.5 min for suites of 3 to 7 s): past it, another
sample narrows a spread less than the lane's cost grows."""
SECOND_ARM_UNDER_S: Final = 600.0
"""A first run this long or longer gets no automatic xdist comparison: the
second arm would double a lane that already takes as long as the suite."""


def _runs(count: int) -> str:
    return "1 run" if count == 1 else f"{count} runs"


def _seconds(value: float) -> str:
    return f"{value / 60:.1f} min" if value >= 120 else f"{value:.1f} s"


def choose(
    first_s: float, *, repeat: int | None, comparable: bool, workers_set: bool
) -> tuple[TimingSizing, str | None]:
    """The runs per arm and the arms for a suite whose first run took ``first_s``,
    and why the second arm is left out when this leaves it out (else None).

    ``repeat``: configured (command line or configuration), else None;
    ``comparable``: the xdist comparison could run (pytest, xdist installed,
    workers > 0); ``workers_set``: workers was configured, which asks for the
    comparison whatever the suite costs.
    """
    arms = 2 if comparable else 1
    reasons: list[str] = []
    no_second_arm = None
    if comparable and not workers_set and first_s >= SECOND_ARM_UNDER_S:
        arms = 1
        no_second_arm = (
            f"no xdist comparison: one run takes {_seconds(first_s)} (>= "
            f"{_seconds(SECOND_ARM_UNDER_S)}) and a second arm would double the lane; "
            "set workers to compare"
        )
        reasons.append(no_second_arm)
    if repeat is not None:
        reasons.insert(0, f"{_runs(repeat)} per arm, as configured")
        chosen = repeat
    else:
        fits = int(LANE_BUDGET_S // (arms * max(first_s, 0.001)))
        chosen = max(1, min(AUTO_REPEAT, fits))
        took = f"the first run took {_seconds(first_s)}"
        budget = f"the lane's {_seconds(LANE_BUDGET_S)} of runs"
        reasons.insert(
            0,
            f"{_runs(chosen)} per arm: {took}; {arms} x {_runs(chosen)} fit {budget} "
            f"(at most {AUTO_REPEAT} per arm)"
            if fits >= 1
            else f"1 run per arm: {took}, past {budget} for {arms} arm(s)",
        )
    sized: TimingSizing = {
        "repeat": chosen,
        "arms": arms,
        "first_run_ms": round(first_s * 1000),
        "chosen_by": "automatic" if repeat is None else "configured",
        "reason": "; ".join(reasons),
    }
    return sized, no_second_arm
