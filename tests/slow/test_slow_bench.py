"""The slow-plugin-overhead benchmark: its generated suite and its mechanics (not its figure)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from lanes.bench import slow as bench_slow
from lanes.bench.registry import BenchContext, registered
from lanes.config import parse_config

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def test_the_generated_suite_has_exactly_the_tests_asked_for(pytester: pytest.Pytester) -> None:
    bench_slow.make_suite(pytester.path, 123)
    result = pytester.runpytest("-p", "no:cacheprovider", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["123 tests collected*"])


def test_it_is_registered() -> None:
    assert "slow-plugin-overhead" in registered()


def test_without_valgrind_the_figure_is_a_miss_that_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The figure itself (minutes under callgrind) is the bench lane's business.
    monkeypatch.setenv("PATH", str(tmp_path))
    config = parse_config({}, root=tmp_path)
    ctx = BenchContext(root=tmp_path, config=config, iterations=1, python=sys.executable)
    result = bench_slow.slow_plugin_overhead(ctx)
    assert result.verdict == "miss"
    assert "valgrind is not installed" in result.note
    assert result.goal == "instruction overhead <= 2% (gating)"
