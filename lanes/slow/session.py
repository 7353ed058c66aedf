"""The enabled ratchet's pytest plugins (registered by :mod:`lanes.slow.plugin`).

- :class:`~lanes.slow.stopwatch.Stopwatch` (or, on an xdist worker, the
  :class:`~lanes.slow.stopwatch.WorkerStopwatch`) wherever tests run: it
  times them (see its module).
- :class:`Ratchet` runs on the controller only (a confirmation child runs
  :class:`~lanes.slow.confirmation.Retimer` instead). It has no per-report
  hook: at session end it reads the reports the terminal reporter keeps (its public
  ``stats``) — local ones, timed by the local stopwatch, or the annotated ones
  xdist replays from its workers — and judges. Verdicts therefore come from
  the same data with ``-n 0`` and ``-n 2``. Only without a terminal reporter
  (``-p no:terminal``) does a hook keep the reports instead.

After the suite the controller re-times the offenders
(:mod:`lanes.slow.confirmation`), records the last run
(:mod:`lanes.slow.lastrun`) and hands its verdict to JUnit, CTRF and GitHub
Actions (:mod:`lanes.slow.ci`) — in a session-finish *wrapper*, so that every
report writer runs after the verdict exists.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Final

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
from lanes.slow.setups import setup_times
from lanes.slow.stopwatch import (
    REPORT_BUDGET,
    REPORT_SHARED,
    REPORT_TIER,
    SharedFixture,
    SharedSetup,
    Stopwatch,
    WorkerStopwatch,
)
from lanes.slow.verdicts import Judged, Judgement, Timings, Verdict, confirm, judge

if TYPE_CHECKING:
    from collections.abc import Generator

    from lanes.payloads.slow import SlowRetimed

__all__ = ["Ratchet", "start"]

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
    plan = config.getoption("slow_retime")
    if plan is not None:
        _start_retimer(config, plan, stopwatch)
        return
    json_path = config.getoption("slow_json")
    ratchet = Ratchet(lanes_config, pins, stopwatch, None if json_path is None else Path(json_path))
    config.pluginmanager.register(ratchet, "lanes-slow-ratchet")


def _start_retimer(config: pytest.Config, plan: str, stopwatch: Stopwatch) -> None:
    """A confirmation child (:mod:`lanes.slow.confirmation`): a stopwatch, no verdict."""
    # Confirmation children only: the suite's own run never imports these.
    from lanes.slow.confirmation import Retimer, read_plan  # noqa: PLC0415
    from lanes.slow.runqueue import RunQueueClock, available  # noqa: PLC0415

    clock = None
    if available():
        clock = RunQueueClock()
        config.pluginmanager.register(clock, "lanes-slow-runqueue")
    config.pluginmanager.register(Retimer(read_plan(plan), stopwatch, clock), "lanes-slow-retimer")


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
        # The shared fixtures set up inside a test's setup, once timed.
        self._shared: dict[tuple[str, str], SharedFixture] = {}
        # Without a terminal reporter (-p no:terminal), the reports this run logged.
        self._log: _ReportLog | None = None
        self._workers: set[str] = set()
        self._deselected = 0
        self._partial: list[str] = []
        self._outcomes: dict[str, int] = {}
        self._args: list[str] = []
        # How the offenders were re-timed (the envelope's "retimed"); None: none was.
        self._retimed: SlowRetimed | None = None

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
        duration of its own to judge. A test's setup is charged less the
        shared fixtures set up in it (:mod:`lanes.slow.setups`).
        """
        stopwatch = self._stopwatch
        test_report = pytest.TestReport
        # Exactly TestReport: a subtest's report (a subclass) carries its
        # test's node id but not its duration; other statistics are not reports.
        reports = [r for group in self._groups(config) for r in group if type(r) is test_report]
        called = [r for r in reports if r.when == "call"]
        setups = [r for r in reports if r.when == "setup"]
        tiers = dict(stopwatch.tiers)
        budgets = dict(stopwatch.budgets)
        shared_setups = stopwatch.shared_setups
        if called and "worker_id" in called[0].__dict__:
            shared_setups = self._from_workers(reports, tiers, budgets)
        self._called = called
        calls = {r.nodeid: r.duration for r in called if r.outcome != _RERUN}
        reran = [r for r in called if r.outcome == _RERUN]
        setup = setup_times(setups, shared_setups, {r.nodeid for r in reran})
        self._shared = setup.shared
        fixtures = setup.last
        reruns: dict[str, list[float]] = {}
        for report in reran:
            # Keep every attempt, with its own setup; the slowest is judged.
            attempts = reruns.setdefault(report.nodeid, [])
            own = setup.attempts[report.nodeid]
            attempts.append(
                report.duration + (own[len(attempts)] if len(attempts) < len(own) else 0.0)
            )
        return Timings(
            calls,
            fixtures=fixtures,
            tiers=tiers,
            budgets=budgets,
            attempts=_slowest_attempts(reruns, calls, fixtures),
        )

    def _from_workers(
        self, reports: list[pytest.TestReport], tiers: dict[str, str], budgets: dict[str, float]
    ) -> list[SharedSetup]:
        """What the workers' stopwatches wrote onto the reports xdist replayed."""
        shared_setups: list[SharedSetup] = []
        for report in reports:
            extra = report.__dict__
            worker = extra.get("worker_id")
            if worker is None:
                continue
            self._workers.add(str(worker))
            if REPORT_SHARED in extra:
                shared_setups.extend(SharedSetup(*entry) for entry in extra[REPORT_SHARED])
            if report.when == "call" and report.outcome != _RERUN:
                nodeid = report.nodeid
                if REPORT_TIER in extra:
                    tiers[nodeid] = extra[REPORT_TIER]
                if REPORT_BUDGET in extra:
                    budgets[nodeid] = extra[REPORT_BUDGET]
        return shared_setups

    def _groups(self, config: pytest.Config) -> list[list[object]]:
        """The logged reports, in groups (the terminal reporter's categories)."""
        if self._log is not None:
            return [self._log.reports]
        stats = _terminal_stats(config)
        if not isinstance(stats, dict):
            return []
        return list(stats.values())

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
            for (_, name), s in self._shared.items()
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
        # The history is only ever pins' (write_last_run keeps no other):
        # without pins, no read of the whole last-run record.
        previous = read_last_run(self.config)["history"] if len(self.pins) else {}
        judgement = judge(slow, timings, self.pins, previous)
        interrupted = session.exitstatus == pytest.ExitCode.INTERRUPTED
        if judgement.failures and slow.confirm and not interrupted:  # Ctrl-C means stop now
            from lanes.slow.confirmation import retime  # noqa: PLC0415  # only a run with offenders pays

            retiming = retime(
                session,
                judgement.failures,
                slow.confirm,
                once_past=config.getoption("slow_confirm_once_past"),
                stopwatch=self._stopwatch,
                spawn=config.getoption("slow_confirm_spawn"),
            )
            self._retimed = {"child": retiming.child, "why": retiming.why}
            judgement = confirm(judgement, retiming.samples)
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
            retimed=self._retimed,
        )
        self.json_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.json_path, json.dumps(data, indent=1) + "\n")
        # The session finished: the marker that says it started is answered.
        self.json_path.with_name(self.json_path.name + ".started").unlink(missing_ok=True)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        judgement = self.judgement
        if judgement is None or not judgement.count:
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
        # Not the passing teardowns: nothing reads them.
        if report.when != "teardown" or not report.passed:
            self.reports.append(report)


def _terminal_stats(config: pytest.Config) -> object:
    """The terminal reporter's ``stats`` (its public record of every report), if there is one."""
    return getattr(config.pluginmanager.get_plugin("terminalreporter"), "stats", None)
