"""The economy simulation keeps the hard requirements and saves runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.bench.economy_sim import simulate

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
