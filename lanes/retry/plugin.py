"""The pytest plugin ``lanes retry run`` loads into its child runs (``-p lanes.retry.plugin``).

It records one attempt as JSON (``--retry-record=PATH``): every failed test
report with the proof of a timeout, collection errors, crashed xdist workers,
a coverage shortfall and the exit status. With ``--retry-only=PATH`` it keeps
only the node ids listed there (the second attempt re-runs the failures with
the same arguments otherwise).

**Runner-proven timeouts.** pytest-timeout arms its timer through its own
``pytest_timeout_set_timer`` hook; this plugin wraps that hook and, for the
``signal`` method, wraps the SIGALRM handler pytest-timeout installed, so a
test counts as timed out only when pytest-timeout's timer actually fired for
it — never because a message says "Timeout". The mark travels on the report
(``__dict__``), which xdist serialises to the controller. The ``thread``
method ends the whole process with ``os._exit``: no test report exists, the
attempt record is never written, and the retry is refused as a session error.

Not an entry point: projects that never run ``lanes retry`` never load it.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Final

import pytest

from lanes._atomic import write_atomic

if TYPE_CHECKING:
    from collections.abc import Generator
    from types import FrameType

    from lanes.payloads.retry import RetryFailure

__all__ = ["TIMEOUT_MARK", "pytest_addoption", "pytest_configure"]

TIMEOUT_MARK: Final = "lanes_retry_timeout"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lanes-retry", "contention retry (lanekit)")
    group.addoption(
        "--retry-record", metavar="PATH", default=None, help="write this attempt's record"
    )
    group.addoption(
        "--retry-only", metavar="PATH", default=None, help="run only the node ids listed in PATH"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_Recorder(config), "lanes-retry-recorder")


class _Recorder:
    def __init__(self, config: pytest.Config) -> None:
        record = config.getoption("retry_record")
        only = config.getoption("retry_only")
        self.is_worker = hasattr(config, "workerinput")
        self.record_path = None if record is None or self.is_worker else Path(record)
        self.only = (
            None if only is None else set(Path(only).read_text(encoding="utf-8").split("\n")) - {""}
        )
        self.fired: set[str] = set()
        self.failures: list[RetryFailure] = []
        self.collection_errors: list[str] = []
        self.crashed_workers: list[str] = []
        self.selected = 0

    # -- where tests run ---------------------------------------------------
    @pytest.hookimpl(wrapper=True, optionalhook=True)
    def pytest_timeout_set_timer(
        self, item: pytest.Item, settings: object
    ) -> Generator[None, object, object]:
        result = yield
        installed = signal.getsignal(signal.SIGALRM)
        if callable(installed) and getattr(settings, "method", None) == "signal":
            fired = self.fired
            nodeid = item.nodeid

            def proven(signum: int, frame: FrameType | None) -> None:
                fired.add(nodeid)  # pytest-timeout's own timer fired for this test
                installed(signum, frame)

            signal.signal(signal.SIGALRM, proven)
        return result

    @pytest.hookimpl(tryfirst=True)  # before xdist serialises the report
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed and report.nodeid in self.fired:
            report.__dict__[TIMEOUT_MARK] = True
        if self.record_path is not None and report.failed:
            self.failures.append(
                {
                    "nodeid": report.nodeid,
                    "when": report.when,
                    "file": report.nodeid.partition("::")[0],
                    "timeout": bool(report.__dict__.get(TIMEOUT_MARK)),
                }
            )

    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        if self.only is None:
            return
        keep = [item for item in items if item.nodeid in self.only]
        dropped = [item for item in items if item.nodeid not in self.only]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = keep

    # -- the controller ----------------------------------------------------
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collection_errors.append(report.nodeid or "<session>")

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(
        self, crashitem: str, report: pytest.TestReport, sched: object
    ) -> None:
        self.crashed_workers.append(f"{getattr(report, 'worker_id', '?')}: {crashitem}")

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.selected = len(session.items)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.record_path is None:
            return
        record = {
            "exit": int(exitstatus),
            "failures": self.failures,
            "collection_errors": self.collection_errors,
            "crashed_workers": self.crashed_workers,
            "coverage_shortfall": _coverage_shortfall(session.config),
            "testsfailed": session.testsfailed,
        }
        write_atomic(self.record_path, json.dumps(record, indent=1) + "\n")


def _coverage_shortfall(config: pytest.Config) -> str | None:
    """pytest-cov's own fail-under verdict, when it has one."""
    cov = config.pluginmanager.get_plugin("_cov")
    total = getattr(cov, "cov_total", None)
    options = getattr(cov, "options", None)
    under = getattr(options, "cov_fail_under", None)
    if (
        isinstance(total, int | float)
        and isinstance(under, int | float)
        and under
        and total < under
    ):
        return f"total coverage {total:.2f}% is under --cov-fail-under {under:g}%"
    return None
