"""Every export passes its consumer's own validator, with the published schema.

JUnit XML against the Jenkins/xunit ``junit-10.xsd`` pytest checks its own
``--junitxml`` with; CTRF against the schema the ``ctrf`` npm package
validates with; in-toto statements against the test-result predicate (schema
written from the spec) and the in-toto project's own Python bindings. The
schema files are vendored in tests/report/schemas/ (README there: versions,
sources, licences), so a drift from the published format fails here, offline.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema
import pytest
import xmlschema
from google.protobuf import json_format
from in_toto_attestation.predicates.test_result.v0 import test_result_pb2
from in_toto_attestation.v1 import statement_pb2
from in_toto_attestation.v1.statement import Statement

from lanes.report.render import build_report
from tests.report.lane_payloads import (
    bench_data,
    fuzz_data,
    fuzz_failure,
    offender,
    slow_data,
    torture_data,
    violation,
)
from tests.report.report_fixtures import HOSTILE, write_lane
from tests.support.processes import run_lanes

if TYPE_CHECKING:
    from collections.abc import Iterator

SCHEMAS = Path(__file__).parent / "schemas"
JUNIT_XSD = SCHEMAS / "junit-10.xsd"
CTRF_SCHEMA = SCHEMAS / "ctrf-schema-0.0.json"
IN_TOTO_SCHEMA = SCHEMAS / "in-toto-test-result-v0.1.schema.json"


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_RUN_ID", "LANES_GROUP_ID", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)


def _every_outcome(root: Path) -> Path:
    """A pass, a pass with an advisory miss, fails with findings (one hostile), a crash."""
    write_lane(root, "docs", "pass")
    write_lane(
        root, "slow", "fail", slow_data(offenders=[offender("tests/test_b.py::test_sleepy", 3200)])
    )
    write_lane(root, "fuzz", "fail", fuzz_data(failures=[fuzz_failure("ledger", HOSTILE)]))
    write_lane(root, "torture", "fail", torture_data(violations=[violation(17)]))
    write_lane(root, "bench", "pass", bench_data(miss=True))
    write_lane(root, "crashy", "error")
    return root / "envelopes"


def _export(root: Path) -> tuple[Path, Path, Path]:
    envelopes = root / "envelopes"
    junit, ctrf, in_toto = root / "out.xml", root / "ctrf.json", root / "in-toto"
    build_report(
        envelopes,
        out_md=envelopes / "summary.md",
        out_html=envelopes / "index.html",
        junit=junit,
        ctrf=ctrf,
        in_toto=in_toto,
    )
    return junit, ctrf, in_toto


def _json_errors(schema_path: Path, document: dict[str, Any]) -> list[str]:
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    return [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator.iter_errors(document)
    ]


def _junit_document(path: Path) -> dict[str, Any]:
    """The JUnit file decoded by the XSD (validating it on the way): lists where it repeats."""
    decoded = xmlschema.XMLSchema10(JUNIT_XSD).to_dict(path)
    assert isinstance(decoded, dict)
    return decoded


def _statements(directory: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for path in sorted(directory.glob("*.intoto.json")):
        yield path.name, json.loads(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- the validators


def test_junit_passes_the_junit_10_xsd(tmp_path: Path) -> None:
    _every_outcome(tmp_path)
    junit, _, _ = _export(tmp_path)
    schema = xmlschema.XMLSchema10(JUNIT_XSD)
    errors = [f"{error.path}: {error.reason}" for error in schema.iter_errors(junit)]
    assert errors == []


def test_ctrf_passes_the_published_schema(tmp_path: Path) -> None:
    _every_outcome(tmp_path)
    _, ctrf, _ = _export(tmp_path)
    assert _json_errors(CTRF_SCHEMA, json.loads(ctrf.read_text(encoding="utf-8"))) == []


def test_in_toto_statements_pass_the_predicate_schema_and_the_bindings(tmp_path: Path) -> None:
    _every_outcome(tmp_path)
    _, _, directory = _export(tmp_path)
    statements = dict(_statements(directory))
    assert len(statements) == 6
    for name, statement in statements.items():
        assert _json_errors(IN_TOTO_SCHEMA, statement) == [], name
        # The in-toto project's own bindings: a strict parse (an unknown field
        # is an error) and the Statement's validate().
        parsed = json_format.Parse(json.dumps(statement), statement_pb2.Statement())
        Statement.copy_from_pb(parsed).validate()
        json_format.Parse(json.dumps(statement["predicate"]), test_result_pb2.TestResult())


def test_the_validators_reject_a_drifted_export(tmp_path: Path) -> None:
    """The checks above are not vacuous: each one's validator refuses the old shapes."""
    _every_outcome(tmp_path)
    junit, ctrf, directory = _export(tmp_path)
    drifted = junit.read_text(encoding="utf-8").replace(
        "<testcase ", '<testcase file="tests/x.py" ', 1
    )
    assert not xmlschema.XMLSchema10(JUNIT_XSD).is_valid(drifted)
    document = json.loads(ctrf.read_text(encoding="utf-8"))
    document["results"]["tests"][0]["suite"] = "slow"
    assert _json_errors(CTRF_SCHEMA, document)
    _, statement = next(_statements(directory))
    statement["predicate"]["result"] = "pass"
    assert _json_errors(IN_TOTO_SCHEMA, statement)


