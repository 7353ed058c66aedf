"""Where tests run, the enabled ratchet times them (registered by :mod:`lanes.slow.session`).

- :class:`Stopwatch` runs wherever tests run (in-process, or on each xdist
  worker): it resolves every collected test's tier once, at the end of
  collection, while the items — with their real markers and paths — exist,
  and times the setup of every fixture of wider scope than function
  (:class:`SharedSetup`), with the wall-clock time it began.
- :class:`WorkerStopwatch` (on an xdist worker) also writes its figures onto
  the test's reports before xdist sends them: extra keys in a report's
  ``__dict__`` (``REPORT_*``) travel through xdist's report serialisation
  unchanged.

What a test's time covers (``PHASES``): its call phase plus its setup phase,
less the shared fixtures set up inside it — so the setup of its own
function-scoped fixtures counts. Fixtures of wider scope (class, module,
package, session) are set up inside whichever test happens to run first — a
different test on each xdist worker — so charging them would make verdicts
depend on scheduling; their cost is reported separately instead. Teardown is
not charged for the same reason (a module fixture's teardown runs inside the
module's last test). Both phase durations are pytest's own (the reports'
``duration``); :mod:`lanes.slow.setups` takes the shared setups out.

Cost matters (the bench lane holds the plugin to 2% of a suite's instructions;
a hook implementation costs some 4 thousand instructions a call in pluggy, a
wrapper twice that): no hook runs per test. The one per-fixture wrapper, which
exact timing of shared fixtures requires, passes function-scoped fixtures
straight through. (Bracketing each setup phase with two plain hooks, to time
function-scoped fixtures one by one, cost 9 thousand instructions a test.)
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import pytest

from lanes.slow.tiers import TierResolver

if TYPE_CHECKING:
    from collections.abc import Generator
    from pathlib import Path

    from lanes.slow.pins import PinList
    from lanes.slow.settings import SlowProject

__all__ = [
    "BUDGET_MARKER",
    "REPORT_BUDGET",
    "REPORT_SHARED",
    "REPORT_TIER",
    "SharedFixture",
    "SharedSetup",
    "Stopwatch",
    "WorkerStopwatch",
    "add_shared",
]

# Report attributes the WorkerStopwatch adds (worker -> controller).
REPORT_SHARED: Final = "lanes_slow_shared"
REPORT_TIER: Final = "lanes_slow_tier"
REPORT_BUDGET: Final = "lanes_slow_budget"
BUDGET_MARKER: Final = "slow_budget"


class Stopwatch:
    """Runs where tests run: tiers from the collected items, fixture setup timing."""

    def __init__(self, config: SlowProject, pins: PinList) -> None:
        self._root = config.root
        self._slow = config.slow
        self._pins = pins
        self._resolver = TierResolver(config.slow)
        self.tiers: dict[str, str] = {}
        self.budgets: dict[str, float] = {}
        self.hard_stop_skipped = ""
        # Every shared fixture setup, in the order they ended.
        self.shared_setups: list[SharedSetup] = []
        # Exclusive timing: a shared fixture that requests another (a module
        # fixture using a session one) is not charged for the inner one too.
        self._stack: list[float] = []
        self._scopes: dict[pytest.FixtureDef[Any], str] = {}

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        resolver = self._resolver
        budgets = self.budgets
        # Whether a node above the items (module, class, package) carries the
        # marker, decided once per node: `BUDGET_MARKER in item.keywords` or
        # get_closest_marker walk the whole chain for every test, a fifth of
        # the plugin's cost per test on a suite of fast tests.
        marked_above: dict[pytest.Item | pytest.Collector | None, bool] = {}
        for item in session.items:
            # Most tests carry no marker of their own and share their parent.
            above = marked_above.get(item.parent)
            if above is None:
                above = _marked_above(item.parent, marked_above)
            if above or (item.own_markers and _carries_budget(item)):
                marker = item.get_closest_marker(BUDGET_MARKER)
                if marker is not None:
                    budgets[item.nodeid] = _marker_budget(item.nodeid, marker)
        if resolver.has_rules:
            self._resolve_tiers(session)
        if self._slow.hard_stop_factor:
            self._arm_hard_stop(session)

    def _resolve_tiers(self, session: pytest.Session) -> None:
        resolver = self._resolver
        paths: dict[Path, str] = {}
        for item in session.items:
            path = paths.get(item.path)
            if path is None:
                try:
                    path = item.path.relative_to(self._root).as_posix()
                except ValueError:
                    path = item.nodeid.partition("::")[0]
                paths[item.path] = path
            names = [m.name for m in item.iter_markers()] if resolver.markers else ()
            self.tiers[item.nodeid] = resolver.resolve(path, names)

    def _arm_hard_stop(self, session: pytest.Session) -> None:
        """A pytest-timeout marker at hard_stop_factor × fail_factor × allowance per test.

        A test's own ``@pytest.mark.timeout`` wins, and so does a global
        timeout (``--timeout``, ``timeout`` ini): the user chose it.
        """
        config = session.config
        # "timeout" through the entry point, "pytest_timeout" through -p pytest_timeout.
        if not (
            config.pluginmanager.hasplugin("timeout")
            or config.pluginmanager.hasplugin("pytest_timeout")
        ):
            self.hard_stop_skipped = "pytest-timeout is not installed"
            return
        if getattr(config, "_env_timeout", None):
            self.hard_stop_skipped = "a global pytest-timeout timeout is set and wins"
            return
        slow = self._slow
        factor = slow.hard_stop_factor * slow.fail_factor
        for item in session.items:
            if item.get_closest_marker("timeout") is not None:
                continue
            budget = self.budgets.get(item.nodeid)
            if budget is None:
                tier = self.tiers.get(item.nodeid, slow.default_tier)
                budget = (slow.tiers.get(tier) or slow.tiers[slow.default_tier]).budget
            pin = self._pins.get(item.nodeid)
            allowance = max(pin.ceiling, budget) if pin is not None else budget
            item.add_marker(pytest.mark.timeout(factor * allowance))

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(
        self, fixturedef: pytest.FixtureDef[Any]
    ) -> Generator[None, object, object]:
        scope = self._scopes.get(fixturedef)
        if scope is None:
            # FixtureDef.scope is a property over an enum's value: read once per fixture.
            scope = self._scopes[fixturedef] = fixturedef.scope
        if scope == "function":
            # In its test's setup phase, which pytest times; or in the test's
            # body or teardown, where its phase's duration holds it.
            return (yield)
        stack = self._stack
        stack.append(0.0)
        # The wall clock, as the reports' start and stop are: it places this
        # setup inside one test's setup phase, or inside none.
        began = time.time()
        start = time.perf_counter()
        try:
            return (yield)
        finally:
            elapsed = time.perf_counter() - start
            own = elapsed - stack.pop()
            if stack:
                stack[-1] += elapsed
            self._record(SharedSetup(fixturedef.argname, scope, began, own))

    def _record(self, setup: SharedSetup) -> None:
        self.shared_setups.append(setup)


def _carries_budget(node: pytest.Item | pytest.Collector) -> bool:
    # own_markers: what get_closest_marker reads on each node of the chain
    # (decorators, a module's pytestmark, parametrize marks, add_marker).
    return any(mark.name == BUDGET_MARKER for mark in node.own_markers)


def _marked_above(
    node: pytest.Item | pytest.Collector | None,
    known: dict[pytest.Item | pytest.Collector | None, bool],
) -> bool:
    """Whether ``node`` or a node above it carries the budget marker (memoised in ``known``)."""
    if node is None:
        return False
    found = known.get(node)
    if found is None:
        found = known[node] = _carries_budget(node) or _marked_above(node.parent, known)
    return found


def _marker_budget(nodeid: str, marker: pytest.Mark) -> float:
    value = marker.args[0] if len(marker.args) == 1 and not marker.kwargs else None
    if value is None and not marker.args and set(marker.kwargs) == {"seconds"}:
        value = marker.kwargs["seconds"]
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        msg = (
            f"{nodeid}: @pytest.mark.{BUDGET_MARKER} expects one number of seconds > 0, "
            f"got args {marker.args!r} kwargs {marker.kwargs!r}"
        )
        raise pytest.UsageError(msg + f"\nhint: write @pytest.mark.{BUDGET_MARKER}(1.5)")
    return float(value)


class WorkerStopwatch(Stopwatch):
    """On an xdist worker: the stopwatch's figures onto each report, for the controller."""

    def __init__(self, config: SlowProject, pins: PinList) -> None:
        super().__init__(config, pins)
        self._pending: list[SharedSetup] = []

    def _record(self, setup: SharedSetup) -> None:
        self._pending.append(setup)

    @pytest.hookimpl(tryfirst=True)  # before xdist's own hook serialises the report
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # Written into __dict__ on purpose: that is what xdist serialises.
        if self._pending:
            # On the first report after the setups (the controller places
            # them by their time, whichever phase carried them).
            report.__dict__[REPORT_SHARED] = [tuple(setup) for setup in self._pending]
            self._pending = []
        if report.when == "call":
            nodeid = report.nodeid
            tier = self.tiers.get(nodeid)
            if tier is not None:
                report.__dict__[REPORT_TIER] = tier
            if self.budgets:
                budget = self.budgets.get(nodeid)
                if budget is not None:
                    report.__dict__[REPORT_BUDGET] = budget


class SharedSetup(NamedTuple):
    """One setup of a fixture wider than function scope."""

    name: str
    scope: str
    began: float
    """Wall-clock time (``time.time()``) it began, as a report's ``start``."""
    seconds: float
    """Its own setup time, less the shared fixtures it requested."""


class SharedFixture:
    """One wider-scoped fixture's setups so far (a plain class: cheaper than a dataclass to create)."""

    __slots__ = ("count", "first", "max", "scope", "total")

    def __init__(self, scope: str, first: str) -> None:
        self.scope = scope
        self.first = first
        self.count = 0
        self.total = 0.0
        self.max = 0.0


def add_shared(
    shared: dict[tuple[str, str], SharedFixture], name: str, scope: str, seconds: float, first: str
) -> None:
    entry = shared.get((scope, name))
    if entry is None:
        entry = shared[scope, name] = SharedFixture(scope=scope, first=first)
    entry.count += 1
    entry.total += seconds
    entry.max = max(entry.max, seconds)
