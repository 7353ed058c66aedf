"""``lanes report --history DIR``: trends and deltas over earlier runs, drift, freshness."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pytest

from lanes.cli import main
from lanes.report.render import build_report
from tests.report.lane_payloads import fuzz_data, offender, slow_data, torture_data
from tests.report.report_fixtures import write_lane

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.report.render import Report

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_RUN_ID", "LANES_GROUP_ID", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)


def _stamp(path: Path, started: datetime, **changes: Any) -> None:  # envelope fields
    document = json.loads(path.read_text(encoding="utf-8"))
    document["started_at"] = started.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    document.update(changes)
    path.write_text(json.dumps(document), encoding="utf-8")


def _earlier_run(
    tmp_path: Path, history: Path, days_ago: int, *, cases_per_second: float, offenders: int
) -> None:
    """One earlier nightly run: its envelopes in history/run-<n>/, as a downloaded artifact."""
    scratch = tmp_path / f"scratch-{days_ago}"
    fuzz = write_lane(scratch, "fuzz", "pass", fuzz_data(cases_per_second=cases_per_second))
    slow = write_lane(
        scratch,
        "slow",
        "fail" if offenders else "pass",
        slow_data(offenders=[offender(f"tests/t.py::test_{i}", 3000) for i in range(offenders)]),
    )
    target = history / f"run-{days_ago}"
    target.mkdir(parents=True)
    for path in (fuzz, slow):
        _stamp(path, NOW - timedelta(days=days_ago))
        shutil.move(path, target / path.name)


@pytest.fixture
def history(tmp_path: Path) -> Path:
    folder = tmp_path / "history"
    for days_ago, speed, offenders in ((3, 250.0, 0), (2, 280.0, 1), (1, 300.0, 2)):
        _earlier_run(tmp_path, folder, days_ago, cases_per_second=speed, offenders=offenders)
    return folder


def _current(tmp_path: Path, *, cases_per_second: float = 330.0) -> Path:
    root = tmp_path / "now"
    fuzz = write_lane(root, "fuzz", "pass", fuzz_data(cases_per_second=cases_per_second))
    slow = write_lane(root, "slow", "pass", slow_data())
    for path in (fuzz, slow):
        _stamp(path, NOW - timedelta(hours=1))
    return root / "envelopes"


def _report(envelopes: Path, history: Path | None) -> Report:
    """The report of ``envelopes`` at :data:`NOW`, beside them, with ``history``."""
    return build_report(
        envelopes,
        out_md=envelopes / "summary.md",
        out_html=envelopes / "index.html",
        history=history,
        now=NOW,
    )


def test_three_earlier_runs_give_each_figure_a_trend_and_a_delta(
    tmp_path: Path, history: Path
) -> None:
    envelopes = _current(tmp_path)
    report = _report(envelopes, history)
    fuzz = next(lane for lane in report.view.lanes if lane.lane == "fuzz")
    assert fuzz.history is not None
    assert fuzz.history.runs == 3
    speed = next(trend for trend in fuzz.history.trends if trend.figure == "cases/s")
    assert speed.values == (250.0, 280.0, 300.0, 330.0)
    assert speed.delta_text == "+30 (+10.0%)"
    assert "| cases/s | 300 | 330 | +30 (+10.0%) |" in report.markdown
    slow = next(lane for lane in report.view.lanes if lane.lane == "slow")
    assert slow.history is not None
    past_limit = next(t for t in slow.history.trends if t.figure == "tests past the limit")
    assert past_limit.values == (0.0, 1.0, 2.0, 0.0)
    assert past_limit.delta_text == "-2 (-100.0%)"
    # The trend chart: an accessible SVG whose text alternative lists the values.
    assert "cases/s over the last 4 runs, oldest first: 250, 280, 300, 330" in report.html
    assert '<svg xmlns="http://www.w3.org/2000/svg" role="img"' in report.html


def test_a_changed_config_or_tool_version_is_drift(tmp_path: Path, history: Path) -> None:
    envelopes = _current(tmp_path)
    fuzz = envelopes / "fuzz.json"
    document = json.loads(fuzz.read_text(encoding="utf-8"))
    document["config_hash"] = "sha256:" + "f" * 64
    document["generated_by"]["tools"]["hypothesis"] = "99.0.0"
    fuzz.write_text(json.dumps(document), encoding="utf-8")
    report = _report(envelopes, history)
    lane = next(lane for lane in report.view.lanes if lane.lane == "fuzz")
    assert lane.history is not None
    assert any(
        note.startswith("configuration changed since the previous run")
        for note in lane.history.drift
    )
    assert any(
        note.startswith("hypothesis ") and note.endswith("→ 99.0.0") for note in lane.history.drift
    )
    assert "**drift:** configuration changed" in report.markdown


def test_freshness_flags_evidence_older_than_the_cadence(tmp_path: Path) -> None:
    envelopes = _current(tmp_path)
    _stamp(envelopes / "slow.json", NOW - timedelta(days=4))
    report = _report(envelopes, None)
    slow = next(lane for lane in report.view.lanes if lane.lane == "slow")
    fuzz = next(lane for lane in report.view.lanes if lane.lane == "fuzz")
    assert (slow.freshness, slow.stale) == ("4 d old, runs daily", True)
    assert (fuzz.freshness, fuzz.stale) == ("1 h old, runs daily", False)
    assert "stale evidence (older than the lane's cadence): slow" in report.markdown


def test_a_lane_missing_from_this_run_is_named(tmp_path: Path, history: Path) -> None:
    root = tmp_path / "now"
    write_lane(root, "torture", "pass", torture_data())
    envelopes = root / "envelopes"
    report = _report(envelopes, history)
    assert (
        "fuzz (fuzz.json) did not run this time; its last envelope is from 24 h ago"
        in report.view.notes
    )


def test_the_cli_reads_a_history_folder_and_rejects_a_missing_one(
    tmp_path: Path, history: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    envelopes = _current(tmp_path)
    assert main(["report", "--dir", str(envelopes), "--history", str(history)]) == 0
    assert "| cases/s | 300 | 330 |" in (envelopes / "summary.md").read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["report", "--dir", str(envelopes), "--history", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert "error: --history" in err
    assert "hint:" in err


def test_the_history_ignores_invalid_files_and_this_runs_own_envelopes(
    tmp_path: Path, history: Path
) -> None:
    envelopes = _current(tmp_path)
    (history / "run-1" / "garbage.json").write_text("{nope", encoding="utf-8")
    shutil.copy(envelopes / "fuzz.json", history / "run-1" / "fuzz-copy.json")
    report = _report(envelopes, history)
    assert report.view.history is not None
    assert report.view.history.invalid == 1
    fuzz = next(lane for lane in report.view.lanes if lane.lane == "fuzz")
    assert fuzz.history is not None
    assert fuzz.history.runs == 3  # its own copy (same run_id) is not an earlier run
