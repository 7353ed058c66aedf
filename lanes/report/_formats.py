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
import uuid
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from lanes import __version__

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
    "in_toto_jsonl",
    "in_toto_statements",
    "junit_xml",
    "provenance",
    "test_result",
]

# XML 1.0 cannot carry most control characters at all, escaped or not.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
MAX_MESSAGE = 2000
# The CTRF specification version the schema in tests/report/schemas/ validates.
CTRF_SPEC_VERSION = "0.0.0"


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
    kind: str = "verdict"
    """"verdict" (the lane's own case) or "finding" (one thing its view names)."""


def _lane_case(lane: LaneView) -> Case:
    if lane.status == "invalid":
        problems = "; ".join(lane.problems)
        return Case(lane.file, "envelope", "error", f"invalid envelope: {problems}", 0)
    if lane.status == "error":
        return Case(
            lane.label, "verdict", "error", lane.error or "the lane crashed", lane.duration_ms
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
        # The envelope's integer, not the display text: "1 min 15 s" parsed back gave 0.
        lane.duration_ms,
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
        kind="finding",
    )


def cases_of(lane: LaneView) -> Iterator[Case]:
    """A lane's verdict, then each of its findings."""
    yield _lane_case(lane)
    for finding in lane.findings:
        yield _finding_case(lane, finding)


def _main_lanes(view: ReportView) -> Iterator[LaneView]:
    """The lanes' own envelopes: side runs (replays, self-checks) are not their verdicts."""
    # Stale envelopes (another commit or run) are not this run's verdicts either.
    return (lane for lane in view.lanes if lane.side is None and lane.current)


def cases(view: ReportView) -> Iterator[Case]:
    """Every lane verdict and every finding, lane by lane (side runs left out)."""
    for lane in _main_lanes(view):
        yield from cases_of(lane)


def provenance(lane: LaneView) -> dict[str, str]:
    """What the envelope says about its own run, for the formats' extension points.

    Neither JUnit nor CTRF has a field for a lane's configuration hash or its
    measured commit; they ride in JUnit ``<properties>`` and CTRF ``extra``
    rather than being dropped. Empty values (an invalid envelope's) are left out.
    """
    fields = {
        "envelope": lane.file,
        "lane": "" if lane.status == "invalid" else lane.lane,
        "result": lane.result,
        "stage": lane.stage,
        "config_hash": lane.config_hash,
        "commit": lane.commit or "",
        "group_id": lane.group_id,
        "started_at": lane.started_at,
    }
    return {key: value for key, value in fields.items() if value}


def _seconds(ms: int) -> str:
    # SUREFIRE_TIME in junit-10.xsd: digits, at most three decimals, no exponent.
    return f"{ms / 1000:.3f}"


def _location(case: Case) -> str | None:
    """A finding's file and line, as text: junit-10.xsd has no attribute for them on a testcase."""
    if not case.file:
        return None
    return f"location: {case.file}" + (f":{case.line}" if case.line is not None else "")


def _junit_case(suite: ET.Element, case: Case) -> str | None:
    """One ``<testcase>``; returns the suite counter it adds to (failures, errors, skipped)."""
    element = ET.SubElement(
        suite,
        "testcase",
        name=_clean(case.name),
        classname=_clean(f"lanes.{case.suite}"),
        time=_seconds(case.duration_ms),
    )
    counter = None
    if case.status == "skipped":
        ET.SubElement(element, "skipped", message=_clean(case.message))
        counter = "skipped"
    elif case.status in ("failed", "error"):
        tag = "failure" if case.status == "failed" else "error"
        detail = ET.SubElement(
            element, tag, message=_clean(case.message.splitlines()[0] if case.message else tag)
        )
        detail.text = _clean(case.message)
        counter = "failures" if tag == "failure" else "errors"
    location = _location(case)
    if location is not None:
        ET.SubElement(element, "system-out").text = _clean(location)
    return counter


def junit_xml(view: ReportView) -> str:
    """JUnit XML valid by the Jenkins/xunit ``junit-10.xsd`` (what pytest checks its own against).

    One ``<testsuite>`` per lane with the envelope's provenance as
    ``<properties>`` (``lanekit.*``) and its duration as ``time``; the schema
    allows ``skipped`` on a suite but not on ``<testsuites>``, and no ``file``
    or ``line`` on a ``<testcase>``: a finding's location is its ``<system-out>``.
    """
    root = ET.Element("testsuites", name="lanekit lanes")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    total_ms = 0
    for lane in _main_lanes(view):
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        suite = ET.SubElement(root, "testsuite", name=_clean(_lane_case(lane).suite))
        properties = ET.SubElement(suite, "properties")
        for key, value in provenance(lane).items():
            ET.SubElement(properties, "property", name=f"lanekit.{key}", value=_clean(value))
        for case in cases_of(lane):
            counts["tests"] += 1
            counter = _junit_case(suite, case)
            if counter is not None:
                counts[counter] += 1
        suite.attrib.update({key: str(value) for key, value in counts.items()})
        suite.set("time", _seconds(lane.duration_ms))
        suite.set("file", _clean(lane.file))
        if lane.started_at:
            suite.set("timestamp", lane.started_at)
        for key in totals:
            totals[key] += counts[key]
        total_ms += lane.duration_ms
    root.attrib.update({key: str(value) for key, value in totals.items()})
    root.set("time", _seconds(total_ms))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


