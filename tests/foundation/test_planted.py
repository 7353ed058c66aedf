"""A self-check's planted fault is caught only when the lane is right and the fault is not."""

from __future__ import annotations

from lanes._planted import describe, judge


def test_a_fault_that_answers_otherwise_is_caught() -> None:
    plant = judge("sum taken as max", expected="230", real="230", planted="100")
    assert plant["caught"]
    assert describe("timing", plant) == (
        "timing self-check: planted fault caught: sum taken as max "
        "(gives '100'; the lane gives '230')"
    )


def test_a_fault_that_answers_like_the_lane_is_not_caught() -> None:
    # The input cannot tell the two apart: the check would pass the fault too.
    plant = judge("sum taken as max", expected="230", real="230", planted="230")
    assert not plant["caught"]
    assert "planted fault NOT caught: sum taken as max" in describe("timing", plant)


def test_a_lane_that_gives_the_wrong_answer_fails_even_when_the_fault_differs() -> None:
    plant = judge("sum taken as max", expected="230", real="100", planted="90")
    assert not plant["caught"]
    assert describe("timing", plant) == (
        "timing self-check: FAILED on a planted fault's input: sum taken as max: "
        "the lane gives '100', expected '230'"
    )
