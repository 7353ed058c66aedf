"""The enabled ratchet's pytest plugins (registered by :mod:`lanes.slow.plugin`).

- :class:`Stopwatch` runs wherever tests run (in-process, or on each xdist
  worker): it resolves every collected test's tier once, at the end of
  collection, while the items — with their real markers and paths — exist,
  and times fixture setup as it happens: two plain hooks bracket each test's
  setup phase, and the function-scoped fixtures set up inside it are charged
  to that test.
- :class:`WorkerStopwatch` (on an xdist worker) also writes its figures onto
  the test's reports before xdist sends them: extra keys in a report's
  ``__dict__`` travel through xdist's report serialisation unchanged.
- :class:`Ratchet` runs on the controller only. It has no per-report hook: at
  session end it reads the reports the terminal reporter keeps (its public
  ``stats``) — local ones, timed by the local stopwatch, or the annotated ones
  xdist replays from its workers — and judges. Verdicts therefore come from
  the same data with ``-n 0`` and ``-n 2``. Only without a terminal reporter
  (``-p no:terminal``) does a hook keep the reports instead.

After the suite the controller re-times the offenders
(:mod:`lanes.slow.confirmation`), records the last run
(:mod:`lanes.slow.lastrun`) and hands its verdict to JUnit, CTRF and GitHub
Actions (:mod:`lanes.slow.ci`) — in a session-finish *wrapper*, so that every
report writer runs after the verdict exists.

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

import json
import math
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Final

import pytest

from lanes._atomic import write_atomic
from lanes.errors import LanesError, UsageError
from lanes.pyproject import find_pyproject
from lanes.slow import ci
from lanes.slow.lastrun import read_last_run, write_last_run
from lanes.slow.pins import PinList, load_pins
from lanes.slow.report import FixtureCost, envelope_data, failure_message, terminal_lines
from lanes.slow.selection import partial_reasons
from lanes.slow.settings import SlowProject, load_slow_project
from lanes.slow.tiers import TierResolver
from lanes.slow.verdicts import Judged, Judgement, Timings, Verdict, confirm, judge

if TYPE_CHECKING:
    from collections.abc import Generator

    from lanes.slow.runqueue import RunQueueClock

__all__ = ["Ratchet", "Stopwatch", "WorkerStopwatch", "start"]

# Report attributes the Stopwatch adds (worker -> controller).
_FIXTURES = "lanes_slow_fixtures"
_SHARED = "lanes_slow_shared"
_TIER = "lanes_slow_tier"
_BUDGET = "lanes_slow_budget"
BUDGET_MARKER: Final = "slow_budget"
# Outcome categories pytest's terminal summary counts; the rest ("" for a
# passing setup, "warnings", our own) are not test outcomes.
_OUTCOMES: Final = (
    "passed",
    "failed",
    "error",
    "skipped",
    "xfailed",
    "xpassed",
    "rerun",
    "deselected",
)
# pytest-rerunfailures' outcome for an attempt it reruns. Typed str: pytest's
# own outcomes are a Literal that does not include it.
_RERUN: str = "rerun"
_STAT_KEY = "past slow budget"
_STYLES: dict[str, dict[str, bool]] = {
    "fail": {"red": True, "bold": True},
    "warn": {"yellow": True},
    "good": {"green": True},
    "plain": {},
}


def start(
    config: pytest.Config, pyproject: Path | None, *, explicit: bool, is_worker: bool
) -> None:
    """Load ``[tool.lanes]`` and the pins and register the plugins, or stay inert."""
    try:
        if not is_worker:
            _check_project(config, pyproject)
        lanes_config = load_slow_project(pyproject, cwd=config.rootpath)
        if not explicit and not lanes_config.slow.enabled:
            return
        budgets = config.getoption("slow_budget")
        fail_factor = config.getoption("slow_fail_factor")
        confirm_n = config.getoption("slow_confirm")
        if budgets or fail_factor is not None or confirm_n is not None:
            from lanes.slow.overrides import apply_overrides  # noqa: PLC0415  # only a run with overrides pays

            slow = apply_overrides(
                lanes_config.slow, budgets=budgets, fail_factor=fail_factor, confirm=confirm_n
            )
            lanes_config = lanes_config._replace(slow=slow)
        pins = load_pins(lanes_config.root / lanes_config.slow.pins, slow=lanes_config.slow)
    except LanesError as exc:
        msg = f"{exc.message}\nhint: {exc.hint}"
        raise pytest.UsageError(msg) from None
    if is_worker:
        config.pluginmanager.register(WorkerStopwatch(lanes_config, pins), "lanes-slow-stopwatch")
        return
    stopwatch = Stopwatch(lanes_config, pins)
    config.pluginmanager.register(stopwatch, "lanes-slow-stopwatch")
    clock = None
    if config.getoption("slow_retime"):
        from lanes.slow.runqueue import RunQueueClock, available  # noqa: PLC0415  # confirmation runs only

        if available():
            clock = RunQueueClock()
            config.pluginmanager.register(clock, "lanes-slow-runqueue")
    json_path = config.getoption("slow_json")
    ratchet = Ratchet(lanes_config, pins, stopwatch, None if json_path is None else Path(json_path))
    ratchet.runqueue = clock
    config.pluginmanager.register(ratchet, "lanes-slow-ratchet")


def _check_project(config: pytest.Config, pyproject: Path | None) -> None:
    """Refuse a run whose rootdir moved away from the working directory's project.

    pytest picks its rootdir from the paths on the command line; an option
    value it takes for a path (``--slow-json /elsewhere/out.json`` in the
    space form, where the option is not yet known) can move the rootdir out
    of the project, and the run would silently judge with default budgets.
    """
    invocation = config.invocation_params.dir.resolve()
    # The chosen project's directory or a sub-project inside it: pytest's
    # configuration wins, as it should (and the usual case needs no search).
    if pyproject is not None and invocation.is_relative_to(pyproject.parent.resolve()):
        return
    here = find_pyproject(invocation)
    if here is None:
        return
    if pyproject is not None and here.resolve() == pyproject.resolve():
        return
    chosen = "no pyproject.toml" if pyproject is None else str(pyproject)
    msg = (
        f"pytest chose rootdir {config.rootpath} (configuration: {chosen}), but the working "
        f"directory belongs to {here.parent}: the ratchet would judge with another project's "
        "[tool.lanes.slow] (or the defaults)"
    )
    raise UsageError(
        msg,
        hint="write option values with '=' (--slow-json=PATH: pytest takes a space-separated "
        f"value outside the project for a path), or pass --rootdir={here.parent}",
    )


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
        self.shared: dict[tuple[str, str], _Shared] = {}
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
        _add_shared(self.shared, name, scope, seconds, item.nodeid)


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
                report.__dict__[_SHARED] = self._pending
                self._pending = []
            if self._charged:
                report.__dict__[_FIXTURES] = self._charged
                self._charged = 0.0
            tier = self.tiers.get(nodeid)
            if tier is not None:
                report.__dict__[_TIER] = tier
            if self.budgets:
                budget = self.budgets.get(nodeid)
                if budget is not None:
                    report.__dict__[_BUDGET] = budget
        elif when == "setup" and self._pending and not report.passed:
            # A passing setup's report is not read (Ratchet._groups): what it
            # set up travels on the call's report instead.
            report.__dict__[_SHARED] = self._pending
            self._pending = []


class _Shared:
    """One wider-scoped fixture's setups so far (a plain class: cheaper than a dataclass to create)."""

    __slots__ = ("count", "first", "max", "scope", "total")

    def __init__(self, scope: str, first: str) -> None:
        self.scope = scope
        self.first = first
        self.count = 0
        self.total = 0.0
        self.max = 0.0


