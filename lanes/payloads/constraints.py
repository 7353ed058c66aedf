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

from typing import Any, NamedTuple, TypeVar

__all__ = ["Doc", "Extra", "Max", "Min", "MinItems", "MinLength", "MoreThan", "Pattern"]

_Marker = TypeVar("_Marker", bound=tuple[Any, ...])


def _distinct(cls: type[_Marker]) -> type[_Marker]:
    """Equal only to a marker of the same class: ``Min(0) != MoreThan(0)``.

    Plain named tuples of one value are equal, and typing caches a union by
    equality, so ``Annotated[float, Min(0)] | None`` came back as an
    ``Annotated[float, MoreThan(0)] | None`` built before it: the schema then
    depended on the order the payload types were read in.
    """

    def eq(self: tuple[Any, ...], other: object) -> bool:
        return type(self) is type(other) and tuple.__eq__(self, other)

    def ne(self: tuple[Any, ...], other: object) -> bool:
        return not eq(self, other)

    def hash_(self: tuple[Any, ...]) -> int:
        return hash((type(self).__name__, *self))

    # Assigned here once for every marker: a typing.NamedTuple cannot inherit
    # them from a mixin (it takes no base but Generic), and mypy does not
    # expect methods to be replaced on a class.
    cls.__eq__ = eq  # type: ignore[method-assign]  # see above
    cls.__ne__ = ne  # type: ignore[assignment,method-assign]  # see above
    cls.__hash__ = hash_  # type: ignore[method-assign]  # see above
    return cls


@_distinct
class Min(NamedTuple):
    """``minimum``: the value is at least this."""

    value: float


@_distinct
class MoreThan(NamedTuple):
    """``exclusiveMinimum``: the value is greater than this."""

    value: float


@_distinct
class Max(NamedTuple):
    """``maximum``: the value is at most this."""

    value: float


@_distinct
class MinLength(NamedTuple):
    """``minLength`` of a string."""

    value: int


@_distinct
class MinItems(NamedTuple):
    """``minItems`` of a list."""

    value: int


@_distinct
class Pattern(NamedTuple):
    """``pattern``: a regular expression the string matches (JSON Schema dialect)."""

    value: str


@_distinct
class Doc(NamedTuple):
    """``description`` of a field: what a reader of the envelope needs to know about it."""

    value: str


@_distinct
class Extra(NamedTuple):
    """Keywords no marker covers, merged as they are (a cross-field rule, say)."""

    value: dict[str, Any]
