"""The schema file itself: what it must reject."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from lanes.config import parse_config
from lanes.envelope import lane_run, read_envelope, validate_envelope


@pytest.fixture(scope="module")
def valid(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("schema")
    with lane_run("demo", config=parse_config({}, root=root), seed=3) as run:
        run.data["n"] = 1
        run.verdict(passed=True)
    document = read_envelope(root / "envelopes" / "demo.json")
    assert validate_envelope(document) == []
    return document


def _paths(document: dict[str, Any]) -> list[str]:
    return [str(problem) for problem in validate_envelope(document)]


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d.pop("result"), "$: 'result' is a required property"),
        (lambda d: d.update(stage="partial"), "$.stage: 'partial' is not one of"),
        (lambda d: d.update(duration_ms=1.5), "$.duration_ms: 1.5 is not of type 'integer'"),
        (lambda d: d.update(duration_ms="12"), "$.duration_ms: '12' is not of type 'integer'"),
        (lambda d: d.update(duration_ms=-1), "$.duration_ms: -1 is less than the minimum"),
        (lambda d: d.update(result="ok"), "$.result: 'ok' is not one of"),
        (lambda d: d.update(format="other"), "$.format:"),
        (lambda d: d.update(schema_version="2.0.0"), "$.schema_version:"),
        (lambda d: d.update(config_hash="md5:00"), "$.config_hash:"),
        (lambda d: d.update(started_at="yesterday"), "$.started_at:"),
        (lambda d: d.update(extra=1), "Additional properties are not allowed ('extra'"),
        (lambda d: d["subject"].update(commit="abc"), "$.subject.commit:"),
        (lambda d: d["generated_by"]["tools"].update(mutmut=3), "$.generated_by.tools.mutmut:"),
        (lambda d: d.update(seed={"start": 1}), "$.seed:"),
        (lambda d: d.update(data=[]), "$.data: [] is not of type 'object'"),
        # stage "error" forces result "fail" (here: "pass") and an error object ...
        (lambda d: d.update(stage="error"), "$.error: None is not of type 'object'"),
        (
            lambda d: d.update(stage="error", error={"type": "X", "message": "m"}),
            "$.result: 'fail' was expected",
        ),
        # ... and "complete" forbids one.
        (
            lambda d: d.update(error={"type": "X", "message": "m"}),
            "$.error: {'type': 'X', 'message': 'm'} is not of type 'null'",
        ),
    ],
)
def test_rejects(valid: dict[str, Any], mutate: Any, expected: str) -> None:
    document = copy.deepcopy(valid)
    mutate(document)
    problems = _paths(document)
    assert any(problem.startswith(expected) or expected in problem for problem in problems), (
        problems
    )


def test_accepts_every_seed_shape(valid: dict[str, Any]) -> None:
    for seed in (None, 0, -5, {"start": 10, "count": 0}):
        document = copy.deepcopy(valid)
        document["seed"] = seed
        assert _paths(document) == []


def test_accepts_a_minor_version(valid: dict[str, Any]) -> None:
    document = copy.deepcopy(valid)
    document["schema_version"] = "1.4.2"
    assert _paths(document) == []


def test_problems_are_sorted_by_path(valid: dict[str, Any]) -> None:
    document = copy.deepcopy(valid)
    document.update(stage="x", duration_ms="y")
    assert [p.split(":")[0] for p in _paths(document)] == ["$.duration_ms", "$.stage"]


def test_schema_file_is_valid_2020_12() -> None:
    schema = json.loads(
        (Path(__file__).parents[2] / "lanes" / "envelope.schema.json").read_text("utf-8")
    )
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def _refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    duplicated = sorted({key for key in keys if keys.count(key) > 1})
    assert not duplicated, f"duplicate keys in the schema: {duplicated}"
    return dict(pairs)


def test_schema_file_has_no_duplicate_keys() -> None:
    # json.loads keeps the last of two equal keys, so a lane's $defs or allOf
    # block pasted twice (it happened while lanes were added in parallel)
    # silently drops the first copy's rules.
    from lanes.envelope import SCHEMA_PATH  # noqa: PLC0415

    json.loads(SCHEMA_PATH.read_text(encoding="utf-8"), object_pairs_hook=_refuse_duplicate_keys)