def _add_shared(
    shared: dict[tuple[str, str], _Shared], name: str, scope: str, seconds: float, first: str
) -> None:
    entry = shared.get((scope, name))
    if entry is None:
        entry = shared[scope, name] = _Shared(scope=scope, first=first)
    entry.count += 1
    entry.total += seconds
    entry.max = max(entry.max, seconds)


class Ratchet:
    """Judges on the controller; fails the session past the limits."""

    def __init__(
        self, config: SlowProject, pins: PinList, stopwatch: Stopwatch, json_path: Path | None
    ) -> None:
        self.config = config
        self.pins = pins
        self.json_path = json_path
        self._stopwatch = stopwatch
        self.judgement: Judgement | None = None
        # Every call report read (locations, outcomes), by node id once asked for.
        self._called: list[pytest.TestReport] = []
        self._by_nodeid: dict[str, pytest.TestReport] | None = None
        # Without a terminal reporter (-p no:terminal), the reports this run logged.
        self._log: _ReportLog | None = None
        self._workers: set[str] = set()
        self._deselected = 0
        self._retime = False
        self._partial: list[str] = []
        self._outcomes: dict[str, int] = {}
        self._args: list[str] = []
        # Confirmation runs: CPU-wait per test, taken out of its samples.
        self.runqueue: RunQueueClock | None = None

    def pytest_report_header(self) -> str:
        slow = self.config.slow
        tiers = ", ".join(f"{t.name} {t.budget:g} s" for t in slow.tiers.values())
        confirmation = (
            f"offenders re-timed {slow.confirm}× before failing"
            if slow.confirm
            else "no confirmation (confirm = 0)"
        )
        return (
            f"slow-test ratchet: {tiers}; band up to {slow.fail_factor:g}× budget; "
            f"{confirmation}; {len(self.pins)} pinned ({slow.pins})"
        )

    def pytest_configure(self, config: pytest.Config) -> None:
        self._retime = bool(config.getoption("slow_retime"))
        self._args = [str(arg) for arg in config.invocation_params.args]

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if not isinstance(_terminal_stats(session.config), dict):
            # The reports are read from the terminal reporter's statistics at
            # the end; without one, a hook keeps them (a cost per report).
            self._log = _ReportLog()
            session.config.pluginmanager.register(self._log, "lanes-slow-reports")
        if self.json_path is not None:
            # `lanes slow run` reads this when pytest ends without a result:
            # the session started, so the process was ended from inside.
            started = self.json_path.with_name(self.json_path.name + ".started")
            method = getattr(session.config, "_env_timeout_method", None)
            started.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(started, json.dumps({"timeout_method": method}) + "\n")

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self._deselected += len(items)

    def timings(self, config: pytest.Config) -> Timings:
        """What the run's reports and the stopwatch measured.

        Read once, at the session end, from the reports pytest's terminal
        reporter keeps: local ones, and those xdist replays from its workers
        (with what their stopwatch wrote onto them). Only tests that reached
        their call phase are timed: a test skipped or erroring in setup has no
        duration of its own to judge.
        """
        stopwatch = self._stopwatch
        groups = self._groups(config)
        test_report = pytest.TestReport
        # Exactly TestReport: a subtest's report (a subclass) carries its
        # test's node id but not its duration; other statistics are not reports.
        called = [
            r for group in groups for r in group if type(r) is test_report and r.when == "call"
        ]
        fixtures = dict(stopwatch.fixtures)
        tiers = dict(stopwatch.tiers)
        budgets = dict(stopwatch.budgets)
        xdist = bool(called) and "worker_id" in called[0].__dict__
        if xdist:
            self._from_workers(groups, fixtures, tiers, budgets)
        self._called = called
        calls = {r.nodeid: r.duration for r in called if r.outcome != _RERUN}
        reruns: dict[str, list[float]] = {}
        for report in [r for r in called if r.outcome == _RERUN]:
            # Keep every attempt, with its own setup; the slowest is judged.
            attempts = reruns.setdefault(report.nodeid, [])
            if xdist:
                own = report.__dict__.get(_FIXTURES, 0.0)
            else:
                earlier = stopwatch.earlier.get(report.nodeid, ())
                own = earlier[len(attempts)] if len(attempts) < len(earlier) else 0.0
            attempts.append(report.duration + own)
        if self.runqueue is not None:
            _without_waits(self.runqueue, calls, fixtures)
        return Timings(
            calls,
            fixtures=fixtures,
            tiers=tiers,
            budgets=budgets,
            attempts=_slowest_attempts(reruns, calls, fixtures),
        )

    def _from_workers(
        self,
        groups: list[list[object]],
        fixtures: dict[str, float],
        tiers: dict[str, str],
        budgets: dict[str, float],
    ) -> None:
        """What the workers' stopwatches wrote onto the reports xdist replayed."""
        sharing: list[pytest.TestReport] = []
        for group in groups:
            for report in group:
                if type(report) is not pytest.TestReport:
                    continue
                extra = report.__dict__
                worker = extra.get("worker_id")
                if worker is None:
                    continue
                self._workers.add(str(worker))
                if _SHARED in extra:
                    sharing.append(report)
                if report.when == "call" and report.outcome != _RERUN:
                    nodeid = report.nodeid
                    if _FIXTURES in extra:
                        fixtures[nodeid] = extra[_FIXTURES]
                    if _TIER in extra:
                        tiers[nodeid] = extra[_TIER]
                    if _BUDGET in extra:
                        budgets[nodeid] = extra[_BUDGET]
        # The groups are by outcome, not in the order the reports arrived: the
        # first test to set a shared fixture up is the earliest to start.
        for report in sorted(sharing, key=_started):
            for name, scope, seconds in report.__dict__[_SHARED]:
                _add_shared(self._stopwatch.shared, name, scope, seconds, report.nodeid)

    def _groups(self, config: pytest.Config) -> list[list[object]]:
        """The logged reports worth reading, in groups.

        Not the passing setups and teardowns (the terminal reporter's ""
        category: two of every test's three reports): they carry nothing a
        judgement reads — a worker moves what it timed in a passing setup onto
        the call's report.
        """
        if self._log is not None:
            return [self._log.reports]
        stats = _terminal_stats(config)
        if not isinstance(stats, dict):
            return []
        return [entries for category, entries in stats.items() if category]

    def _report(self, nodeid: str) -> pytest.TestReport | None:
        """A test's final call report (offenders only: a lookup per test costs)."""
        if self._by_nodeid is None:
            self._by_nodeid = {r.nodeid: r for r in self._called if r.outcome != _RERUN}
        return self._by_nodeid.get(nodeid)

    def fixture_costs(self) -> list[FixtureCost]:
        return [
            FixtureCost(
                name=name, scope=s.scope, count=s.count, total=s.total, max=s.max, first=s.first
            )
            for (_, name), s in self._stopwatch.shared.items()
        ]

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Generator[None, object, object]:
        # Before every other session-finish hook: the terminal summary, the
        # JUnit and CTRF writers must see the verdict.
        self._finish(session)
        return (yield)

    def _finish(self, session: pytest.Session) -> None:
        config = session.config
        slow = self.config.slow
        timings = self.timings(config)
        self._outcomes = self._outcome_counts(config)
        if self._retime:
            # A confirmation child: a stopwatch only.
            judgement = judge(slow, timings, self.pins)
            self.judgement = judgement
            self._write_json(judgement)
            return
        # The history is only ever pins' (write_last_run keeps no other):
        # without pins, no read of the whole last-run record.
        previous = read_last_run(self.config)["history"] if len(self.pins) else {}
        judgement = judge(slow, timings, self.pins, previous)
        interrupted = session.exitstatus == pytest.ExitCode.INTERRUPTED
        if judgement.failures and slow.confirm and not interrupted:  # Ctrl-C means stop now
            from lanes.slow.confirmation import retime  # noqa: PLC0415  # only a run with offenders pays

            measured = {j.nodeid: j.seconds for j in judgement.failures}
            judgement = confirm(judgement, retime(config, measured, slow.confirm))
        self.judgement = judgement
        self._partial = partial_reasons(config, session, self._deselected)
        if not judgement.passed and session.exitstatus == pytest.ExitCode.OK:
            # Every test passed, but the suite broke its time budget.
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        write_last_run(
            self.config,
            judgement,
            pytest_args=self._args,
            partial=bool(self._partial),
            previous_history=previous,
        )
        ci.feed_reports(config, [self._ci_verdict(j) for j in judgement.failures])
        self._write_json(judgement)

    def _ci_verdict(self, judged: Judged) -> ci.Verdict:
        report = self._report(judged.nodeid)
        file, line, _domain = (
            report.location if report is not None else (judged.nodeid.partition("::")[0], None, "")
        )
        # report locations hold 0-based lines; annotations and humans count from 1
        lineno = None if line is None else line + 1
        if judged.verdict is Verdict.BAND:
            message = (
                f"{judged.nodeid} took {judged.seconds:.3g} s: in the band, over its budget "
                f"{judged.allowance:g} s (fails past {judged.limit:g} s)"
            )
        else:
            message = failure_message(self.config.slow, judged)[0]
        return judged.nodeid, (file, lineno), message

    def _write_json(self, judgement: Judgement) -> None:
        if self.json_path is None:
            return
        data = envelope_data(
            self.config.slow,
            judgement,
            pins_file=self.config.slow.pins,
            fixtures=self.fixture_costs(),
            workers=len(self._workers),
            outcomes=self._outcomes,
            pytest_args=self._args,
            partial=self._partial,
        )
        self.json_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.json_path, json.dumps(data, indent=1) + "\n")
        # The session finished: the marker that says it started is answered.
        self.json_path.with_name(self.json_path.name + ".started").unlink(missing_ok=True)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        judgement = self.judgement
        if judgement is None or not judgement.count:
            return
        if self._retime:
            return
        terminalreporter.write_sep("=", "slow-test ratchet")
        for line in terminal_lines(
            self.config.slow, judgement, self.fixture_costs(), partial=self._partial
        ):
            terminalreporter.write_line(line.text, **_STYLES[line.style])
        if self._stopwatch.hard_stop_skipped:
            terminalreporter.write_line(
                f"hard stop off: {self._stopwatch.hard_stop_skipped} (hard_stop_factor)",
                yellow=True,
            )
        for command in ci.workflow_commands(
            [self._ci_verdict(j) for j in judgement.failures],
            [self._ci_verdict(j) for j in judgement.band],
        ):
            terminalreporter.write_line(command)
        if judgement.failures:
            # Shown in pytest's final "N passed, 1 past slow budget" line.
            # pytest reads attributes off stats entries through __dict__, so
            # plain namespaces rather than the (tuple) verdicts themselves.
            terminalreporter.stats.setdefault(_STAT_KEY, []).extend(
                SimpleNamespace(nodeid=j.nodeid) for j in judgement.failures
            )

    def _outcome_counts(self, config: pytest.Config) -> dict[str, int]:
        """Test outcomes as pytest's own summary line counts them (skips and xfails included)."""
        stats = _terminal_stats(config)
        if isinstance(stats, dict):
            return {key: len(stats[key]) for key in _OUTCOMES if stats.get(key)}
        # Without a terminal (-p no:terminal): what the ratchet itself saw.
        return dict(
            Counter({r.nodeid: r.outcome for r in self._called if r.outcome != _RERUN}.values())
        )


