"""The enabled ratchet's two pytest plugins (registered by :mod:`lanes.slow.plugin`).

- :class:`Stopwatch` runs wherever tests run (in-process, or on each xdist
  worker): it times function-scoped fixture setup and resolves each test's
  tier while the item — with its real markers and path — still exists, and
  writes both onto the test reports. Extra keys in a report's ``__dict__``
  travel through xdist's report serialisation unchanged.
- :class:`Ratchet` runs on the controller only: it reads the reports — local
  ones, or the ones xdist replays from its workers — and judges at session
  end. Verdicts therefore come from the same data with ``-n 0`` and ``-n 2``.

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

__all__ = ["Ratchet", "Stopwatch", "start"]

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
    config.pluginmanager.register(Stopwatch(lanes_config), "lanes-slow-stopwatch")
    if not is_worker:
        json_path = config.getoption("slow_json")
        ratchet = Ratchet(lanes_config, pins, None if json_path is None else Path(json_path))
        config.pluginmanager.register(ratchet, "lanes-slow-ratchet")


class Stopwatch:
    """Runs where tests run: fixture timing and tier resolution onto the reports."""

    def __init__(self, config: Config) -> None:
        self._root = config.root
        self._resolver = TierResolver(config.slow)
        self._paths: dict[Path, str] = {}
        # Exclusive timing: a fixture that requests another inside its own body
        # (request.getfixturevalue) must not be charged for the inner one too.
        self._stack: list[float] = []
        self._function = 0.0
        self._shared: list[tuple[str, str, float]] = []

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

    def _relative(self, item: pytest.Item) -> str:
        path = item.path
        relative = self._paths.get(path)
        if relative is None:
            try:
                relative = path.relative_to(self._root).as_posix()
            except ValueError:
                relative = item.nodeid.partition("::")[0]
            self._paths[path] = relative
        return relative

    def tier_of(self, item: pytest.Item) -> str:
        resolver = self._resolver
        if not resolver.has_rules:
            return resolver.default
        names = (m.name for m in item.iter_markers()) if resolver.markers else ()
        return resolver.resolve(self._relative(item), names)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        when = call.when
        # Written into __dict__ on purpose: that is what xdist serialises.
        if when == "call":
            report.__dict__[_TIER] = self.tier_of(item)
        elif when == "setup":
            if self._function:
                report.__dict__[_FIXTURES] = self._function
            if self._shared:
                report.__dict__[_SHARED] = self._shared
        # Fixtures set up lazily inside the call are already in its duration.
        self._function = 0.0
        self._shared = []
        return report


@dataclass
class _Shared:
    scope: str
    first: str
    count: int = 0
    total: float = 0.0
    max: float = 0.0


class Ratchet:
    """Judges on the controller; fails the session past the limits."""

    def __init__(self, config: Config, pins: PinList, json_path: Path | None) -> None:
        self.config = config
        self.pins = pins
        self.json_path = json_path
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

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        when = report.when
        extra = report.__dict__
        if when == "call":
            tier = extra.get(_TIER) or self.config.slow.default_tier
            self._calls[report.nodeid] = (report.duration, tier, report.outcome)
        elif when == "setup":
            fixtures = extra.get(_FIXTURES)
            if fixtures:
                self._fixtures[report.nodeid] = fixtures
            for name, scope, seconds in extra.get(_SHARED, ()):
                shared = self._shared.get((scope, name))
                if shared is None:
                    shared = self._shared[scope, name] = _Shared(scope=scope, first=report.nodeid)
                shared.count += 1
                shared.total += seconds
                shared.max = max(shared.max, seconds)
            worker = extra.get("worker_id")
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
            terminalreporter.stats.setdefault(_STAT_KEY, []).extend(judgement.failures)
