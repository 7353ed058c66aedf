"""The enabled ratchet's pytest plugins (registered by :mod:`lanes.slow.plugin`).

- :class:`Stopwatch` runs wherever tests run (in-process, or on each xdist
  worker): it resolves every collected test's tier once, at the end of
  collection, while the items — with their real markers and paths — exist,
  and times function-scoped fixture setup as it happens.
- :class:`WorkerStopwatch` (on an xdist worker) also writes both onto each
  test report before xdist sends it: extra keys in a report's ``__dict__``
  travel through xdist's report serialisation unchanged.
- :class:`Ratchet` runs on the controller only: it reads the reports — local
  ones, with the local stopwatch's figures, or the annotated ones xdist replays
  from its workers — and judges at session end. Verdicts therefore come from
  the same data with ``-n 0`` and ``-n 2``.

Cost matters (the bench lane holds the plugin to 2% of a suite's CPU time):
every per-test hook here is a plain function; the only wrapper is the one
around fixture setup, which exact timing requires. (A plain hook timing from
one fixture's start to the next measured no cheaper under callgrind, and
misattributes a fixture that calls ``request.getfixturevalue``.)

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
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import pytest

from lanes._atomic import write_atomic
from lanes.config import Config, load_config
from lanes.errors import LanesError
from lanes.slow.pins import PinList, load_pins
from lanes.slow.report import FixtureCost, envelope_data, terminal_lines
from lanes.slow.tiers import TierResolver
from lanes.slow.verdicts import Judgement, Measurement, judge

if TYPE_CHECKING:
    from collections.abc import Generator

__all__ = ["Ratchet", "Stopwatch", "WorkerStopwatch", "start"]

# Report attributes the Stopwatch adds (worker -> controller).
_FIXTURES = "lanes_slow_fixtures"
_SHARED = "lanes_slow_shared"
_TIER = "lanes_slow_tier"
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
        lanes_config = load_config(pyproject, cwd=config.rootpath)
        if not explicit and not lanes_config.slow.enabled:
            return
        pins = load_pins(lanes_config.root / lanes_config.slow.pins, slow=lanes_config.slow)
    except LanesError as exc:
        msg = f"{exc.message}\nhint: {exc.hint}"
        raise pytest.UsageError(msg) from None
    if is_worker:
        config.pluginmanager.register(WorkerStopwatch(lanes_config), "lanes-slow-stopwatch")
        return
    stopwatch = Stopwatch(lanes_config)
    config.pluginmanager.register(stopwatch, "lanes-slow-stopwatch")
    json_path = config.getoption("slow_json")
    ratchet = Ratchet(lanes_config, pins, stopwatch, None if json_path is None else Path(json_path))
    config.pluginmanager.register(ratchet, "lanes-slow-ratchet")


class Stopwatch:
    """Runs where tests run: tiers from the collected items, fixture setup timing."""

    def __init__(self, config: Config) -> None:
        self._root = config.root
        self._resolver = TierResolver(config.slow)
        self.tiers: dict[str, str] = {}
        # Exclusive timing: a fixture that requests another inside its own body
        # (request.getfixturevalue) must not be charged for the inner one too.
        self._stack: list[float] = []
        self._function = 0.0
        self._shared: list[tuple[str, str, float]] = []

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        resolver = self._resolver
        if not resolver.has_rules:
            return  # every test is in the default tier
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
            if fixturedef.scope == "function":
                self._function += own
            else:
                self._shared.append((fixturedef.argname, fixturedef.scope, own))

    def take(self) -> tuple[float, list[tuple[str, str, float]]]:
        """The fixture setup timed since the last call (function seconds, shared setups).

        Called at every phase's report: what the setup phase accumulated is that
        test's; fixtures requested lazily inside the call are already in the
        call's duration and are dropped with the call's report.
        """
        taken = self._function, self._shared
        if taken[0] or taken[1]:
            self._function = 0.0
            self._shared = []
        return taken


class WorkerStopwatch(Stopwatch):
    """On an xdist worker: the stopwatch's figures onto each report, for the controller."""

    @pytest.hookimpl(tryfirst=True)  # before xdist's own hook serialises the report
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        function_s, shared = self.take()
        # Written into __dict__ on purpose: that is what xdist serialises.
        when = report.when
        if when == "call":
            tier = self.tiers.get(report.nodeid)
            if tier is not None:
                report.__dict__[_TIER] = tier
        elif when == "setup":
            if function_s:
                report.__dict__[_FIXTURES] = function_s
            if shared:
                report.__dict__[_SHARED] = shared