def _started(report: pytest.TestReport) -> float:
    # When the report's phase started (epoch seconds, serialised by xdist);
    # read defensively, so that a report without it sorts where it was read.
    return float(getattr(report, "start", 0.0))


def _without_waits(
    waits: RunQueueClock, calls: dict[str, float], fixtures: dict[str, float]
) -> None:
    """Wall-clock minus the time spent waiting for a CPU: sleeps count, contention not."""
    for nodeid, call in calls.items():
        calls[nodeid] = max(0.0, call - waits.call.get(nodeid, 0.0))
        if nodeid in fixtures:
            fixtures[nodeid] = max(0.0, fixtures[nodeid] - waits.setup.get(nodeid, 0.0))


def _slowest_attempts(
    reruns: dict[str, list[float]], calls: dict[str, float], fixtures: dict[str, float]
) -> dict[str, int]:
    """Judge each rerun test's slowest attempt; its number of attempts, by node id.

    A rerun that happened to be fast must not hide a slow first attempt.
    """
    counts: dict[str, int] = {}
    for nodeid, attempts in reruns.items():
        if nodeid not in calls:
            continue
        slowest = max(attempts)
        if slowest > calls[nodeid] + fixtures.get(nodeid, 0.0):
            calls[nodeid] = slowest
            fixtures.pop(nodeid, None)
        counts[nodeid] = len(attempts) + 1
    return counts


class _ReportLog:
    """Keeps the reports a judgement reads, for a run without a terminal reporter."""

    def __init__(self) -> None:
        self.reports: list[object] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # What the terminal reporter files under "" is skipped (see Ratchet._groups).
        if report.when == "call" or not report.passed:
            self.reports.append(report)


def _terminal_stats(config: pytest.Config) -> object:
    """The terminal reporter's ``stats`` (its public record of every report), if there is one."""
    return getattr(config.pluginmanager.get_plugin("terminalreporter"), "stats", None)