# ---------------------------------------------------------------- what the exports say


def test_in_toto_result_is_passed_warned_or_failed(tmp_path: Path) -> None:
    """WARNED is a lane that passed with an advisory finding (a bench MISS)."""
    _every_outcome(tmp_path)
    _, _, directory = _export(tmp_path)
    results = {name: s["predicate"]["result"] for name, s in _statements(directory)}
    assert results == {
        "bench.intoto.json": "WARNED",
        "crashy.intoto.json": "FAILED",
        "fuzz.intoto.json": "FAILED",
        "slow.intoto.json": "FAILED",
        "docs.intoto.json": "PASSED",
        "torture.intoto.json": "FAILED",
    }


def _set_duration(path: Path, duration_ms: int) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    document["duration_ms"] = duration_ms
    path.write_text(json.dumps(document), encoding="utf-8")


def test_a_lane_over_a_minute_exports_its_duration(tmp_path: Path) -> None:
    """Regression: the duration was parsed back from the display text, and "1 min 15 s" gave 0."""
    _set_duration(write_lane(tmp_path, "docs", "pass"), 75_250)
    _set_duration(write_lane(tmp_path, "torture", "error"), 3_600_000)
    junit, ctrf, _ = _export(tmp_path)
    xml = _junit_document(junit)
    suites = {suite["@name"]: suite for suite in xml["testsuite"]}
    assert suites["docs"]["@time"] == "75.250"
    assert suites["docs"]["testcase"][0]["@time"] == "75.250"
    assert suites["torture"]["testcase"][0]["@time"] == "3600.000"
    tests = json.loads(ctrf.read_text(encoding="utf-8"))["results"]["tests"]
    durations = {test["name"]: test["duration"] for test in tests}
    assert durations == {"docs: verdict": 75_250, "torture: verdict": 3_600_000}


def test_lanekits_own_fields_ride_where_each_format_allows(tmp_path: Path) -> None:
    """Envelope provenance in JUnit suite <properties> and CTRF ``extra``; a finding's file in both."""
    _every_outcome(tmp_path)
    junit, ctrf, _ = _export(tmp_path)
    envelope = json.loads((tmp_path / "envelopes" / "slow.json").read_text(encoding="utf-8"))
    xml = _junit_document(junit)
    slow = next(suite for suite in xml["testsuite"] if suite["@name"] == "slow")
    (properties_element,) = slow["properties"]
    properties = {p["@name"]: p["@value"] for p in properties_element["property"]}
    assert properties["lanekit.envelope"] == "slow.json"
    assert properties["lanekit.config_hash"] == envelope["config_hash"]
    assert properties["lanekit.result"] == "fail"
    assert properties["lanekit.stage"] == "complete"
    sleepy = next(c for c in slow["testcase"] if c["@name"] == "tests/test_b.py::test_sleepy")
    assert sleepy["system-out"] == ["location: tests/test_b.py"]

    tests = json.loads(ctrf.read_text(encoding="utf-8"))["results"]["tests"]
    verdict = next(t for t in tests if t["name"] == "slow: verdict")
    assert verdict["suite"] == ["slow"]
    assert verdict["extra"]["lanekit"]["configHash"] == envelope["config_hash"]
    assert verdict["extra"]["lanekit"]["envelope"] == "slow.json"
    sleepy_test = next(t for t in tests if t["name"] == "slow: tests/test_b.py::test_sleepy")
    assert sleepy_test["filePath"] == "tests/test_b.py"
    assert sleepy_test["extra"]["lanekit"]["kind"] == "finding"


@pytest.mark.integration  # the command as a user runs it, in a process
def test_the_readme_export_command_writes_three_valid_files(tmp_path: Path) -> None:
    """``lanes report --junit out.xml --ctrf out.json --in-toto out.intoto.jsonl`` (docs/how-to/report.md, Exports)."""
    _every_outcome(tmp_path)
    env = {**os.environ, "LANES_PROGRESS": "0"}
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY"):
        env.pop(name, None)
    done = run_lanes(
        "report",
        "--junit",
        "out.xml",
        "--ctrf",
        "out.json",
        "--in-toto",
        "out.intoto.jsonl",
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 1, done.stdout + done.stderr  # lanes failed: the verdict says so
    assert xmlschema.XMLSchema10(JUNIT_XSD).is_valid(str(tmp_path / "out.xml"))
    ctrf = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert _json_errors(CTRF_SCHEMA, ctrf) == []
    lines = (tmp_path / "out.intoto.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 6
    for line in lines:
        assert _json_errors(IN_TOTO_SCHEMA, json.loads(line)) == []
