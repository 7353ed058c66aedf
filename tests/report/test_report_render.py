"""``lanes.report``: what the Markdown summary and the HTML page show."""

from __future__ import annotations

import json
import re
import sys
from typing import TYPE_CHECKING, Any

import pytest

from lanes.config import parse_config
from lanes.envelope import lane_run
from lanes.report._view import data_rows, format_duration
from lanes.report.render import build_report, markdown_escape
from tests.report.lane_payloads import mutation_check_data
from tests.report.report_fixtures import HOSTILE, write_invalid, write_lane

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.report.render import Report


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_RUN_ID", "LANES_GROUP_ID"):
        monkeypatch.delenv(name, raising=False)


def _report(root: Path) -> Report:
    directory = root / "envelopes"
    return build_report(
        directory, out_md=directory / "summary.md", out_html=directory / "index.html"
    )


@pytest.fixture
def mixed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Report:
    monkeypatch.setenv("LANES_GROUP_ID", "run-1")
    write_lane(tmp_path, "alpha", "pass", {"tests": 12, "note": HOSTILE})
    write_lane(tmp_path, "beta", "fail", {"offenders": [{"id": "t::slow", "s": 3.5}]})
    write_lane(tmp_path, "gamma", "error")
    write_invalid(tmp_path)
    (tmp_path / "envelopes" / "garbage.json").write_text("{nope", encoding="utf-8")
    return _report(tmp_path)


def test_every_lane_appears_in_both_outputs(mixed: Report) -> None:
    for text in (mixed.markdown, mixed.html):
        for name in ("alpha", "beta", "gamma", "broken.json", "garbage.json"):
            assert name in text
    assert not mixed.ok
    assert [lane.status for lane in mixed.view.lanes] == [
        "pass",
        "fail",
        "invalid",
        "error",
        "invalid",
    ]
    assert mixed.view.title == "1 failed, 1 crashed, 2 invalid, 1 passed"


def test_outputs_are_written(tmp_path: Path, mixed: Report) -> None:
    directory = tmp_path / "envelopes"
    assert (directory / "summary.md").read_text(encoding="utf-8") == mixed.markdown
    assert (directory / "index.html").read_text(encoding="utf-8") == mixed.html


def test_html_escapes_user_strings(mixed: Report) -> None:
    assert "<script>" not in mixed.html
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in mixed.html
    # In the data table (alpha) and in the error line (gamma).
    assert mixed.html.count("&lt;script&gt;") == 2


def test_markdown_escapes_user_strings(mixed: Report) -> None:
    assert "<script>" not in mixed.markdown
    assert "&lt;script&gt;" in mixed.markdown
    # A `|` in a value must not open a new table cell, nor `*` start emphasis.
    assert r"\| \*bold\* \[link\]" in mixed.markdown
    row = next(line for line in mixed.markdown.splitlines() if line.startswith("| note |"))
    assert len(re.findall(r"(?<!\\)\|", row)) == 3


def test_html_is_self_contained(mixed: Report) -> None:
    html = mixed.html
    assert "<style>" in html
    assert not re.search(r"<(script|link|img|iframe)\b", html)
    assert not re.search(r'\b(src|href)="(?!#)', html)
    assert html.startswith("<!doctype html>")


def test_lane_details(mixed: Report) -> None:
    md = mixed.markdown
    assert "RuntimeError: crashed on" in md  # gamma's error
    assert "t::slow" in md  # beta's offender, as a readable row
    assert "offenders\\[0\\].s | 3.5" in md
    assert "sha256:" in md
    assert "**seed:** 11" in md
    assert "not a git checkout" in md


def test_invalid_envelope_names_file_and_problem(mixed: Report) -> None:
    assert "'result' is a required property" in mixed.markdown
    assert "&#39;result&#39; is a required property" in mixed.html
    assert "is not valid JSON" in mixed.markdown


def test_all_pass(tmp_path: Path) -> None:
    write_lane(tmp_path, "alpha", "pass")
    write_lane(tmp_path, "beta", "pass", {})
    report = _report(tmp_path)
    assert report.ok
    assert report.markdown.startswith("## ✅ lanekit lanes: 2 passed")


@pytest.mark.parametrize("create", [True, False])
def test_no_envelopes_means_no_lane_ran(tmp_path: Path, create: bool) -> None:
    if create:
        (tmp_path / "envelopes").mkdir()
    report = _report(tmp_path)
    assert not report.ok
    assert "no lane ran" in report.markdown
    assert "no lane ran" in report.html


def test_no_absolute_path_of_the_machine_is_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Regression: "Envelopes from /home/<user>/<project>/envelopes", the slow
    # lane's temporary --slow-json=/tmp/... and the mutation baseline's
    # absolute path travelled in every report artifact.
    project = tmp_path / "project"
    write_lane(project, "slow", "pass", {"pytest_args": ["-q", "tests"]})
    history = project / "history"
    history.mkdir()
    monkeypatch.chdir(project)
    directory = project / "envelopes"
    report = build_report(
        directory,
        out_md=directory / "summary.md",
        out_html=directory / "index.html",
        history=history,
    )
    for output in (report.markdown, report.html):
        assert str(tmp_path) not in output
    assert "Envelopes from <code>envelopes</code>; history from <code>history</code>" in report.html
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # outside the project: only the last parts
    assert (
        build_report(
            directory, out_md=directory / "summary.md", out_html=directory / "index.html"
        ).view.directory
        == "…/project/envelopes"
    )


