"""The envelope schema is generated from the payload types, and drift fails the suite."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import jsonschema
import pytest

from lanes.payloads import schema as schema_module
from lanes.payloads.constraints import Doc, Max, Min, MinItems, MinLength, MoreThan, Pattern
from lanes.payloads.schema import SCHEMA_PATH, build_schema, expected_text


class ToyPart(TypedDict):
    """One part of the toy payload."""

    name: Annotated[str, MinLength(1)]
    weight: Annotated[float, Min(0), Max(1)]


class ToyData(TypedDict):
    """A payload used only by these tests."""

    mode: Literal["sweep", "seed"]
    runs: Annotated[int, Min(0), Doc("how many runs")]
    ratio: Annotated[float, MoreThan(0)] | None
    digest: Annotated[str, Pattern("^[0-9a-f]{8}$")]
    parts: Annotated[list[ToyPart], MinItems(1)]
    by_name: dict[str, ToyPart]
    best: ToyPart | None
    note: NotRequired[str]


def _validator() -> jsonschema.Draft202012Validator:
    schema = build_schema({"toy": ToyData})
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/toy"})


def _valid() -> dict[str, Any]:
    part = {"name": "a", "weight": 0.5}
    return {
        "mode": "seed",
        "runs": 3,
        "ratio": None,
        "digest": "0123abcd",
        "parts": [part],
        "by_name": {"a": part},
        "best": None,
    }


def test_a_valid_payload_passes_and_an_optional_key_may_be_absent() -> None:
    assert list(_validator().iter_errors(_valid())) == []
    assert list(_validator().iter_errors({**_valid(), "note": "x"})) == []


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"mode": "other"}, "mode"),
        ({"runs": -1}, "runs"),
        ({"runs": 1.5}, "runs"),
        ({"ratio": 0}, "ratio"),
        ({"digest": "XYZ"}, "digest"),
        ({"parts": []}, "parts"),
        ({"by_name": {"a": {"name": "", "weight": 0.5}}}, "by_name"),
        ({"best": {"name": "a", "weight": 2}}, "best"),
        ({"unknown": 1}, ""),
    ],
)
def test_every_constraint_reaches_the_schema(change: dict[str, Any], where: str) -> None:
    errors = list(_validator().iter_errors({**_valid(), **change}))
    assert errors, change
    assert any(list(error.absolute_path)[:1] == ([where] if where else []) for error in errors)


def test_a_missing_required_key_is_refused_under_future_annotations() -> None:
    # Python 3.11 lists every key of a TypedDict declared under
    # `from __future__ import annotations` as required; the generator must not.
    document = _valid()
    del document["runs"]
    assert list(_validator().iter_errors(document))
    schema = build_schema({"toy": ToyData})["$defs"]["toy"]
    assert "note" not in schema["required"]
    assert schema["properties"]["runs"]["description"] == "how many runs"
    assert schema["description"] == "A payload used only by these tests."


def test_a_field_added_to_a_type_changes_the_generated_schema() -> None:
    class Wider(ToyData):
        added: int

    before = build_schema({"toy": ToyData})
    after = build_schema({"toy": Wider})
    assert "added" in after["$defs"]["toy"]["required"]
    assert before != after


def test_two_types_of_one_name_are_refused() -> None:
    # Two lanes' classes of one name would share one $defs entry, and one of
    # them would silently validate against the other's shape.
    first = TypedDict("Same", {"x": int})  # type: ignore[name-match]  # noqa: UP013  # two classes of one name need the functional form
    second = TypedDict("Same", {"y": int})  # type: ignore[name-match]  # noqa: UP013  # see above

    with pytest.raises(TypeError, match="both named 'same'"):
        build_schema({"one": list[first], "two": list[second]})


def test_the_committed_schema_is_the_generated_one() -> None:
    # Fails when a payload type changed without `python -m lanes.payloads.schema`.
    assert SCHEMA_PATH.read_text(encoding="utf-8") == expected_text(), (
        "lanes/envelope.schema.json has drifted from the payload types; "
        "regenerate it: python -m lanes.payloads.schema"
    )


def test_the_check_command_passes_on_the_committed_file() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "lanes.payloads.schema", "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))["$id"] == schema_module.SCHEMA_ID
