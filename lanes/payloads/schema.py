"""``lanes/envelope.schema.json``, generated from the payload types (never edited by hand).

The envelope's own fields come from :class:`lanes.payloads.envelope.EnvelopeDocument`
and each lane's ``data`` from its type in :data:`lanes.payloads.registry.LANE_PAYLOADS`.
A ``TypedDict`` becomes an object with ``additionalProperties: false`` under
``$defs`` (named after the class: ``TortureViolation`` -> ``torture_violation``,
a lane's own type -> the lane's name), ``NotRequired`` keys are left out of
``required``, ``X | None`` admits ``null``, ``Literal`` values are an enum and
the markers of :mod:`lanes.payloads.constraints` add their keyword.

Regenerate after changing a payload type::

    python -m lanes.payloads.schema            # rewrite the committed file
    python -m lanes.payloads.schema --check    # exit 1 when it has drifted

tests/foundation/test_envelope_schema.py runs the check, so a field added to
a type without regenerating fails the suite.
"""

from __future__ import annotations

import collections.abc
import json
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any, Final, Literal, NotRequired, Required, Union

from lanes.payloads import constraints
from lanes.payloads.envelope import EnvelopeDocument

__all__ = ["SCHEMA_PATH", "build_schema", "main", "render"]

SCHEMA_PATH: Final = Path(__file__).parents[1] / "envelope.schema.json"
SCHEMA_ID: Final = "https://lanekit.invalid/envelope/1.0.0"

_KEYWORDS: Final[dict[type, str]] = {
    constraints.Min: "minimum",
    constraints.MoreThan: "exclusiveMinimum",
    constraints.Max: "maximum",
    constraints.MinLength: "minLength",
    constraints.MinItems: "minItems",
    constraints.Pattern: "pattern",
    constraints.Doc: "description",
}
_SCALARS: Final[dict[object, str]] = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    type(None): "null",
}
# A failed lane's envelope: whatever its data, it says why (a cross-field rule
# no single type can state).
_STAGE_RULES: Final = (
    {
        "if": {"properties": {"stage": {"const": "error"}}},
        "then": {"properties": {"result": {"const": "fail"}, "error": {"type": "object"}}},
    },
    # ... and a complete one has no error.
    {
        "if": {"properties": {"stage": {"const": "complete"}}},
        "then": {"properties": {"error": {"type": "null"}}},
    },
)


def _def_name(cls: type) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()


def _description(cls: type) -> str | None:
    doc = cls.__doc__
    if not doc:
        return None
    # The first paragraph, on one line (the schema is read in editors and
    # diffs), with reST's ``code`` as Markdown's `code`.
    return " ".join(doc.strip().split("\n\n")[0].split()).replace("``", "`")


