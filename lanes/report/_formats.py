"""The report in the formats CI tools already read: JUnit XML, CTRF JSON, GitHub annotations.

Every lane verdict is a test case (suite = the lane), and so is every finding
a lane's view names (a slow offender, a fuzz failure, a torture violation, a
new surviving mutant), so a CI test reporter lists them where developers look.
Side runs (replays, self-checks) are left out: they are not the lanes'
verdicts. Invalid envelopes are errors: their verdict cannot be trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

    from lanes.report._view import LaneView, ReportView
    from lanes.report.views._blocks import Finding

__all__ = [
    "Case",
    "cases",
    "cases_of",
    "ctrf",
    "github_annotations",
    "in_toto_statements",
    "junit_xml",
]

# XML 1.0 cannot carry most control characters at all, escaped or not.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
MAX_MESSAGE = 2000


def _clean(text: str) -> str:
    text = _XML_INVALID.sub("\ufffd", text)
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


@dataclass(frozen=True)
class Case:
    suite: str
    name: str
    status: str
    """passed, failed, skipped (a reported miss) or error (CTRF: 'other' for both)."""
    message: str
    duration_ms: int
    file: str | None = None
    line: int | None = None


def _duration_ms(lane: LaneView) -> int:
    text = lane.duration
    try:
        if text.endswith(" ms"):
            return int(text.removesuffix(" ms"))
        if text.endswith(" s") and " min " not in text:
            return round(float(text.removesuffix(" s")) * 1000)
    except ValueError:
        pass
    return 0


def _lane_case(lane: LaneView) -> Case:
    if lane.status == "invalid":
        problems = "; ".join(lane.problems)
        return Case(lane.file, "envelope", "error", f"invalid envelope: {problems}", 0)
    if lane.status == "error":
        return Case(
            lane.label, "verdict", "error", lane.error or "the lane crashed", _duration_ms(lane)
        )
    failed = [finding for finding in lane.findings if finding.failed]
    message = (
        f"{len(failed)} finding(s): " + "; ".join(finding.name for finding in failed[:10])
        if failed
        else ""
    )
    return Case(
        lane.label,
        "verdict",
        "passed" if lane.status == "pass" else "failed",
        message or ("" if lane.status == "pass" else "the lane's verdict is fail"),
        _duration_ms(lane),
    )


def _finding_case(lane: LaneView, finding: Finding) -> Case:
    return Case(
        suite=lane.label,
        name=finding.name,
        status="failed" if finding.failed else "skipped" if finding.warning else "passed",
        message=finding.message,
        duration_ms=0,
        file=finding.file,
        line=finding.line,
    )


def cases_of(lane: LaneView) -> Iterator[Case]:
    """A lane's verdict, then each of its findings."""
    yield _lane_case(lane)
    for finding in lane.findings:
        yield _finding_case(lane, finding)


def cases(view: ReportView) -> Iterator[Case]:
    """Every lane verdict and every finding, lane by lane (side runs left out)."""
    for lane in view.lanes:
        if lane.side is None:
            yield from cases_of(lane)


