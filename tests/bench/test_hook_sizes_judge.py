"""hook-large-commands fails a shape over its goal only after re-timing it.

The verdict is the worst of 27 medians of a few pairs each; one noisy median
failed a quiet main job (pytest-segments at 1 MiB: 101 ms against 100). The
re-timing is given as a function here: the real one runs 21 pairs of hook
processes on a 1 MiB payload, and no real run can be made noisy on demand.
"""

from __future__ import annotations

from lanes.bench.hook_sizes import CONFIRM_PAIRS, judge

KIB = 1024


def test_an_offender_that_retimes_within_the_goal_passes_and_is_named() -> None:
    asked: list[tuple[str, int]] = []

    def retime(name: str, size: int) -> float:
        asked.append((name, size))
        return 70.0

    judged = judge({("pytest-segments", 1024 * KIB): 101.3, ("heredoc", 64 * KIB): 73.2}, retime)
    assert judged.verdict == "pass"
    assert asked == [("pytest-segments", 1024 * KIB)]  # only what was over the goal
    assert judged.retimed == {("pytest-segments", 1024 * KIB): 70.0}
    assert judged.worst == (("heredoc", 64 * KIB), 73.2)
    assert judged.note == (
        "pytest-segments at 1024 KiB: over the goal in the first pairs, "
        f"within it over {CONFIRM_PAIRS} more (noise)"
    )


def test_an_offender_that_stays_over_the_goal_fails_on_its_confirmed_figure() -> None:
    def retime(name: str, size: int) -> float:
        return {("long-word", 256 * KIB): 150.0}[name, size]

    judged = judge({("long-word", 256 * KIB): 180.0, ("braces", 64 * KIB): 60.0}, retime)
    assert judged.verdict == "fail"
    assert judged.worst == (("long-word", 256 * KIB), 150.0)
    assert judged.note == (
        f"long-word at 256 KiB took 150 ms above the interpreter (confirmed over {CONFIRM_PAIRS} pairs)"
    )


def test_nothing_over_the_goal_is_not_retimed() -> None:
    def retime(name: str, size: int) -> float:
        raise AssertionError((name, size))

    judged = judge({("semicolons", 64 * KIB): 52.2}, retime)
    assert (judged.verdict, judged.note, judged.retimed) == ("pass", "", {})
