"""The slow-test ratchet as a pytest plugin (entry point ``lanes.slow``).

Inert unless enabled: installing lanekit registers this module through the
``pytest11`` entry point, and it must change no one's pytest run by surprise.
So this module defines only ``pytest_addoption`` (the options must exist for
``--slow-ratchet`` to parse) and ``pytest_configure``, which returns at once
unless ``--slow-ratchet``/``--slow-json`` is given or ``[tool.lanes.slow]
enabled = true``. Only then are the two working plugins registered:

- :class:`Stopwatch`, wherever tests run (in-process, or on each xdist
  worker): times function-scoped fixture setup and resolves each test's tier
  while the item — with its real markers and path — still exists, and writes
  both onto the test reports. Extra keys in a report's ``__dict__`` travel
  through xdist's report serialisation unchanged.
- :class:`Ratchet`, on the controller only (never on an xdist worker): reads
  the reports — local ones, or the ones xdist replays from its workers — and
  judges at session end. Verdicts therefore come from the same data with
  ``-n 0`` and ``-n 2``.

What a test's time covers: its call phase plus the setup of its own
function-scoped fixtures. Fixtures of wider scope (class, module, package,
session) are set up inside whichever test happens to run first — a different
test on each xdist worker — so charging them would make verdicts depend on
scheduling; their cost is reported separately instead. Teardown is not
charged for the same reason (a module fixture's teardown runs inside the
module's last test).
"""

from __future__ import annotations

import json
import time
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from lanes._atomic import write_atomic
from lanes.config import Config, find_pyproject, load_config
from lanes.errors import LanesError
from lanes.slow.pins import PinList, load_pins
from lanes.slow.report import FixtureCost, envelope_data, terminal_lines
from lanes.slow.tiers import TierResolver
from lanes.slow.verdicts import Judgement, Measurement, judge

if TYPE_CHECKING:
    from collections.abc import Generator

__all__ = ["Ratchet", "Stopwatch", "pytest_addoption", "pytest_configure"]

# Report attributes this plugin adds (worker -> controller).
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


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lanes-slow", "slow-test ratchet (lanekit)")
    group.addoption(
        "--slow-ratchet",
        action="store_true",
        default=False,
        help="judge test durations against [tool.lanes.slow] tier budgets and the pin list; "
        "fail the run past fail_factor × budget (also: [tool.lanes.slow] enabled = true)",
    )
    group.addoption(
        "--slow-json",
        metavar="PATH",
        default=None,
        help="write the ratchet's result (the slow envelope's data) as JSON to PATH; "
        "implies --slow-ratchet",
    )
    group.addoption(
        "--slow-collect-to",
        metavar="PATH",
        default=None,
        help="write the collected node ids to PATH, one a line (used by `lanes slow check`)",
    )


def _pyproject(config: pytest.Config) -> Path | None:
    inipath = config.inipath
    if inipath is not None and inipath.name == "pyproject.toml":
        return inipath
    return find_pyproject(config.rootpath)


def _mentions_enabled(pyproject: Path | None) -> bool:
    """Whether ``[tool.lanes.slow]`` sets ``enabled`` at all (its value is validated later).

    A cheap look so that projects which never configured the ratchet do not
    pay for — or get broken by — a full parse of their ``[tool.lanes]``.
    """
    if pyproject is None:
        return False
    try:
        document = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False  # pytest itself reports a broken pyproject.toml
    tool = document.get("tool")
    lanes = tool.get("lanes") if isinstance(tool, dict) else None
    slow = lanes.get("slow") if isinstance(lanes, dict) else None
    return isinstance(slow, dict) and "enabled" in slow


def _usage_error(exc: LanesError) -> pytest.UsageError:
    return pytest.UsageError(f"{exc.message}\nhint: {exc.hint}")


