"""Where tests run, the enabled ratchet times them (registered by :mod:`lanes.slow.session`).

- :class:`Stopwatch` runs wherever tests run (in-process, or on each xdist
  worker): it resolves every collected test's tier once, at the end of
  collection, while the items — with their real markers and paths — exist,
  and times fixture setup as it happens: two plain hooks bracket each test's
  setup phase, and the function-scoped fixtures set up inside it are charged
  to that test.
- :class:`WorkerStopwatch` (on an xdist worker) also writes its figures onto
  the test's reports before xdist sends them: extra keys in a report's
  ``__dict__`` (``REPORT_*``) travel through xdist's report serialisation
  unchanged.

Cost matters (the bench lane holds the plugin to 2% of a suite's instructions;
a hook implementation costs some 4 thousand instructions a call in pluggy,
a wrapper twice that): the per-test hooks here are two plain functions; the
only wrapper is the one around fixture setup, which exact timing requires. (A
plain hook timing from one fixture's start to the next measured no cheaper
under callgrind, and misattributes a fixture that calls
``request.getfixturevalue``.)

What a test's time covers (``PHASES``): its call phase plus the setup of its
own function-scoped fixtures. Fixtures of wider scope (class, module, package,
session) are set up inside whichever test happens to run first — a different
test on each xdist worker — so charging them would make verdicts depend on
scheduling; their cost is reported separately instead. Teardown is not
charged for the same reason (a module fixture's teardown runs inside the
module's last test).
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any, Final

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
    "REPORT_FIXTURES",
    "REPORT_SHARED",
    "REPORT_TIER",
    "SharedFixture",
    "Stopwatch",
    "WorkerStopwatch",
    "add_shared",
]

# Report attributes the WorkerStopwatch adds (worker -> controller).
REPORT_FIXTURES: Final = "lanes_slow_fixtures"
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
        # Function-fixture setup seconds of each test's last attempt, and of the
        # attempts before it (pytest-rerunfailures), in order.
        self.fixtures: dict[str, float] = {}
        self.earlier: dict[str, list[float]] = {}
        self.shared: dict[tuple[str, str], SharedFixture] = {}
        # The test whose setup phase is running; None outside one. A fixture
        # requested lazily in a test's body is in its call duration already.
        self._setting_up: pytest.Item | None = None
        # Exclusive timing: a fixture that requests another inside its own body
        # (request.getfixturevalue) must not be charged for the inner one too.
        self._stack: list[float] = []
        self._function = 0.0
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

    # Two plain hooks bracket each setup phase: cheaper than reading the three
    # reports of every test as they are logged (the bench lane holds the
    # plugin to 2% of a suite's instructions).
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self._setting_up = item
        self._function = 0.0

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        self._setting_up = None
        if self._function:
            self._charge(item.nodeid, self._function)

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(
        self, fixturedef: pytest.FixtureDef[Any]
    ) -> Generator[None, object, object]:
        stack = self._stack
        stack.append(0.0)
        start = time.perf_counter()
        try:
            return (yield)
        finally:
            elapsed = time.perf_counter() - start
            own = elapsed - stack.pop()
            if stack:
                stack[-1] += elapsed
            item = self._setting_up
            if item is not None:  # else set up in a test's body or teardown: charged to no test
                scope = self._scopes.get(fixturedef)
                if scope is None:
                    # FixtureDef.scope is a property over an enum's value: read once per fixture.
                    scope = self._scopes[fixturedef] = fixturedef.scope
                if scope == "function":
                    self._function += own
                else:
                    self._share(fixturedef.argname, scope, own, item)

    def _charge(self, nodeid: str, seconds: float) -> None:
        """A test's function-fixture setup, at the end of its setup phase."""
        fixtures = self.fixtures
        if nodeid in fixtures:
            # A rerun (pytest-rerunfailures): each attempt is judged with its own setup.
            self.earlier.setdefault(nodeid, []).append(fixtures[nodeid])
        fixtures[nodeid] = seconds

    def _share(self, name: str, scope: str, seconds: float, item: pytest.Item) -> None:
        """One setup of a fixture wider than function scope, in ``item``'s setup."""
        add_shared(self.shared, name, scope, seconds, item.nodeid)


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
        self._charged = 0.0
        self._pending: list[tuple[str, str, float]] = []

    def _charge(self, nodeid: str, seconds: float) -> None:
        self._charged = seconds

    def _share(self, name: str, scope: str, seconds: float, item: pytest.Item) -> None:
        self._pending.append((name, scope, seconds))

    @pytest.hookimpl(tryfirst=True)  # before xdist's own hook serialises the report
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # Written into __dict__ on purpose: that is what xdist serialises.
        when = report.when
        if when == "call":
            nodeid = report.nodeid
            if self._pending:
                report.__dict__[REPORT_SHARED] = self._pending
                self._pending = []
            if self._charged:
                report.__dict__[REPORT_FIXTURES] = self._charged
                self._charged = 0.0
            tier = self.tiers.get(nodeid)
            if tier is not None:
                report.__dict__[REPORT_TIER] = tier
            if self.budgets:
                budget = self.budgets.get(nodeid)
                if budget is not None:
                    report.__dict__[REPORT_BUDGET] = budget
        elif when == "setup" and self._pending and not report.passed:
            # A passing setup's report is not read (Ratchet._groups): what it
            # set up travels on the call's report instead.
            report.__dict__[REPORT_SHARED] = self._pending
            self._pending = []


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
