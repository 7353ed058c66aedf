"""A fault a lane's ``--self-check`` plants in its own logic, and whether it was caught.

A self-check that only feeds the lane broken *input* proves the lane can
crash or fail; it does not prove the lane's figures and verdicts are right. So
each self-check also runs one "wrong but plausible" variant of its own logic
(timing's peak memory aggregated with ``max()``, the slow ratchet forgetting
an early stop, retry treating an interrupted run as finished) on an input
where the right and the wrong answer differ. The lane's real logic must give
the right answer there, and the planted variant must give another: then the
check that reads this answer is known to see that fault.
"""

from __future__ import annotations

from typing import Annotated, TypedDict

from lanes.payloads.constraints import Doc, MinLength

__all__ = ["PlantedFault"]


class PlantedFault(TypedDict):
    """One planted fault: what the right answer is, what the lane and the fault answered."""

    fault: Annotated[str, MinLength(1), Doc("the fault planted, in words")]
    expected: Annotated[str, Doc("the right answer on the input that tells the two apart")]
    real: Annotated[str, Doc("what the lane's own logic answered")]
    planted: Annotated[str, Doc("what the planted fault answered")]
    caught: Annotated[
        bool,
        Doc("real is the expected answer and planted is not: the self-check sees this fault"),
    ]
