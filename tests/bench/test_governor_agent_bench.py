"""``governor-plugin-agent-cost``: the plugin's decision inside an agent, in
interpreter starts, on a 5,000-file repository (tracked, not gating)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import pytest

from lanes.bench.registry import BenchContext, registered
from lanes.config import parse_config

if TYPE_CHECKING:
    from pathlib import Path


def test_it_is_registered() -> None:
    assert "governor-plugin-agent-cost" in registered()


@pytest.mark.integration
def test_it_measures_a_governed_partial_run_against_an_inert_one(tmp_path: Path) -> None:
    _description, bench = registered()["governor-plugin-agent-cost"]
    ctx = BenchContext(
        root=tmp_path, config=parse_config({}, root=tmp_path), iterations=1, python=sys.executable
    )
    result = bench(ctx)
    # Both arms ran the selection and passed (a stopped or failed run is "fail").
    assert result.verdict in ("pass", "miss"), result.note
    figures = result.figures
    assert figures["tracked_files"] == 5000
    assert figures["rounds"] == 3
    for name in ("baseline_ms_median", "inert_ms_median", "agent_ms_median"):
        value = figures[name]
        assert isinstance(value, float)
        assert value > 0
    assert isinstance(figures["cost_starts_median"], float)
    assert isinstance(figures["median_difference_starts"], float)
    assert isinstance(figures["cpu_cost_starts_median"], float)
