"""The ratchet's verdict where CI shows test results: JUnit XML, CTRF, GitHub annotations.

A run can pass every test and still fail the ratchet; if the verdict lived
only in the exit code and the terminal, the CI's test report would show green
on a red job. So each confirmed offender becomes a failed test case named
after it in the ``slow-test ratchet`` class (JUnit ``classname``, CTRF
``suite``) — the form every JUnit/CTRF reporter displays, unlike testcase
properties, which most ignore. A run without offenders adds one passing
``slow-test ratchet`` case, so the report shows the ratchet ran.

On GitHub Actions (``GITHUB_ACTIONS=true``) each offender is also an
``::error`` workflow annotation at the test's file and line, each band test a
``::warning``, so they show on the pull request's diff.

The JUnit and CTRF writers are fed synthetic :class:`pytest.TestReport`\\ s
before they write their files (the ratchet judges in a session-finish
wrapper, ahead of every writer).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Final, Literal

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator

    from _pytest.junitxml import LogXML

__all__ = ["CLASSNAME", "Verdict", "feed_reports", "workflow_commands"]

CLASSNAME: Final = "slow-test ratchet"
_PASSED_NAME: Final = "all tests within their limits"

Verdict = tuple[str, tuple[str, int | None], str]
"""(node id, (file, 1-based line or None), message) of one offender."""


def _reports(
    nodeid: str, location: tuple[str, int | None], message: str
) -> Iterator[pytest.TestReport]:
    case = f"{CLASSNAME}::{nodeid}"
    line = None if location[1] is None else location[1] - 1  # reports hold 0-based lines
    where = (location[0], line, case)
    failed = bool(message)
    whens: tuple[Literal["setup", "call", "teardown"], ...] = ("setup", "call", "teardown")
    for when in whens:
        fails = failed and when == "call"
        yield pytest.TestReport(
            nodeid=case,
            location=where,
            keywords={},
            outcome="failed" if fails else "passed",
            longrepr=message if fails else None,
            when=when,
        )


def feed_reports(config: pytest.Config, offenders: list[Verdict]) -> None:
    """Give the JUnit and CTRF writers (when active) one case per offender."""
    cases = offenders or [(_PASSED_NAME, ("", None), "")]
    xml = _junit(config)
    ctrf = config.pluginmanager.get_plugin("ctrf_plugin")
    report_list = getattr(ctrf, "_report", None)
    for nodeid, location, message in cases:
        for report in _reports(nodeid, location, message):
            if xml is not None:
                xml.pytest_runtest_logreport(report)
                if report.when == "call":
                    # The class is the ratchet, the name the offending test.
                    xml.node_reporter(report).attrs.update(classname=CLASSNAME, name=nodeid)
            if report_list is not None and hasattr(report_list, "collect"):
                report_list.collect(report)


def _junit(config: pytest.Config) -> LogXML | None:
    try:
        from _pytest.junitxml import xml_key  # noqa: PLC0415  # the LogXML stash key; no public accessor exists
    except ImportError:
        return None
    return config.stash.get(xml_key, None)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_commands(
    offenders: list[Verdict],
    band: list[Verdict],
    env: os._Environ[str] | dict[str, str] | None = None,
) -> list[str]:
    """GitHub workflow commands for the offenders and band tests; [] outside GitHub Actions."""
    if (env if env is not None else os.environ).get("GITHUB_ACTIONS") != "true":
        return []
    lines: list[str] = []
    for command, verdicts in (("error", offenders), ("warning", band)):
        for nodeid, (path, line), message in verdicts:
            where = f"file={_escape_property(path)}"
            if line is not None:
                where += f",line={line}"
            title = _escape_property(f"{CLASSNAME}: {nodeid}")
            lines.append(f"::{command} {where},title={title}::{_escape_data(message)}")
    return lines
