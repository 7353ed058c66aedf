"""Each constraint marker is its own keyword, even where two carry the same value."""

from __future__ import annotations

from typing import Annotated, TypedDict

from lanes.payloads.constraints import Max, Min, MinItems, MinLength, MoreThan
from lanes.payloads.schema import build_schema


class EarlierData(TypedDict):
    ratio: Annotated[float, MoreThan(0)] | None


class LaterData(TypedDict):
    share: Annotated[float, Min(0)] | None


def test_markers_of_one_value_are_not_equal() -> None:
    markers: list[object] = [Min(0), MoreThan(0), Max(0), MinItems(0), MinLength(0)]
    assert len(set(markers)) == len(markers)
    assert Min(0) == Min(0)
    assert hash(Min(0)) == hash(Min(0))


def test_a_union_keeps_its_own_marker_whatever_was_built_before() -> None:
    # typing caches a union by equality: were Min(0) == MoreThan(0) (as the
    # plain tuples they are), `Annotated[float, Min(0)] | None` would come back
    # as the MoreThan union evaluated before it, and the generated schema would
    # depend on the order the payload types were read in.
    schema = build_schema({"earlier": EarlierData, "later": LaterData})
    assert schema["$defs"]["earlier"]["properties"]["ratio"] == {
        "type": ["number", "null"],
        "exclusiveMinimum": 0,
    }
    assert schema["$defs"]["later"]["properties"]["share"] == {
        "type": ["number", "null"],
        "minimum": 0,
    }
