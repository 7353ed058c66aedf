"""The many-agents mode: agents through the real hook keep the hard requirements and save runs."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from lanes.cli import main
from lanes.envelope import validate_envelope
from lanes.torture.agents import simulate

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.integration
@pytest.mark.parametrize("seed", [1, 2])
def test_no_requirement_is_broken_and_runs_are_saved(tmp_path: Path, seed: int) -> None:
    report = simulate(tmp_path, agents=3, tasks=5, seed=seed, change_rate=0.6)
    assert report.violations == []
    assert report.requested == 3 * 5 * 3
    assert 0 < report.executed < report.requested
    assert report.deduplicated > 0
    assert report.executed + report.deduplicated == report.requested


@pytest.mark.integration
def test_the_torture_lane_judges_the_agents_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    envelope = tmp_path / "torture.json"
    code = main(
        [
            "torture",
            "--runs",
            "1",
            "--agents",
            "2",
            "--tasks",
            "3",
            "--agent-seeds",
            "2",
            "--envelope",
            str(envelope),
        ]
    )
    document = json.loads(envelope.read_text(encoding="utf-8"))
    assert validate_envelope(document) == []
    agents = document["data"]["agents"]
    assert (code, agents["seeds"], agents["violations"]) == (0, [0, 1], [])
    assert [r["runs_without_governor"] for r in agents["reports"]] == [2 * 3 * 3, 2 * 3 * 3]