def test_a_path_a_lane_recorded_absolutely_is_shown_from_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Regression (a user's project, tried as a new user): `nox -s mutation`
    # records where it merged its shards by absolute path, and the report
    # showed "merged from: /tmp/<...>/envelopes/mutation/merged.json".
    project = tmp_path / "project"
    data = mutation_check_data()
    data["merged_from"] = str(project / "envelopes" / "mutation" / "merged.json")
    data["baseline_path"] = str(project / "baselines" / "mutation.json")
    write_lane(project, "mutation", "fail", data)
    monkeypatch.chdir(project)
    directory = project / "envelopes"
    report = build_report(
        directory, out_md=directory / "summary.md", out_html=directory / "index.html"
    )
    for output in (report.markdown, report.html):
        assert str(tmp_path) not in output
        assert "envelopes/mutation/merged.json" in output
        assert "baselines/mutation.json" in output


def test_the_report_ignores_its_own_outputs_and_temp_files(tmp_path: Path) -> None:
    write_lane(tmp_path, "alpha", "pass")
    (tmp_path / "envelopes" / ".alpha.json.123.1.tmp").write_text("{", encoding="utf-8")
    (tmp_path / "envelopes" / ".hidden.json").write_text("{", encoding="utf-8")
    assert _report(tmp_path).ok
    assert _report(tmp_path).ok  # summary.md and index.html now exist: still one lane


def _stamp(path: Path, *, commit: str | None, dirty: bool, started: str) -> None:
    """Rewrite an envelope's subject and start: the commit and time a lane ran at."""
    document = json.loads(path.read_text(encoding="utf-8"))
    document["subject"] = {"commit": commit, "dirty": dirty, "branch": "main"}
    document["started_at"] = started
    path.write_text(json.dumps(document), encoding="utf-8")


def test_a_stale_red_envelope_of_another_commit_does_not_decide_the_headline(
    tmp_path: Path,
) -> None:
    # Regression: an envelope left from an earlier commit made the headline
    # red until the user cleaned envelopes/ by hand. The newest envelope's
    # commit is the current one; the old file is listed as stale.
    old, new = "a" * 40, "b" * 40
    _stamp(
        write_lane(tmp_path, "alpha", "fail"),
        commit=old,
        dirty=False,
        started="2026-11-30T10:00:00.000Z",
    )
    _stamp(
        write_lane(tmp_path, "beta", "pass"),
        commit=new,
        dirty=False,
        started="2026-12-01T10:00:00.000Z",
    )
    report = _report(tmp_path)
    assert report.ok
    assert report.markdown.startswith("## ✅ lanekit lanes: 1 passed")
    assert f"this report is about commit {new[:12]}, the newest envelope's" in report.markdown
    assert "**Stale envelopes** (another commit or run than commit bbbbbbbbbbbb" in report.markdown
    assert "### ❌ alpha [stale]: fail" in report.markdown
    # A stale envelope is no replay (the note called every stale lane one).
    assert "replay envelope" not in report.markdown
    # The green headline does not hide the red stale lane (a user's dirty-tree
    # run after a failing slow lane turned the headline green with no word of it).
    assert (
        "1 stale envelope(s) failed or crashed (alpha): this verdict does not cover them; "
        "re-run those lanes to know how they do now"
    ) in report.markdown
    assert "<h2>Stale envelopes (another commit or run)</h2>" in report.html
    assert [lane.label for lane in report.view.main] == ["beta"]
    assert [lane.label for lane in report.view.other_runs] == ["alpha"]


def test_clean_runs_of_one_commit_are_current_and_a_dirty_tree_only_in_its_own_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    head = "c" * 40
    monkeypatch.setenv("LANES_GROUP_ID", "run-1")
    alpha = write_lane(tmp_path, "alpha", "fail")
    _stamp(alpha, commit=head, dirty=False, started="2026-12-01T09:00:00.000Z")
    monkeypatch.setenv("LANES_GROUP_ID", "run-2")
    beta = write_lane(tmp_path, "beta", "pass")
    _stamp(beta, commit=head, dirty=False, started="2026-12-01T10:00:00.000Z")
    # Two runs of one clean commit measured one tree: both decide.
    report = _report(tmp_path)
    assert (report.ok, report.view.title, report.view.notes) == (False, "1 failed, 1 passed", ())
    # A dirty tree may have changed between runs: only the newest run decides.
    _stamp(alpha, commit=head, dirty=True, started="2026-12-01T09:00:00.000Z")
    _stamp(beta, commit=head, dirty=True, started="2026-12-01T10:00:00.000Z")
    report = _report(tmp_path)
    assert (report.ok, report.view.title) == (True, "1 passed")
    assert "about a dirty tree of commit cccccccccccc, run run-2" in report.html
    # The newest envelope decides even when it is the red one.
    _stamp(alpha, commit=head, dirty=True, started="2026-12-01T11:00:00.000Z")
    assert _report(tmp_path).view.title == "1 failed"


def test_step_summary_is_appended(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    write_lane(tmp_path, "alpha", "pass")
    report = _report(tmp_path)
    assert summary.read_text(encoding="utf-8") == "earlier step\n" + report.markdown


# ------------------------------------------------------------------ helpers


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain words", "plain words"),
        ("a|b", r"a\|b"),
        ("<b>&amp;", "&lt;b&gt;&amp;amp;"),
        ("*x* _y_ `z` [l] ~s~ \\", r"\*x\* \_y\_ \`z\` \[l\] \~s\~ \\"),
        ("two\nlines", "two lines"),
    ],
)
def test_markdown_escape(raw: str, shown: str) -> None:
    assert markdown_escape(raw) == shown