_CTRF_KEYS = {"config_hash": "configHash", "group_id": "groupId", "started_at": "startedAt"}


def ctrf(view: ReportView, *, start_ms: int, stop_ms: int) -> str:
    """CTRF JSON (https://ctrf.io), valid by the published schema: one test per verdict and finding.

    ``suite`` is the hierarchy (a one-element list: the lane); lanekit's own
    fields go under ``extra.lanekit`` (the schema's extension point).
    """
    tests = []
    summary = {"tests": 0, "passed": 0, "failed": 0, "pending": 0, "skipped": 0, "other": 0}
    suites = 0
    for lane in _main_lanes(view):
        suites += 1
        lane_extra = {_CTRF_KEYS.get(key, key): value for key, value in provenance(lane).items()}
        for case in cases_of(lane):
            status = case.status if case.status in ("passed", "failed") else "other"
            summary["tests"] += 1
            summary[status] += 1
            test: dict[str, object] = {
                "name": f"{case.suite}: {case.name}",
                "status": status,
                "duration": case.duration_ms,
                "suite": [case.suite],
                # The status CTRF's enum has no word for: a crash, a reported miss.
                "rawStatus": case.status,
            }
            if case.message:
                test["message"] = case.message
            if case.file:
                test["filePath"] = case.file
            if case.line is not None:
                test["line"] = case.line
            extra = lane_extra if case.kind == "verdict" else {"envelope": lane.file}
            test["extra"] = {"lanekit": {**extra, "kind": case.kind}}
            tests.append(test)
    document = {
        "reportFormat": "CTRF",
        "specVersion": CTRF_SPEC_VERSION,
        "reportId": str(uuid.uuid4()),
        "timestamp": datetime.fromtimestamp(stop_ms / 1000, tz=UTC).isoformat(),
        "generatedBy": f"lanekit {__version__}",
        "results": {
            "tool": {"name": "lanekit", "version": __version__},
            "summary": {
                **summary,
                "suites": suites,
                "start": start_ms,
                "stop": stop_ms,
                "duration": stop_ms - start_ms,
            },
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
        if lane.side is not None or not lane.current:
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


def test_result(status: str, *, warned: bool) -> str:
    """The predicate's ``result``: PASSED | WARNED | FAILED, as its spec enumerates.

    FAILED is a lane whose verdict is not pass (fail, crash). WARNED is a lane
    that passed while naming something: an advisory finding (a bench MISS) or
    a failed finding its verdict tolerates. PASSED is a clean pass. A policy
    that checks ``result == "PASSED"`` thus accepts only clean lanes.
    """
    if status != "pass":
        return "FAILED"
    return "WARNED" if warned else "PASSED"


def _statements(view: ReportView, directory: Path) -> Iterator[tuple[LaneView, dict[str, object]]]:
    """One in-toto Statement (test-result predicate v0.1) per lane envelope.

    The subject is the commit the lane measured (or, outside git, the envelope
    file itself); the configuration names the envelope and the lane's
    ``config_hash``. Unsigned: sign them with the tool your CI evidence uses
    (e.g. ``cosign attest-blob``).
    """
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
            "result": test_result(
                lane.status, warned=bool(by_status["skipped"] or by_status["failed"])
            ),
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
        statement: dict[str, object] = {
            "_type": IN_TOTO_STATEMENT,
            "subject": [subject],
            "predicateType": TEST_RESULT_PREDICATE,
            "predicate": predicate,
        }
        yield lane, statement


def in_toto_statements(view: ReportView, directory: Path) -> dict[str, str]:
    """Each lane's statement as its own file (``<lane>.intoto.json``), by file name."""
    return {
        lane.file.removesuffix(".json") + ".intoto.json": json.dumps(
            statement, indent=2, ensure_ascii=False
        )
        + "\n"
        for lane, statement in _statements(view, directory)
    }


def in_toto_jsonl(view: ReportView, directory: Path) -> str:
    """Every lane's statement in one JSON Lines file (``--in-toto FILE.jsonl``), one per line."""
    return "".join(
        json.dumps(statement, ensure_ascii=False) + "\n"
        for _, statement in _statements(view, directory)
    )
