"""Targets broken on purpose: ``lanes fuzz --self-check`` must catch every one.

A fuzz lane that stopped noticing failures would pass forever. These targets
each break the invariant in one way — an untyped exception, a typed one with a
blank hint, a hang — and a well-behaved control target must *not* be reported,
so the self-check proves both halves: failures are caught, clean rejections
are not failures. They live here, in the harness package, and never in
production code.

Two of them stand for wrong-but-plausible faults of the lane's own judgement
(:mod:`lanes.payloads.planted`), not only for broken input: ``blank-hint``
(a hint of spaces) is what a watchdog testing the hint for truth instead of
content would pass, and ``must-accept`` (a clean, hinted rejection from a
target declared ``may_reject=False``, as the command classifier is) is what a
watchdog judging type and hint but forgetting ``may_reject`` would pass. Each
must be reported as its kind, or the self-check fails.
"""

from __future__ import annotations

import threading
from typing import Final

from hypothesis import strategies as st

from lanes.errors import LanesError, UsageError
from lanes.fuzz.targets import Target

__all__ = [
    "EXPECTED",
    "SELF_CHECK_BUDGET",
    "SELF_CHECK_ITERATIONS",
    "SELF_CHECK_TARGETS",
    "blank_hint",
    "inputs",
    "rejects_what_it_must_accept",
    "untyped_throw",
    "wedged",
    "well_behaved",
]

# Small on purpose: each broken target fails on its first case, and the wedged
# one costs a full budget per shrink step.
SELF_CHECK_ITERATIONS: Final = 25
SELF_CHECK_BUDGET: Final = 0.5


def inputs() -> st.SearchStrategy[str]:
    return st.text(max_size=20)


def untyped_throw(text: str) -> None:
    """An unguarded lookup: ``KeyError`` escapes instead of a typed rejection."""
    {"known": 1}[text]


class _BlankHintError(LanesError, ValueError):
    """A typed error whose hint was blanked after construction (LanesError refuses a blank one)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, hint="placeholder")
        self.hint = "   "


def blank_hint(text: str) -> None:
    """Rejects everything with the right type but nothing to tell the user."""
    msg = f"input {text!r} rejected"
    raise _BlankHintError(msg)


def wedged(_text: str) -> None:
    """Never returns: the watchdog must attribute the stall to the input and move on."""
    threading.Event().wait()


def well_behaved(text: str) -> None:
    """The control: a clean typed rejection with a hint, which must not be reported."""
    if not text.isalpha():
        msg = f"expected letters only, got {text!r}"
        raise UsageError(msg, hint="pass a word made of letters")


def rejects_what_it_must_accept(text: str) -> None:
    """A clean typed rejection, with a hint, from a target that must accept everything."""
    well_behaved(text)


def _target(name: str, function: str, *, may_reject: bool = True) -> Target:
    return Target(
        name=name,
        callable=f"lanes.fuzz.selfcheck:{function}",
        strategy="lanes.fuzz.selfcheck:inputs",
        may_reject=may_reject,
        budget=SELF_CHECK_BUDGET,
        origin="lanes.fuzz.selfcheck",
    )


SELF_CHECK_TARGETS: Final = (
    _target("untyped-throw", "untyped_throw"),
    _target("blank-hint", "blank_hint"),
    _target("wedged", "wedged"),
    _target("must-accept", "rejects_what_it_must_accept", may_reject=False),
    _target("well-behaved", "well_behaved"),
)

# target name -> the failure kind it must be reported with (None: no failure).
EXPECTED: Final[dict[str, str | None]] = {
    "untyped-throw": "untyped",
    "blank-hint": "empty-hint",
    "wedged": "stall",
    "must-accept": "unexpected-rejection",
    "well-behaved": None,
}