def test_data_rows_flatten_nested_data() -> None:
    rows = data_rows(
        {
            "suite": {"tests": 3, "ok": True, "ratio": 1 / 3, "none": None},
            "ids": ["a", "b"],
            "empty": {},
            "rows": [{"id": i} for i in range(12)],
        }
    )
    assert rows[:4] == (
        ("suite.tests", "3"),
        ("suite.ok", "true"),
        ("suite.ratio", "0.333333"),
        ("suite.none", "null"),
    )
    assert ("ids", "[a, b]") in rows
    assert ("empty", "{}") in rows
    assert ("rows[9].id", "9") in rows
    assert ("rows[10].id", "10") not in rows
    assert ("rows", "… 2 more of 12 items") in rows


def test_data_rows_are_capped() -> None:
    rows = data_rows({f"k{i}": "v" * 500 for i in range(100)})
    assert len(rows) == 61
    assert rows[-1][0] == "…"
    assert all(len(value) <= 200 for _, value in rows)
    assert data_rows({}) == ()


@pytest.mark.parametrize(
    ("ms", "shown"),
    [(0, "0 ms"), (999, "999 ms"), (1500, "1.5 s"), (59_949, "59.9 s"), (125_000, "2 min 05 s")],
)
def test_format_duration(ms: int, shown: str) -> None:
    assert format_duration(ms) == shown


def test_a_partial_payload_is_shown_whole_with_the_reason(tmp_path: Path) -> None:
    # stage "error" (no verdict): the lane stopped before its payload was
    # complete. Its view reads only whole payloads of its type, so the report
    # says why and shows every key it has.
    data = {
        "mode": "run",
        "iterations": 50,
        "targets": [{"name": "a"}, {"name": "b"}],
        "failures": [],
    }
    write_lane(tmp_path, "fuzz", "no-verdict", data)
    report = _report(tmp_path)
    assert "this fuzz envelope's data does not match the fuzz lane's payload type" in (
        report.markdown
    )
    for row in (("mode", "run"), ("iterations", "50"), ("targets[1].name", "b")):
        assert row in report.view.lanes[0].rows


def test_a_shard_is_labelled_with_its_file(tmp_path: Path) -> None:
    # A lane without a schema block: the empty payload stays valid (the label rule is generic).
    config = parse_config({}, root=tmp_path)
    for shard in (1, 2):
        path = tmp_path / "envelopes" / f"sharded-{shard}.json"
        with lane_run("sharded", config=config, path=path) as run:
            run.verdict(passed=True)
    report = _report(tmp_path)
    assert [lane.label for lane in report.view.lanes] == [
        "sharded (sharded-1.json)",
        "sharded (sharded-2.json)",
    ]
    assert "### ✅ sharded (sharded-1.json): pass\n" in report.markdown


def test_a_deeply_nested_file_is_listed_as_invalid(tmp_path: Path) -> None:
    write_lane(tmp_path, "alpha", "pass")
    (tmp_path / "envelopes" / "deeper.json").write_text("[" * 100_000, encoding="utf-8")
    report = _report(tmp_path)
    assert [lane.status for lane in report.view.lanes] == ["pass", "invalid"]
    assert "nested too deeply" in report.markdown


def test_data_nested_too_deeply_to_show() -> None:
    # Regression: json.loads accepts a little more nesting than json.dumps
    # can write back from inside the flattening, so a valid envelope could
    # crash the report with RecursionError.
    deep: list[Any] = []
    for _ in range(sys.getrecursionlimit()):
        deep = [deep]
    rows = data_rows({"deep": deep, "after": 1})
    assert ("deep[0][0][0]", "(nested too deeply to show)") in rows
    assert ("after", "1") in rows


def test_what_went_wrong_leads_the_data_table() -> None:
    data = {f"k{i}": i for i in range(100)} | {"failures": [{"target": "payload"}]}
    rows = data_rows(data, first=("failures", "absent"))
    assert rows[0] == ("failures[0].target", "payload")
    assert data_rows({"note": ""}) == (("note", '""'),)