@dataclass
class _Shared:
    scope: str
    first: str
    count: int = 0
    total: float = 0.0
    max: float = 0.0


class Ratchet:
    """Judges on the controller; fails the session past the limits."""

    def __init__(
        self, config: Config, pins: PinList, stopwatch: Stopwatch, json_path: Path | None
    ) -> None:
        self.config = config
        self.pins = pins
        self.json_path = json_path
        self._stopwatch = stopwatch
        self._default_tier = config.slow.default_tier
        self.judgement: Judgement | None = None
        # (call seconds, tier, outcome) and function-fixture seconds by node id.
        self._calls: dict[str, tuple[float, str, str]] = {}
        self._fixtures: dict[str, float] = {}
        self._shared: dict[tuple[str, str], _Shared] = {}
        self._workers: set[str] = set()

    def pytest_report_header(self) -> str:
        slow = self.config.slow
        tiers = ", ".join(f"{t.name} {t.budget:g} s" for t in slow.tiers.values())
        return (
            f"slow-test ratchet: {tiers}; band up to {slow.fail_factor:g}× budget; "
            f"{len(self.pins)} pinned ({slow.pins})"
        )

    # tryfirst: the stopwatch hands over what it timed when this runs, so keep
    # other plugins' report handling (the terminal's progress output) out of it.
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # Hot path (three calls per test): read report.nodeid, a property that
        # builds a string, only where it is needed.
        extra = report.__dict__
        worker = extra.get("worker_id")
        if worker is None:
            # Run in this process: the local stopwatch timed it.
            function_s, shared = self._stopwatch.take()
        else:
            # Replayed from an xdist worker: its stopwatch wrote onto the report.
            function_s, shared = extra.get(_FIXTURES, 0.0), extra.get(_SHARED, ())
        when = report.when
        if when == "call":
            nodeid = report.nodeid
            tier = self._stopwatch.tiers.get(nodeid) if worker is None else extra.get(_TIER)
            self._calls[nodeid] = (report.duration, tier or self._default_tier, report.outcome)
        elif when == "setup":
            if function_s:
                self._fixtures[report.nodeid] = function_s
            for name, scope, seconds in shared:
                entry = self._shared.get((scope, name))
                if entry is None:
                    entry = self._shared[scope, name] = _Shared(scope=scope, first=report.nodeid)
                entry.count += 1
                entry.total += seconds
                entry.max = max(entry.max, seconds)
            if worker is not None:
                self._workers.add(str(worker))

    def measurements(self) -> list[Measurement]:
        # Only tests that reached their call phase are judged: a test skipped
        # or erroring in setup has no duration of its own to judge.
        fixtures = self._fixtures
        return [
            Measurement(nodeid, tier, call, fixtures.get(nodeid, 0.0), outcome)
            for nodeid, (call, tier, outcome) in self._calls.items()
        ]

    def fixture_costs(self) -> list[FixtureCost]:
        return [
            FixtureCost(
                name=name, scope=s.scope, count=s.count, total=s.total, max=s.max, first=s.first
            )
            for (_, name), s in self._shared.items()
        ]

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        measurements = self.measurements()
        judgement = judge(self.config.slow, measurements, self.pins)
        self.judgement = judgement
        if not judgement.passed and session.exitstatus == pytest.ExitCode.OK:
            # Every test passed, but the suite broke its time budget.
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.json_path is not None:
            data = envelope_data(
                self.config.slow,
                judgement,
                pins_file=self.config.slow.pins,
                fixtures=self.fixture_costs(),
                workers=len(self._workers),
                outcomes=Counter(m.outcome for m in measurements),
            )
            self.json_path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.json_path, json.dumps(data, indent=1) + "\n")

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        judgement = self.judgement
        if judgement is None or not judgement.judged:
            return
        terminalreporter.write_sep("=", "slow-test ratchet")
        for line in terminal_lines(self.config.slow, judgement, self.fixture_costs()):
            terminalreporter.write_line(line.text, **_STYLES[line.style])
        if judgement.failures:
            # Shown in pytest's final "N passed, 1 past slow budget" line.
            # pytest reads attributes off stats entries through __dict__, so
            # plain namespaces rather than the (tuple) verdicts themselves.
            terminalreporter.stats.setdefault(_STAT_KEY, []).extend(
                SimpleNamespace(nodeid=j.nodeid) for j in judgement.failures
            )