class _Generator:
    """Walks types once, collecting every ``TypedDict`` it meets under ``$defs``."""

    def __init__(self, names: dict[type, str]) -> None:
        self.names = dict(names)
        self.defs: dict[str, dict[str, Any]] = {}
        self._owner: dict[str, type] = {}

    def schema(self, hint: object) -> dict[str, Any]:
        origin = typing.get_origin(hint)
        if origin is typing.Annotated:
            base, *metadata = typing.get_args(hint)
            return self._annotated(self.schema(base), metadata)
        if origin in (Required, NotRequired):
            return self.schema(typing.get_args(hint)[0])
        if hint in _SCALARS:
            return {"type": _SCALARS[hint]}
        if hint is Any or hint is object:
            return {}
        if typing.is_typeddict(hint):
            return {"$ref": f"#/$defs/{self._define(typing.cast('type', hint))}"}
        if origin is Literal:
            values = list(typing.get_args(hint))
            return {"const": values[0]} if len(values) == 1 else {"enum": values}
        if origin in (list, collections.abc.Sequence):
            (item,) = typing.get_args(hint)
            return {"type": "array", "items": self.schema(item)}
        if origin in (dict, collections.abc.Mapping):
            _key, value = typing.get_args(hint)
            inner = self.schema(value)
            return (
                {"type": "object", "additionalProperties": inner} if inner else {"type": "object"}
            )
        if origin in (Union, types.UnionType):
            return self._union(typing.get_args(hint))
        msg = f"no JSON Schema for the payload type {hint!r}"
        raise TypeError(msg)

    def _annotated(self, schema: dict[str, Any], metadata: list[object]) -> dict[str, Any]:
        out = dict(schema)
        for marker in metadata:
            if isinstance(marker, constraints.Extra):
                out.update(marker.value)
            elif type(marker) in _KEYWORDS:
                out[_KEYWORDS[type(marker)]] = typing.cast("tuple[object]", marker)[0]
            else:
                msg = f"unknown schema marker {marker!r} (lanes.payloads.constraints lists them)"
                raise TypeError(msg)
        return out

    def _union(self, members: tuple[object, ...]) -> dict[str, Any]:
        schemas = [self.schema(member) for member in members]
        nullable = {"type": "null"} in schemas
        rest = [s for s in schemas if s != {"type": "null"}]
        if nullable and len(rest) == 1:
            (only,) = rest
            # "type": ["integer", "null"] keeps the schema as readable as the
            # hand-written one; a constraint such as minimum applies to the
            # non-null type only.
            if isinstance(only.get("type"), str):
                return {**only, "type": [only["type"], "null"]}
            if "enum" in only:
                return {**only, "enum": [*only["enum"], None]}
        return {"anyOf": schemas}

    def _define(self, cls: type) -> str:
        name = self.names.get(cls) or _def_name(cls)
        owner = self._owner.get(name)
        if owner is cls:
            return name
        if owner is not None:
            msg = f"two payload types are both named {name!r} in the schema: {owner!r} and {cls!r}"
            raise TypeError(msg)
        self._owner[name] = cls
        self.defs[name] = {}  # reserved first: a type may refer to itself
        self.defs[name] = self._object(cls)
        return name

    def _object(self, cls: type) -> dict[str, Any]:
        hints = typing.get_type_hints(cls, include_extras=True)
        total = getattr(cls, "__total__", True)
        # Not cls.__required_keys__: under `from __future__ import annotations`
        # Python 3.11 cannot see NotRequired inside a string annotation and
        # lists every key as required.
        required = [
            key
            for key, hint in hints.items()
            if typing.get_origin(hint) is Required
            or (total and typing.get_origin(hint) is not NotRequired)
        ]
        out: dict[str, Any] = {}
        description = _description(cls)
        if description:
            out["description"] = description
        out["type"] = "object"
        out["additionalProperties"] = False
        out["required"] = required
        out["properties"] = {key: self.schema(hint) for key, hint in hints.items()}
        return out


def build_schema(payloads: dict[str, object] | None = None) -> dict[str, Any]:
    """The whole envelope schema: the envelope's type, then one ``$defs`` entry per lane.

    ``payloads`` (lane -> type) defaults to the registry.
    """
    if payloads is None:
        from lanes.payloads.registry import LANE_PAYLOADS  # noqa: PLC0415  # the default only

        payloads = LANE_PAYLOADS
    names = {typing.cast("type", t): lane for lane, t in payloads.items() if typing.is_typeddict(t)}
    generator = _Generator(names)
    envelope = generator._object(EnvelopeDocument)
    for lane, payload in payloads.items():
        schema = generator.schema(payload)
        if schema != {"$ref": f"#/$defs/{lane}"}:
            generator.defs[lane] = schema
    rules = [
        {
            "if": {
                "required": ["lane", "stage"],
                "properties": {"lane": {"const": lane}, "stage": {"const": "complete"}},
            },
            "then": {"properties": {"data": {"$ref": f"#/$defs/{lane}"}}},
        }
        for lane in sorted(payloads)
    ]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "lanekit lane envelope v1",
        **envelope,
        "allOf": [*rules, *_STAGE_RULES],
        "$defs": dict(sorted(generator.defs.items())),
    }


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def expected_text() -> str:
    """What the committed schema file must contain."""
    return render(build_schema())


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = expected_text()
    current = SCHEMA_PATH.read_text(encoding="utf-8")
    if "--check" in args:
        if text != current:
            print(
                f"{SCHEMA_PATH} is out of date with the payload types; "
                "regenerate it: python -m lanes.payloads.schema",
                file=sys.stderr,
            )
            return 1
        return 0
    if text != current:
        SCHEMA_PATH.write_text(text, encoding="utf-8")
        print(f"wrote {SCHEMA_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
