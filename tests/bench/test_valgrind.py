"""The instruction-count benchmarks' shared machinery: profiles, extrapolation, shared not-loaded runs.

The counts themselves (minutes under valgrind) are the bench lane's; here a
recording count function stands in for valgrind at the ``count`` seam.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import pytest

from lanes.bench import valgrind
from lanes.bench.registry import BenchContext
from lanes.config import parse_config

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize(
    ("iterations", "sizes", "layouts"),
    [
        (80, (2000,), 5),
        (40, (2000,), 5),
        (32, (2000,), 4),
        (24, (2000,), 3),
        # The main job's --iterations 20: two smaller suites, one layout.
        (20, (100, 1000), 1),
        (1, (100, 1000), 1),
    ],
)
def test_the_profile_follows_the_iterations(
    iterations: int, sizes: tuple[int, ...], layouts: int
) -> None:
    chosen = valgrind.plan(iterations)
    assert (chosen.sizes, chosen.layouts) == (sizes, layouts)
    assert chosen.extrapolated == (sizes != (2000,))


def test_the_count_at_2000_tests_is_on_the_line_through_the_two_sizes() -> None:
    assert valgrind.extrapolate({100: 1_000, 1000: 10_000}) == 20_000
    assert valgrind.extrapolate({1000: 10_000, 100: 1_000}, tests=550) == 5_500
    # The full profile's own size is taken as measured.
    assert valgrind.extrapolate({2000: 12_345}) == 12_345


def test_the_count_is_read_from_cachegrinds_summary() -> None:
    # valgrind 3.19's stderr for `python -c pass` (--cache-sim=no: the
    # instruction count is the only figure).
    stderr = (
        "==21763== Cachegrind, a cache and branch-prediction profiler\n"
        "==21763== Command: python -c pass\n==21763== \n"
        "==21763== I   refs:      87,543,540\n"
    )
    assert valgrind.count_in(stderr) == 87_543_540
    # callgrind's summary (the tool used before) or no summary at all: no count.
    assert valgrind.count_in("==1== Collected : 6319862848\n") is None
    assert valgrind.count_in("") is None


def test_the_description_says_what_was_measured() -> None:
    assert valgrind.plan(40).describe() == "over 5 memory layouts"
    assert valgrind.plan(20).describe() == (
        "extrapolated to 2,000 tests from 100- and 1000-test runs, over 1 memory layout"
    )


def _context(tmp_path: Path, iterations: int) -> BenchContext:
    config = parse_config({}, root=tmp_path)
    return BenchContext(root=tmp_path, config=config, iterations=iterations, python=sys.executable)


def test_both_benchmarks_share_the_not_loaded_runs_of_one_lane_run(tmp_path: Path) -> None:
    counted: list[tuple[tuple[str, ...], str, int]] = []

    def count(_python: str, root: Path, args: list[str], layout: int) -> tuple[int, int]:
        counted.append((tuple(args), root.name, layout))
        tests = int(root.name.removeprefix("suite-"))
        plugin = 1_000_000 + 100 * tests if "-p" in args[3:] else 0
        return 1_000_000_000 + 2_000_000 * tests + plugin, 0

    ctx = _context(tmp_path, iterations=20)
    first = valgrind.measure_overhead(ctx, ("-p", "one"), count=count, warm=lambda *_: None)
    second = valgrind.measure_overhead(ctx, ("-p", "two"), count=count, warm=lambda *_: None)
    base = [run for run in counted if run[0] == valgrind.BASE_ARGS]
    # Once per size and layout for the lane run, not once per benchmark.
    assert sorted(base) == [
        (valgrind.BASE_ARGS, "suite-100", 0),
        (valgrind.BASE_ARGS, "suite-1000", 0),
    ]
    assert len(counted) == 6
    # Extrapolated to 2,000 tests: (1e6 + 2e5) / (1e9 + 4e9).
    assert first.overheads == second.overheads == [pytest.approx(1_200_000 / 5_000_000_000)]
    assert (first.off, first.on) == (5_000_000_000, 5_001_200_000)
    assert first.figures(5)["measured_sizes"] == "100 and 1000"
    # The suites were generated once, in the context's scratch directory.
    assert sorted(p.name for p in ctx.scratch.iterdir()) == ["suite-100", "suite-1000"]


def test_the_generated_suites_live_as_long_as_the_context(tmp_path: Path) -> None:
    ctx = _context(tmp_path, iterations=20)
    scratch = ctx.scratch
    assert scratch.is_dir()
    del ctx
    assert not scratch.exists()


def test_no_measured_run_looks_like_an_agents_to_the_governor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A bench started inside an agent's shell must still measure the plugin
    # inert: whatever variable makes runner/plugin.py's agent_of name an agent
    # is left out, Codex's whole CODEX_SANDBOX* family included.
    from lanes.governor.runner.plugin import agent_of  # noqa: PLC0415  # the rule under test

    for name, value in [
        ("CLAUDECODE", "1"),
        ("CODEX_THREAD_ID", "t"),
        ("CODEX_SANDBOX_SOMETHING_NEW", "1"),
        ("LANES_AGENT", "me"),
    ]:
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LANES_BENCH_KEPT", "yes")
    env = valgrind._env()
    assert agent_of(env) is None
    assert env["LANES_BENCH_KEPT"] == "yes"
    assert env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1"