def pytest_configure(config: pytest.Config) -> None:
    is_worker = hasattr(config, "workerinput")
    collect_to = config.getoption("slow_collect_to")
    if collect_to and not is_worker:
        config.pluginmanager.register(_NodeIdWriter(Path(collect_to)), "lanes-slow-collect")
    explicit = bool(config.getoption("slow_ratchet") or config.getoption("slow_json"))
    pyproject = _pyproject(config)
    if not explicit and not _mentions_enabled(pyproject):
        return
    if config.getoption("collectonly"):
        return
    try:
        lanes_config = load_config(pyproject, cwd=config.rootpath)
        if not explicit and not lanes_config.slow.enabled:
            return
        pins = load_pins(lanes_config.root / lanes_config.slow.pins, slow=lanes_config.slow)
    except LanesError as exc:
        raise _usage_error(exc) from None
    config.pluginmanager.register(Stopwatch(lanes_config), "lanes-slow-stopwatch")
    if not is_worker:
        json_path = config.getoption("slow_json")
        ratchet = Ratchet(lanes_config, pins, None if json_path is None else Path(json_path))
        config.pluginmanager.register(ratchet, "lanes-slow-ratchet")


class _NodeIdWriter:
    def __init__(self, path: Path) -> None:
        self.path = path

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        write_atomic(self.path, "".join(f"{item.nodeid}\n" for item in session.items))


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
        names = (m.name for m in item.iter_markers()) if self._resolver.markers else ()
        return self._resolver.resolve(self._relative(item), names)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        # Written into __dict__ on purpose: that is what xdist serialises.
        if call.when == "setup":
            report.__dict__[_FIXTURES] = self._function
            if self._shared:
                report.__dict__[_SHARED] = self._shared
        elif call.when == "call":
            report.__dict__[_TIER] = self.tier_of(item)
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


@dataclass
class _Test:
    setup: float = 0.0
    fixtures: float = 0.0
    call: float | None = None
    teardown: float = 0.0
    tier: str = ""
    outcome: str = "passed"


@dataclass
class _Collected:
    tests: dict[str, _Test] = field(default_factory=dict)
    shared: dict[str, _Shared] = field(default_factory=dict)
    workers: set[str] = field(default_factory=set)


class Ratchet:
    """Judges on the controller; fails the session past the limits."""

    def __init__(self, config: Config, pins: PinList, json_path: Path | None) -> None:
        self.config = config
        self.pins = pins
        self.json_path = json_path
        self.judgement: Judgement | None = None
        self._seen = _Collected()

    def pytest_report_header(self) -> str:
        slow = self.config.slow
        tiers = ", ".join(f"{t.name} {t.budget:g} s" for t in slow.tiers.values())
        return (
            f"slow-test ratchet: {tiers}; band up to {slow.fail_factor:g}× budget; "
            f"{len(self.pins)} pinned ({slow.pins})"
        )

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        seen = self._seen
        test = seen.tests.get(report.nodeid)
        if test is None:
            test = seen.tests[report.nodeid] = _Test()
        extra = report.__dict__
        worker = extra.get("worker_id")
        if worker is not None:
            seen.workers.add(str(worker))
        when = report.when
        if when == "setup":
            test.setup = report.duration
            test.fixtures = float(extra.get(_FIXTURES, 0.0))
            for name, scope, seconds in extra.get(_SHARED, ()):
                key = f"{scope}:{name}"
                shared = seen.shared.get(key)
                if shared is None:
                    shared = seen.shared[key] = _Shared(scope=scope, first=report.nodeid)
                shared.count += 1
                shared.total += seconds
                shared.max = max(shared.max, seconds)
        elif when == "call":
            test.call = report.duration
            test.tier = str(extra.get(_TIER, self.config.slow.default_tier))
            test.outcome = report.outcome
        else:
            test.teardown = report.duration

    def measurements(self) -> list[Measurement]:
        # Only tests that reached their call phase are judged: a test skipped
        # or erroring in setup has no duration of its own to judge.
        return [
            Measurement(
                nodeid=nodeid,
                tier=test.tier,
                call=test.call,
                fixtures=test.fixtures,
                setup=test.setup,
                teardown=test.teardown,
                outcome=test.outcome,
            )
            for nodeid, test in self._seen.tests.items()
            if test.call is not None
        ]

    def fixture_costs(self) -> list[FixtureCost]:
        return [
            FixtureCost(
                name=key.partition(":")[2],
                scope=s.scope,
                count=s.count,
                total=s.total,
                max=s.max,
                first=s.first,
            )
            for key, s in self._seen.shared.items()
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
                workers=len(self._seen.workers),
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
