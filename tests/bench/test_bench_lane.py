"""The bench lane: a valid envelope, noise-aware verdicts, fail and crash paths."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import pytest

from lanes.bench import registry
from lanes.bench._stats import goal_verdict, median_interval
from lanes.bench.registry import BenchContext, BenchResult
from lanes.bench.runner import run_bench
from lanes.errors import UsageError
from tests.support.documents import read_envelope
from tests.support.processes import run_lanes

PYPROJECT = '[tool.lanes]\nenvelope_dir = "out"\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return tmp_path


def _ns(
    project: Path, *only: str, iterations: int = 1, gating_only: bool = False
) -> argparse.Namespace:
    return argparse.Namespace(
        config=project / "pyproject.toml",
        iterations=iterations,
        only=list(only) or None,
        gating_only=gating_only,
    )


def _envelope(project: Path) -> dict[str, object]:
    return read_envelope(project / "out" / "bench.json")


@pytest.mark.integration
def test_lanes_bench_writes_a_valid_envelope(project: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LANES_")}
    proc = run_lanes(
        "bench",
        "--iterations",
        "2",
        "--only",
        "hook-latency",
        "--only",
        "classify-throughput",
        "--config",
        str(project / "pyproject.toml"),
        cwd=tmp_path,
        env=env,
    )
    assert proc.returncode in (0, 1), proc.stderr  # a verdict either way; never a crash
    document = _envelope(project)
    assert (document["lane"], document["stage"]) == ("bench", "complete")
    data = document["data"]
    assert isinstance(data, dict)
    assert data["iterations"] == 2
    by_name = {b["name"]: b for b in data["benchmarks"]}
    assert list(by_name) == ["hook-latency", "classify-throughput"]
    latency = by_name["hook-latency"]["figures"]
    assert latency["pairs"] == 2
    assert latency["ratio_median"] > 0
    assert latency["hook_command"] in ("lanes hook", f"{Path(sys.executable).name} -m lanes hook")
    assert "ratio_median=" in proc.stdout


def test_median_interval_uses_order_statistics() -> None:
    assert median_interval([1.0]) == (1.0, 1.0, 1.0)
    values = [float(v) for v in range(1, 41)]
    median, low, high = median_interval(values)
    assert median == 20.5
    assert low < median < high
    assert (low, high) == (13.0, 28.0)
    # One wild outlier moves neither the median nor the interval.
    assert median_interval([*values[:-1], 1e9]) == (median, low, high)


def _fixed(verdict: registry.Verdict) -> registry.Benchmark:
    def run(ctx: BenchContext) -> BenchResult:
        return BenchResult(figures={"n": ctx.iterations}, goal="n >= 1", verdict=verdict)

    return run


def test_a_missed_goal_fails_the_lane(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "BENCHMARK_MODULES", ())
    monkeypatch.setattr(registry, "_REGISTRY", {})
    registry.benchmark("always-fine", "a benchmark that passes")(_fixed("pass"))
    registry.benchmark("too-slow", "a benchmark that misses its goal")(_fixed("fail"))
    assert run_bench(_ns(project, iterations=3)) == 1
    document = _envelope(project)
    assert (document["result"], document["stage"]) == ("fail", "complete")
    assert run_bench(_ns(project, "always-fine")) == 0
    assert _envelope(project)["result"] == "pass"


def test_a_missed_tracked_goal_is_reported_but_does_not_fail_the_lane(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry, "BENCHMARK_MODULES", ())
    monkeypatch.setattr(registry, "_REGISTRY", {})
    registry.benchmark("tracked", "a tracked goal, missed")(_fixed("miss"))
    assert run_bench(_ns(project)) == 0
    document = _envelope(project)
    assert document["result"] == "pass"
    data = document["data"]
    assert isinstance(data, dict)
    assert [b["verdict"] for b in data["benchmarks"]] == ["miss"]


def test_the_gating_only_profile_runs_what_can_fail_and_names_what_it_leaves_out(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry, "BENCHMARK_MODULES", ())
    monkeypatch.setattr(registry, "_REGISTRY", {})
    monkeypatch.setattr(registry, "_NOT_GATING", set())
    registry.benchmark("gated", "a gating goal")(_fixed("pass"))
    registry.benchmark("tracked", "a tracked goal", gating=False)(_fixed("miss"))
    registry.benchmark("failing-tracked", "tracked, would fail", gating=False)(_fixed("fail"))
    assert run_bench(_ns(project, gating_only=True)) == 0
    data = _envelope(project)["data"]
    assert isinstance(data, dict)
    assert [b["name"] for b in data["benchmarks"]] == ["gated"]
    assert data["left_out"] == ["tracked", "failing-tracked"]
    # The full run runs them all, and lists nothing left out.
    assert run_bench(_ns(project)) == 1
    data = _envelope(project)["data"]
    assert isinstance(data, dict)
    assert [b["name"] for b in data["benchmarks"]] == ["gated", "tracked", "failing-tracked"]
    assert "left_out" not in data
    # --only still names any benchmark; --gating-only then drops it if it does not gate.
    assert run_bench(_ns(project, "tracked", gating_only=True)) == 0
    data = _envelope(project)["data"]
    assert isinstance(data, dict)
    assert (data["benchmarks"], data["left_out"]) == ([], ["tracked"])


def test_the_registered_benchmarks_without_a_gating_goal_are_the_tracked_ones() -> None:
    # The main job leaves these to the nightly bench: a change that made one of
    # them gate must also take it out of this list, or the main job skips a gate.
    names = registry.registered()
    assert {name for name in names if not registry.gates(name)} == {
        "gate-latency-50k",
        "governor-plugin-agent-cost",
        "affected-record-overhead",
        "tree-digest",
        "economy-sim",
    }


@pytest.mark.parametrize(
    ("median", "low", "gating", "verdict"),
    [
        (1.5, 1.2, True, "pass"),
        (2.5, 2.1, True, "fail"),  # the whole interval above a gating goal
        (2.5, 1.9, True, "miss"),  # within noise
        (3.1, 2.9, False, "miss"),  # a tracked goal never fails the lane
    ],
)
def test_goal_verdict(median: float, low: float, gating: bool, verdict: str) -> None:
    got, note = goal_verdict(median, low, median + 0.5, 2.0, gating=gating)
    assert got == verdict
    assert bool(note) == (verdict != "pass")


def test_a_crashing_benchmark_leaves_an_error_envelope(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash(ctx: BenchContext) -> BenchResult:
        msg = f"boom at {ctx.iterations}"
        raise RuntimeError(msg)

    monkeypatch.setattr(registry, "BENCHMARK_MODULES", ())
    monkeypatch.setattr(registry, "_REGISTRY", {})
    registry.benchmark("crash", "raises")(crash)
    assert run_bench(_ns(project)) == 3
    document = _envelope(project)
    assert document["stage"] == "error"
    assert document["error"] == {"type": "RuntimeError", "message": "boom at 1"}


def test_unknown_benchmark_names_are_usage_errors(project: Path) -> None:
    with pytest.raises(UsageError, match="no benchmark named 'nope'") as info:
        run_bench(_ns(project, "nope"))
    assert "hook-latency" in info.value.hint
