"""The timing lane's pytest plugin: each process reports its own figures.

The lane runs the suite's real command with ``-p _lanes_timing_probe`` added.
The plugin is this file copied into a temporary directory on ``PYTHONPATH``,
so it loads in any virtualenv (the suite's own, not lanekit's) and in every
pytest-xdist worker (workers inherit the environment and the ``-p`` option).
It is therefore standard library only and imports nothing from lanekit.

Every pytest process (the controller and each xdist worker) writes one JSON
file, ``<role>.json``, into ``$LANES_TIMING_PROBE_DIR`` when its session finishes
(and rewrites it at unconfigure, when it still can):

- ``peak_rss_kib``: ``getrusage(RUSAGE_SELF).ru_maxrss`` — this process's own
  peak resident set, not its children's;
- ``cpu_ms``: this process's own user + system time;
- ``collected``, ``collect_start``/``collect_end`` (epoch seconds) and
  ``first_test`` — where the session's time before the first test went;
- ``xdist``: whether pytest-xdist is importable here, so the lane knows
  whether it can ask for ``-n``;
- ``tests``: ``nodeid -> seconds`` summed over setup, call and teardown (the
  controller receives every worker's reports, so it alone writes these);
- ``outcomes``: how many tests passed, failed, errored, were skipped;
- ``fixtures``: per fixture definition, the number of setups and their total
  and longest time, measured in the process that ran them.

Nothing is printed and no test outcome changes: the lane must measure the
suite, not a different one.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import sys
import time
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Generator

    from _pytest.fixtures import FixtureDef, SubRequest

ENV_DIR = "LANES_TIMING_PROBE_DIR"


class _Probe:
    def __init__(self, directory: str, role: str) -> None:
        self.directory = directory
        self.role = role
        self.collect_start: float | None = None
        self.collect_end: float | None = None
        self.first_test: float | None = None
        self.collected: int | None = None
        self.tests: dict[str, float] = {}
        self.outcomes: dict[str, int] = {}
        # (fixture name, scope, where it is defined) -> [setups, total s, max s]
        self.fixtures: dict[tuple[str, str, str], list[float]] = {}

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self) -> None:
        self.collect_start = time.time()

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.collect_end = time.time()
        self.collected = len(session.items)

    def pytest_runtest_logstart(self) -> None:
        if self.first_test is None:
            self.first_test = time.time()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.tests[report.nodeid] = self.tests.get(report.nodeid, 0.0) + report.duration
        # One outcome per test: a failed setup or call decides it, else the call.
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            outcome = "error" if report.when == "setup" and report.failed else report.outcome
            self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1
        elif report.when == "teardown" and report.failed:
            self.outcomes["error"] = self.outcomes.get("error", 0) + 1

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(
        self, fixturedef: FixtureDef[object], request: SubRequest
    ) -> Generator[None, None, None]:
        start = time.perf_counter()
        yield
        elapsed = time.perf_counter() - start
        key = (fixturedef.argname, fixturedef.scope, fixturedef.baseid or "<builtin or plugin>")
        entry = self.fixtures.setdefault(key, [0, 0.0, 0.0])
        entry[0] += 1
        entry[1] += elapsed
        entry[2] = max(entry[2], elapsed)

    def write(self, config: pytest.Config) -> None:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        report = {
            "role": self.role,
            "pid": os.getpid(),
            "python": ".".join(map(str, sys.version_info[:3])),
            "implementation": sys.implementation.name,
            "peak_rss_kib": usage.ru_maxrss,
            "cpu_ms": round((usage.ru_utime + usage.ru_stime) * 1000),
            "collected": self.collected,
            "collect_start": self.collect_start,
            "collect_end": self.collect_end,
            "first_test": self.first_test,
            "xdist": config.pluginmanager.hasplugin("xdist"),
            # The controller receives every worker's reports: its lists are the suite's.
            "tests": self.tests if self.role == "controller" else {},
            "outcomes": self.outcomes if self.role == "controller" else {},
            "fixtures": [
                {
                    "name": name,
                    "scope": scope,
                    "where": where,
                    "setups": int(n),
                    "total": total,
                    "max": most,
                }
                for (name, scope, where), (n, total, most) in self.fixtures.items()
            ],
        }
        # os.path, not pathlib: the probe loads in every measured process and must cost nothing.
        path = os.path.join(self.directory, f"{self.role}.json")  # noqa: PTH118  # see above
        # Written whole, then renamed: the lane never reads half a report.
        partial = f"{path}.{os.getpid()}.partial"
        with open(partial, "w", encoding="utf-8") as handle:  # noqa: PTH123  # see above
            json.dump(report, handle)
        os.replace(partial, path)  # noqa: PTH105  # see above


def pytest_configure(config: pytest.Config) -> None:
    directory = os.environ.get(ENV_DIR)
    if not directory:
        return
    # xdist hands each worker its id (gw0, gw1, ...) in config.workerinput; the
    # process without one is the controller. Not PYTEST_XDIST_WORKER from the
    # environment: a suite started from inside an xdist worker inherits it.
    workerinput = getattr(config, "workerinput", None)
    role = str(workerinput["workerid"]) if isinstance(workerinput, dict) else "controller"
    config.pluginmanager.register(_Probe(directory, role), "lanes-timing-probe")


# Written twice. At session finish, because an xdist worker reports "finished"
# to the controller right after its sessionfinish hooks and the controller may
# end the worker before it unconfigures (a report written only then was
# sometimes lost). Again at unconfigure, because plugins that write reports
# at the very end still grow the process's peak.
@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    probe = session.config.pluginmanager.get_plugin("lanes-timing-probe")
    if isinstance(probe, _Probe):
        probe.write(session.config)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    probe = config.pluginmanager.get_plugin("lanes-timing-probe")
    if isinstance(probe, _Probe):
        # A worker outliving its controller may find the lane already done
        # with the directory: its session-finish report stands.
        with contextlib.suppress(OSError):
            probe.write(config)
