"""Every mutmut status is mapped, agrees with the installed mutmut, and the score is Stryker's."""

from __future__ import annotations

import typing

import pytest

from lanes.mutation.statuses import (
    Status,
    counts_by_status,
    counts_document,
    score,
    status_from_exit_code,
)
from lanes.mutation.stryker import STRYKER_STATUS
from lanes.payloads.mutation import MutationCounts, MutationStatus


def test_our_table_agrees_with_the_installed_mutmut() -> None:
    stats = pytest.importorskip("mutmut.stats")
    theirs = dict(stats.status_by_exit_code)
    for code, status in theirs.items():
        assert status_from_exit_code(code).value == status, code
    # A code mutmut does not know is "suspicious" in both.
    assert status_from_exit_code(99) is Status.SUSPICIOUS
    assert stats.status_by_exit_code[99] == "suspicious"
    assert {s.value for s in Status} == set(stats.emoji_by_status)


def test_every_status_has_a_stryker_status() -> None:
    assert set(STRYKER_STATUS) == set(Status)


def test_score_is_detected_over_valid() -> None:
    counts = counts_by_status(
        [Status.KILLED] * 6
        + [Status.TIMEOUT] * 2
        + [Status.SURVIVED, Status.NO_TESTS, Status.SUSPICIOUS]
        + [Status.SKIPPED, Status.CAUGHT_BY_TYPE_CHECK, Status.SEGFAULT]
    )
    assert score(counts) == round(8 / 11, 6)
    assert score(counts, equivalent=1) == round(8 / 10, 6)
    assert score(counts_by_status([Status.SKIPPED])) is None


def test_the_payload_types_spell_exactly_our_statuses() -> None:
    # mypy proves every Status is a MutationStatus; this proves the converse.
    ours = {s.value for s in Status}
    assert set(typing.get_args(MutationStatus)) == ours
    assert set(typing.get_type_hints(MutationCounts)) == ours
    assert counts_document(counts_by_status([Status.KILLED])) == counts_by_status([Status.KILLED])
