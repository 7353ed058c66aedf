"""The exit statuses of a pytest run the governor's plugin stops before its first test.

pytest's own statuses are 0-5 (``pytest.ExitCode``); these follow them, so a
script (or an agent) can tell "the governor stopped this run" from "tests
failed" (1) and from "pytest could not run" (2-5), and which rule stopped it:

====  ===========  ===============================================================
exit  name         meaning
====  ===========  ===============================================================
6     SWEEP        the collection is a sweep of a suite, without the audited override
7     DEDUP        the whole suite already passed on this exact tree (LANES_TEST_FORCE=1 re-runs)
8     LOCKED       another heavy run holds the kernel run lock (the message names it)
====  ===========  ===============================================================

No test ran in any of them, and nothing is recorded in the ledger.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["RunnerExit"]


class RunnerExit(IntEnum):
    SWEEP = 6
    """A sweep of a suite without LANES_FULL_SWEEP_OK=1 + LANES_OVERRIDE_REASON (or unauditable)."""
    DEDUP = 7
    """The suite has a fresh PASS on this tree."""
    LOCKED = 8
    """Another heavy run holds the kernel run lock."""
