"""A test's setup time, from pytest's own reports, less the shared fixtures set up in it.

pytest times every phase of every test (a report's ``duration``) and stamps
when it began and ended (``start``, ``stop``: wall clock). The stopwatch only
times the setups of fixtures wider than function scope
(:class:`~lanes.slow.stopwatch.SharedSetup`), stamped with the same clock, so
each is placed inside the setup phase that ran it — whichever test happened to
come first — and taken out of that test's setup time. A shared setup inside no
setup phase (requested in a test's body or teardown) is charged to no test and
listed nowhere: that phase's duration already holds it.

Only passing setups are charged: a test whose setup failed has no call to
judge. Under pytest-rerunfailures a test has one passing setup per attempt
that reached its call, in order; each attempt is judged with its own.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

from lanes.slow.stopwatch import SharedFixture, SharedSetup, add_shared

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    import pytest

__all__ = ["SetupTimes", "setup_times"]


class SetupTimes:
    """What the setup phases of a run charge their tests (see the module docstring)."""

    __slots__ = ("attempts", "last", "shared")

    def __init__(
        self,
        last: dict[str, float],
        attempts: dict[str, list[float]],
        shared: dict[tuple[str, str], SharedFixture],
    ) -> None:
        self.last = last
        """Each test's last passing setup, in seconds, by node id."""
        self.attempts = attempts
        """Every passing setup, in order, of the tests named in ``rerun``."""
        self.shared = shared
        """The shared fixtures set up inside a setup phase, by (scope, name)."""


def setup_times(
    setups: Sequence[pytest.TestReport],
    shared_setups: Iterable[SharedSetup],
    rerun: Iterable[str] = (),
) -> SetupTimes:
    """Charge each test its setup: ``setups`` are the run's setup reports, any outcome."""
    # outcome, not the `passed` property: a function call a report.
    passing = [r for r in setups if r.outcome == "passed"]
    # The last passing setup of each test; in the order the reports were
    # logged, which is the order they ran for any one test.
    last = {r.nodeid: r.duration for r in passing}
    shared: dict[tuple[str, str], SharedFixture] = {}
    taken = _place(setups, shared_setups, shared)
    rerun = set(rerun)
    attempts: dict[str, list[float]] = {nodeid: [] for nodeid in rerun}
    if not (taken or rerun):
        return SetupTimes(last, attempts, shared)
    for report in passing:
        seconds = report.duration
        if taken:
            seconds = max(0.0, seconds - taken.get(id(report), 0.0))
            last[report.nodeid] = seconds
        if report.nodeid in rerun:
            attempts[report.nodeid].append(seconds)
    return SetupTimes(last, attempts, shared)


def _place(
    setups: Sequence[pytest.TestReport],
    shared_setups: Iterable[SharedSetup],
    shared: dict[tuple[str, str], SharedFixture],
) -> dict[int, float]:
    """Seconds of shared setup inside each setup report (by ``id``); fills ``shared``."""
    pending = sorted(shared_setups, key=_began)
    if not pending:
        return {}
    ordered = sorted(setups, key=_start)
    starts = [_start(r) for r in ordered]
    taken: dict[int, float] = {}
    for setup in pending:
        index = bisect_right(starts, setup.began) - 1
        if index < 0:
            continue
        report = ordered[index]
        if setup.began > getattr(report, "stop", 0.0):
            continue  # between two setups: in a test's body or teardown
        add_shared(shared, setup.name, setup.scope, setup.seconds, report.nodeid)
        taken[id(report)] = taken.get(id(report), 0.0) + setup.seconds
    return taken


def _began(setup: SharedSetup) -> float:
    return setup.began


def _start(report: pytest.TestReport) -> float:
    # Epoch seconds (pytest >= 8 stamps every report; xdist serialises it).
    return float(getattr(report, "start", 0.0))
