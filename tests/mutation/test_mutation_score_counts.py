"""Counts read from a shard or a baseline that name only some statuses.

A shard envelope or a hand-edited baseline may leave out the statuses it has
none of. The payload's counts then carry every status, each with its own
count and zero for the missing; the score reads a missing status as none of
them, and a module with a single valid mutant still has a score.
"""

from __future__ import annotations

import pytest

from lanes.mutation.statuses import Status, counts_document, score

EVERY = [status.value for status in Status]


@pytest.mark.parametrize("present", EVERY)
def test_each_status_keeps_its_own_count_and_the_rest_are_zero(present: str) -> None:
    document = counts_document({present: 7})
    assert dict(document) == {status: (7 if status == present else 0) for status in EVERY}


def test_every_status_counted_at_once_is_carried_over() -> None:
    counts = {status: index + 1 for index, status in enumerate(EVERY)}
    assert dict(counts_document(counts)) == counts


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ({"killed": 3, "survived": 1}, 0.75),
        ({"timeout": 1, "survived": 3}, 0.25),
        ({"survived": 2}, 0.0),
        ({"killed": 1}, 1.0),
        ({"survived": 1}, 0.0),
        ({"killed": 2, "skipped": 5}, 1.0),
        ({"killed": 1, "survived": 1, "segfault": 2, "caught by type check": 3}, 0.5),
        ({"skipped": 1}, None),
        ({}, None),
    ],
)
def test_a_status_left_out_counts_as_none_of_it(
    counts: dict[str, int], expected: float | None
) -> None:
    assert score(counts) == expected


def test_equivalents_leave_the_denominator_down_to_no_score() -> None:
    assert score({"killed": 1, "survived": 1}, equivalent=1) == 1.0
    assert score({"survived": 1}, equivalent=1) is None
