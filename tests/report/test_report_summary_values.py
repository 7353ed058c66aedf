"""Values in the job summary: commands copy whole, long values are cut and say so.

A command to copy (a torture seed's replay line) goes in a fenced block whose
fence no backtick run inside can close, one command a line; a value longer
than the summary's cap is cut with its full length and a pointer to
index.html, while index.html shows it whole. Real envelopes, rendered in
this process.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from lanes.report._collect import collect
from lanes.report._view import build_view
from lanes.report.render import VALUE_LIMIT, render_html, render_markdown
from tests.report.lane_payloads import torture_data, violation
from tests.report.report_fixtures import write_lane

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.report._view import ReportView


def _torture(tmp_path: Path, *replays: str) -> ReportView:
    violations = [violation(seed) for seed in range(len(replays))]
    for planted, replay in zip(violations, replays, strict=True):
        planted["replay"] = replay
    write_lane(tmp_path, "torture", "fail", torture_data(violations=violations))
    return build_view(collect(tmp_path / "envelopes"), directory="envelopes")


def test_commands_to_copy_are_one_a_line_in_a_plain_three_backtick_block(tmp_path: Path) -> None:
    view = _torture(tmp_path, "lanes torture --seed 0", "lanes torture --seed 1")
    md = render_markdown(view)
    assert "\n```sh\nlanes torture --seed 0\nlanes torture --seed 1\n```\n" in md
    assert "````" not in md


def test_a_command_holding_backticks_gets_a_longer_fence_and_stays_on_one_line(
    tmp_path: Path,
) -> None:
    # A fence of three would close at the command's own ``` and the rest of
    # the summary would render as code (or the command as Markdown).
    view = _torture(tmp_path, "echo ```` | x", "printf 'a\nb' `date`")
    md = render_markdown(view)
    assert "\n`````sh\necho ```` | x\nprintf 'a b' `date`\n`````\n" in md


def _on_branch(tmp_path: Path, lane: str, branch: str) -> str:
    """A lane run on ``branch``; returns the subject the summary shows for it."""
    path = write_lane(tmp_path, lane, "pass")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["subject"] = {"commit": "a" * 40, "dirty": False, "branch": branch}
    path.write_text(json.dumps(document), encoding="utf-8")
    return f"{'a' * 12} on {branch}"


def test_a_value_at_the_cap_is_shown_whole_and_a_longer_one_is_cut_with_its_length(
    tmp_path: Path,
) -> None:
    # The subject names the commit and the branch: a branch name is the
    # user's string of any length.
    at_cap = _on_branch(tmp_path, "at-cap", "b" * (VALUE_LIMIT - 16))
    over = _on_branch(tmp_path, "over", "c" * (VALUE_LIMIT - 15))
    huge = _on_branch(tmp_path, "huge", "d" * (12_345 - 16))
    assert (len(at_cap), len(over), len(huge)) == (VALUE_LIMIT, VALUE_LIMIT + 1, 12_345)
    view = build_view(collect(tmp_path / "envelopes"), directory="envelopes")
    md = render_markdown(view)
    assert f"| {at_cap} |" in md
    assert f"| {over[: VALUE_LIMIT - 1]}… (501 characters; index.html has all) |" in md
    assert f"| {huge[: VALUE_LIMIT - 1]}… (12,345 characters; index.html has all) |" in md
    assert over not in md
    html = render_html(view)
    assert over in html
    assert huge in html
