"""Judge and announce a fault a self-check planted in its own lane's logic.

See :mod:`lanes.payloads.planted` for why the self-checks plant faults of
their own logic and not only broken input.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lanes.payloads.planted import PlantedFault

__all__ = ["announce", "describe", "judge"]


def judge(fault: str, *, expected: str, real: str, planted: str) -> PlantedFault:
    """The record of one planted fault; caught when the lane is right and the fault is not."""
    return {
        "fault": fault,
        "expected": expected,
        "real": real,
        "planted": planted,
        "caught": real == expected and planted != expected,
    }


def describe(lane: str, plant: PlantedFault) -> str:
    """One line for the terminal: what was planted, and whether the self-check saw it."""
    if plant["caught"]:
        return (
            f"{lane} self-check: planted fault caught: {plant['fault']} "
            f"(gives {plant['planted']!r}; the lane gives {plant['real']!r})"
        )
    if plant["real"] != plant["expected"]:
        return (
            f"{lane} self-check: FAILED on a planted fault's input: {plant['fault']}: the lane "
            f"gives {plant['real']!r}, expected {plant['expected']!r}"
        )
    return (
        f"{lane} self-check: planted fault NOT caught: {plant['fault']}: it gives "
        f"{plant['planted']!r} too, so this check cannot tell it from the lane"
    )


def announce(lane: str, plants: list[PlantedFault]) -> None:
    """Print :func:`describe` for each plant on stderr (where the lanes' progress goes)."""
    for plant in plants:
        print(describe(lane, plant), file=sys.stderr, flush=True)