def junit_xml(view: ReportView) -> str:
    """JUnit XML (the Ant/Jenkins dialect every CI reporter reads): one suite per lane."""
    root = ET.Element("testsuites", name="lanekit lanes")
    suites: dict[str, ET.Element] = {}
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for case in cases(view):
        suite = suites.get(case.suite)
        if suite is None:
            suite = ET.SubElement(root, "testsuite", name=_clean(case.suite))
            suite.attrib.update(tests="0", failures="0", errors="0", skipped="0")
            suites[case.suite] = suite
        element = ET.SubElement(
            suite,
            "testcase",
            classname=_clean(f"lanes.{case.suite}"),
            name=_clean(case.name),
            time=f"{case.duration_ms / 1000:.3f}",
        )
        if case.file:
            element.set("file", _clean(case.file))
        if case.line is not None:
            element.set("line", str(case.line))
        suite.set("tests", str(int(suite.get("tests", "0")) + 1))
        totals["tests"] += 1
        if case.status == "skipped":
            ET.SubElement(element, "skipped", message=_clean(case.message))
            suite.set("skipped", str(int(suite.get("skipped", "0")) + 1))
        elif case.status in ("failed", "error"):
            tag = "failure" if case.status == "failed" else "error"
            key = "failures" if tag == "failure" else "errors"
            detail = ET.SubElement(
                element, tag, message=_clean(case.message.splitlines()[0] if case.message else tag)
            )
            detail.text = _clean(case.message)
            suite.set(key, str(int(suite.get(key, "0")) + 1))
            totals[key] += 1
        if case.status == "skipped":
            totals["skipped"] += 1
    root.attrib.update({key: str(value) for key, value in totals.items()})
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def ctrf(view: ReportView, *, start_ms: int, stop_ms: int) -> str:
    """CTRF JSON (https://ctrf.io): one test per lane verdict and per finding."""
    tests = []
    summary = {"tests": 0, "passed": 0, "failed": 0, "pending": 0, "skipped": 0, "other": 0}
    for case in cases(view):
        status = case.status if case.status in ("passed", "failed") else "other"
        summary["tests"] += 1
        summary[status] += 1
        test: dict[str, object] = {
            "name": f"{case.suite}: {case.name}",
            "status": status,
            "duration": case.duration_ms,
            "suite": case.suite,
        }
        if case.message:
            test["message"] = case.message
        if case.file:
            test["filePath"] = case.file
        if case.line is not None:
            test["line"] = case.line
        tests.append(test)
    document = {
        "reportFormat": "CTRF",
        "specVersion": "0.0.0",
        "results": {
            "tool": {"name": "lanekit"},
            "summary": {**summary, "start": start_ms, "stop": stop_ms},
            "tests": tests,
        },
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- annotations


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _line_of(file: str, nodeid: str, root: Path) -> int | None:
    """The line of a pytest node id's test function in the checkout, or None.

    The node id's classes are followed in order (``Outer::Inner::test_x``):
    unittest-style suites repeat method names (``test_basic``) in every class.
    """
    names = [part.split("[", 1)[0] for part in nodeid.split("::")[1:]]
    path = root / file
    if not names or not all(name.isidentifier() for name in names) or not path.is_file():
        return None
    *classes, function = names
    patterns = [re.compile(rf"^\s*class\s+{re.escape(name)}\b") for name in classes]
    patterns.append(re.compile(rf"^\s*(?:async\s+)?def\s+{re.escape(function)}\b"))
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                if patterns[0].match(line):
                    patterns.pop(0)
                    if not patterns:
                        return number
    except OSError:
        return None
    return None


def github_annotations(view: ReportView, *, root: Path, limit: int = 50) -> list[str]:
    """``::error file=…,line=…::…`` workflow commands for failed findings that have a file.

    A slow offender's node id names its file; its line is looked up in the
    checkout (``root``). GitHub shows at most 10 annotations per step and 50
    per job, so more are not written.
    """
    lines: list[str] = []
    for lane in view.lanes:
        if lane.side is not None:
            continue
        for finding in lane.findings:
            if (
                not finding.failed
                or not finding.file
                or Path(finding.file).is_absolute()
                or ".." in Path(finding.file).parts
            ):
                continue
            line = finding.line or _line_of(finding.file, finding.name, root)
            properties = [f"file={_escape_property(finding.file)}"]
            if line is not None:
                properties.append(f"line={line}")
            properties.append(f"title={_escape_property(f'{lane.lane}: {finding.name}')}")
            lines.append(f"::error {','.join(properties)}::{_escape_data(finding.message)}")
            if len(lines) == limit:
                return lines
    return lines


# ---------------------------------------------------------------- in-toto

IN_TOTO_STATEMENT = "https://in-toto.io/Statement/v1"
TEST_RESULT_PREDICATE = "https://in-toto.io/attestation/test-result/v0.1"


def _run_url() -> str | None:
    """The GitHub Actions run, when this runs in one."""
    server, repository, run = (
        os.environ.get(name) for name in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")
    )
    if server and repository and run:
        return f"{server}/{repository}/actions/runs/{run}"
    return None


def in_toto_statements(view: ReportView, directory: Path) -> dict[str, str]:
    """One in-toto Statement (test-result predicate v0.1) per lane envelope, by file name.

    The subject is the commit the lane measured (or, outside git, the envelope
    file itself); the configuration names the envelope and the lane's
    ``config_hash``. Unsigned: sign them with the tool your CI evidence uses
    (e.g. ``cosign attest-blob``).
    """
    statements: dict[str, str] = {}
    url = _run_url()
    for lane in view.lanes:
        if lane.side is not None or lane.status == "invalid":
            continue
        path = directory / lane.file
        try:
            envelope_digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            continue  # gone since it was read: nothing to attest
        subject = (
            {"name": "git", "digest": {"gitCommit": lane.commit}}
            if lane.commit
            else {"name": lane.file, "digest": {"sha256": envelope_digest}}
        )
        by_status: dict[str, list[str]] = {"passed": [], "skipped": [], "failed": []}
        for case in cases_of(lane):
            # A reported miss (skipped) is a warning; failed and error both fail.
            key = case.status if case.status in by_status else "failed"
            by_status[key].append(f"{case.suite}: {case.name}")
        predicate: dict[str, object] = {
            "result": "pass" if lane.status == "pass" else "fail",
            "configuration": [
                {"name": f"envelopes/{lane.file}", "digest": {"sha256": envelope_digest}},
                {
                    "name": f"config_hash of the {lane.lane} lane",
                    "digest": {"sha256": lane.config_hash.removeprefix("sha256:")},
                },
            ],
            "passedTests": by_status["passed"],
            "warnedTests": by_status["skipped"],
            "failedTests": by_status["failed"],
        }
        if url is not None:
            predicate["url"] = url
        statement = {
            "_type": IN_TOTO_STATEMENT,
            "subject": [subject],
            "predicateType": TEST_RESULT_PREDICATE,
            "predicate": predicate,
        }
        statements[lane.file.removesuffix(".json") + ".intoto.json"] = (
            json.dumps(statement, indent=2, ensure_ascii=False) + "\n"
        )
    return statements
