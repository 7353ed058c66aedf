"""The slow-plugin-overhead benchmark: its generated suite and its mechanics (not its figure)."""

from __future__ import annotations

import shutil
import sys
from typing import TYPE_CHECKING

import pytest

from lanes.bench import slow as bench_slow
from lanes.bench.registry import BenchContext, registered
from lanes.config import parse_config

if TYPE_CHECKING:
    from pathlib import Path


def test_the_generated_suite_has_exactly_the_tests_asked_for(pytester: pytest.Pytester) -> None:
    bench_slow.make_suite(pytester.path, 123)
    result = pytester.runpytest("-p", "no:cacheprovider", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["123 tests collected*"])


def test_it_is_registered() -> None:
    assert "slow-plugin-overhead" in registered()


def test_without_valgrind_the_figure_is_a_miss_that_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The figure itself (minutes under valgrind) is the bench lane's business.
    monkeypatch.setenv("PATH", str(tmp_path))
    config = parse_config({}, root=tmp_path)
    ctx = BenchContext(root=tmp_path, config=config, iterations=1, python=sys.executable)
    result = bench_slow.slow_plugin_overhead(ctx)
    assert result.verdict == "miss"
    assert "valgrind is not installed" in result.note
    assert result.goal == "instruction overhead <= 2%"


@pytest.mark.parametrize(
    ("on", "verdict", "note"),
    [
        # Per layout (0 to 4 extra variables): the median of the five is judged.
        (
            {0: 10_100, 1: 10_300, 2: 10_400, 3: 10_200, 4: 10_350},
            "fail",
            (
                "the enabled ratchet costs 3.00% more instructions than pytest alone "
                "(median; +1.00% to +4.00% over 5 memory layouts)"
            ),
        ),
        (
            {0: 10_150, 1: 10_190, 2: 10_250, 3: 10_160, 4: 10_210},
            "pass",
            "+1.90% (+1.50% to +2.50% over 5 memory layouts)",
        ),
    ],
)
def test_the_goal_gates_on_the_median_of_the_layouts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, on: dict[int, int], verdict: str, note: str
) -> None:
    # The goal's logic only: the counts (minutes under valgrind) are the lane's.
    def instructions(_python: str, _root: Path, args: list[str], layout: int) -> tuple[int, int]:
        return (on[layout] if "--slow-ratchet" in args else 10_000), 0

    monkeypatch.setattr(shutil, "which", lambda _name: "/usr/bin/valgrind")
    monkeypatch.setattr(bench_slow, "warm_up", lambda *_args: None)
    monkeypatch.setattr(bench_slow, "instructions", instructions)
    monkeypatch.setattr(bench_slow, "SUITE_TESTS", 3)
    config = parse_config({}, root=tmp_path)
    ctx = BenchContext(root=tmp_path, config=config, iterations=40, python=sys.executable)
    result = bench_slow.slow_plugin_overhead(ctx)
    assert (result.verdict, result.note) == (verdict, note)


@pytest.mark.parametrize(("iterations", "layouts"), [(80, 5), (40, 5), (32, 4), (20, 3), (1, 3)])
def test_a_lighter_run_takes_fewer_layouts_never_under_three(iterations: int, layouts: int) -> None:
    # The main job runs the bench with --iterations 20: three pairs of
    # valgrind runs per instruction-count bench instead of five.
    assert bench_slow.layouts(iterations) == layouts


@pytest.mark.integration
def test_the_warm_up_fills_the_byte_code_caches_even_where_the_environment_forbids_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Sandboxes and CI images often export PYTHONDONTWRITEBYTECODE=1: inherited,
    # it left every measured run compiling and assertion-rewriting from source,
    # a cost no installed lanekit pays after its first run.
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    bench_slow.make_suite(tmp_path, 3)
    bench_slow.warm_up(sys.executable, tmp_path, ["-q", "-p", "no:cacheprovider", "tests"])
    cached = [p.name for p in (tmp_path / "tests" / "__pycache__").glob("*.pyc")]
    assert any(name.startswith("test_generated_000") for name in cached), cached
