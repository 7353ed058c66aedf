"""The fuzz lane: Hypothesis-generated hostile input to every parser, through a watchdog.

Only the light modules are re-exported here: the watchdog's worker process
imports this package, and must not pay for Hypothesis. The lane itself is
:mod:`lanes.fuzz.lane`; the Hypothesis driver :mod:`lanes.fuzz.engine`.
"""

from __future__ import annotations

from lanes.fuzz.targets import BUILTIN_TARGETS, Target
from lanes.fuzz.watchdog import CaseOutcome, Watchdog

__all__ = ["BUILTIN_TARGETS", "CaseOutcome", "Target", "Watchdog"]
