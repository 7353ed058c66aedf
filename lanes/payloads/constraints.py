"""Constraints a payload field carries into the generated schema (``typing.Annotated`` metadata).

::

    class TortureViolation(TypedDict):
        seed: Annotated[int, Min(0)]
        invariant: Annotated[str, MinLength(1), Doc("the invariant's name")]

Each marker is one JSON Schema keyword; :mod:`lanes.payloads.schema` copies
it onto the field's schema. They are plain frozen values so that a type
checker sees ``Annotated[int, Min(0)]`` as ``int``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["Doc", "Extra", "Max", "Min", "MinItems", "MinLength", "MoreThan", "Pattern"]


class Min(NamedTuple):
    """``minimum``: the value is at least this."""

    value: float


class MoreThan(NamedTuple):
    """``exclusiveMinimum``: the value is greater than this."""

    value: float


class Max(NamedTuple):
    """``maximum``: the value is at most this."""

    value: float


class MinLength(NamedTuple):
    """``minLength`` of a string."""

    value: int


class MinItems(NamedTuple):
    """``minItems`` of a list."""

    value: int


class Pattern(NamedTuple):
    """``pattern``: a regular expression the string matches (JSON Schema dialect)."""

    value: str


class Doc(NamedTuple):
    """``description`` of a field: what a reader of the envelope needs to know about it."""

    value: str


class Extra(NamedTuple):
    """Keywords no marker covers, merged as they are (a cross-field rule, say)."""

    value: dict[str, Any]
