"""The job summary's cap, byte for byte: what is kept, in which order, and what says so.

GitHub refuses a job summary over its limit, so ``fit_markdown`` keeps the
overview, then the lane sections a reader came for (invalid, crashed, failed)
before the passing ones, and names what it left out; an overview too big on
its own is cut at a line. Each boundary is checked at the exact byte: a
summary that fits to the byte is whole, one byte less is cut. Real envelopes,
rendered in this process.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import pytest

from lanes.report._collect import collect
from lanes.report._view import build_view
from lanes.report.render import fit_markdown, render_markdown
from tests.report.report_fixtures import write_invalid, write_lane

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.report._view import ReportView

NOTE_ROOM = 600  # what fit_markdown keeps aside for its truncation line


def _view(tmp_path: Path, lanes: list[tuple[str, str]]) -> ReportView:
    for name, outcome in lanes:
        # Non-ASCII data: the cap is in UTF-8 bytes, and these differ from characters.
        data = {f"note{key}": f"Größe {name} " * 30 for key in range(4)}
        write_lane(tmp_path, name, outcome, data)
    return build_view(collect(tmp_path / "envelopes"), directory="envelopes")


def _bytes(text: str) -> int:
    return len(text.encode())


def _overview(view: ReportView) -> str:
    return render_markdown(view, part="overview")


def _section(view: ReportView, label: str) -> str:
    (lane,) = [lane for lane in view.lanes if lane.label == label]
    return render_markdown(replace(view, lanes=(lane,)), part="sections")


def test_a_summary_that_fits_to_the_byte_is_whole_and_one_byte_less_is_cut(
    tmp_path: Path,
) -> None:
    view = _view(tmp_path, [("alpha", "pass"), ("beta", "fail")])
    full = render_markdown(view)
    assert _bytes(full) > len(full)  # the bytes are what counts
    assert fit_markdown(view, limit=_bytes(full)) == full
    cut = fit_markdown(view, limit=_bytes(full) - 1)
    assert cut != full
    assert _bytes(cut) <= _bytes(full) - 1
    assert "**Truncated:**" in cut


def test_crashed_invalid_and_failed_lanes_are_kept_before_passing_ones(tmp_path: Path) -> None:
    view = _view(tmp_path, [("a-pass", "pass"), ("b-fail", "fail"), ("c-crash", "error")])
    write_invalid(tmp_path, "d-broken")
    view = build_view(collect(tmp_path / "envelopes"), directory="envelopes")
    labels = {lane.status: lane.label for lane in view.lanes}
    assert labels["invalid"] != labels["error"]
    overview = _overview(view)
    sections = {status: _section(view, label) for status, label in labels.items()}
    # Room for the overview, the note and exactly the three sections in trouble.
    room = (
        _bytes(overview)
        + NOTE_ROOM
        + sum(_bytes(sections[s]) for s in ("invalid", "error", "fail"))
    )
    size = _bytes(render_markdown(view))
    assert room < size
    cut = fit_markdown(view, limit=room)
    assert cut == (
        overview
        + sections["invalid"]
        + sections["error"]
        + sections["fail"]
        + f"\n\n> **Truncated:** the full summary is {size:,} bytes, over GitHub's job-summary "
        f"limit; 1 lane section(s) were left out ({labels['pass']}). "
        "index.html (in the envelopes artifact) has everything.\n"
    )
    # One byte less and the failed lane's section no longer fits: it is named instead.
    cut = fit_markdown(view, limit=room - 1)
    assert sections["fail"] not in cut
    assert sections["error"] in cut
    # The passing lane's section is smaller: whether it fits the room the failed
    # one freed depends on the run's own sizes (paths, durations). Every section
    # left out is named, in the order they were kept.
    left = [labels[s] for s in ("fail", "pass") if sections[s] not in cut]
    assert left[0] == labels["fail"]
    assert f"{len(left)} lane section(s) were left out ({', '.join(left)})" in cut


def test_the_lanes_left_out_are_named_eight_at_most_and_long_names_clipped(
    tmp_path: Path,
) -> None:
    names = [f"lane-{index:02d}-" + "x" * (30 + index) for index in range(11)]
    view = _view(tmp_path, [(name, "pass") for name in names])
    labels = [lane.label for lane in view.lanes]
    assert [len(label) for label in labels[:3]] == [38, 39, 40]
    cut = fit_markdown(view, limit=_bytes(_overview(view)) + NOTE_ROOM)
    shown = [label if len(label) <= 40 else label[:39] + "…" for label in labels[:8]]
    assert shown[2] == labels[2]  # 40 characters are shown whole
    assert shown[3].endswith("x…")
    assert len(shown[3]) == 40
    named = ", ".join(shown).replace("_", "\\_")
    assert f"11 lane section(s) were left out ({named} and 3 more)." in cut
    assert labels[8] not in cut.split("**Truncated:**")[1]


@pytest.mark.parametrize(("lanes", "more"), [(8, ""), (9, " and 1 more")])
def test_eight_left_out_are_all_named_and_a_ninth_is_counted(
    tmp_path: Path, lanes: int, more: str
) -> None:
    view = _view(tmp_path, [(f"lane-{index}", "pass") for index in range(lanes)])
    cut = fit_markdown(view, limit=_bytes(_overview(view)) + NOTE_ROOM)
    labels = ", ".join(lane.label for lane in view.lanes[:8])
    assert f"{lanes} lane section(s) were left out ({labels}{more}). index.html" in cut


def test_an_overview_with_no_room_for_the_note_is_cut_at_a_line(tmp_path: Path) -> None:
    view = _view(tmp_path, [(f"lane{index}", "pass") for index in range(5)])
    overview = _overview(view)
    # The overview and the note's room fit exactly: no section, every lane named.
    limit = _bytes(overview) + NOTE_ROOM
    assert "5 lane section(s) were left out" in fit_markdown(view, limit=limit)

    # One byte less: the overview itself is cut, at a line, and says where to look.
    def note(limit: int) -> str:
        return (
            "\n\n> **Truncated:** the summary was cut to stay under GitHub's job-summary limit "
            f"({limit:,} bytes); index.html (in the envelopes artifact) has everything.\n"
        )

    assert fit_markdown(view, limit=limit - 1) == overview + note(limit - 1)
    assert limit - 1 >= 1000  # its thousands are separated
    # Lines are kept whole while they fit to the byte, and not one more.
    lines = overview.splitlines(keepends=True)
    two = "".join(lines[:2])
    exact = _bytes(two) + _bytes(note(999))  # a 3-digit limit: the note's length is known
    assert 100 <= exact <= 999
    assert fit_markdown(view, limit=exact) == two + note(exact)
    # The first line that does not fit ends the cut: no later, shorter line
    # (a blank one) slips in after a gap.
    assert fit_markdown(view, limit=exact + 1) == two + note(exact + 1)
    # Every kept line counts against the room, not only the last one.
    three = "".join(lines[:3])
    room = _bytes(three) + _bytes(note(999))
    assert fit_markdown(view, limit=room) == three + note(room)
    assert fit_markdown(view, limit=exact - 1) == lines[0] + note(exact - 1)
