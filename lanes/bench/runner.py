"""``lanes bench``: run the registered benchmarks and write the ``bench`` envelope."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from lanes.bench.registry import BenchContext, Benchmark, gates, registered
from lanes.errors import UsageError
from lanes.lane import choose, drive

if TYPE_CHECKING:
    import argparse

    from lanes.config import Config
    from lanes.envelope import LaneRun, Seed
    from lanes.payloads.bench import BenchBenchmark, BenchData

__all__ = ["DEFAULT_ITERATIONS", "BenchLane", "run_bench"]

DEFAULT_ITERATIONS = 40


@dataclass(frozen=True)
class BenchOptions:
    iterations: int
    selected: dict[str, tuple[str, Benchmark]]
    left_out: tuple[str, ...]


class BenchLane:
    name: ClassVar[str] = "bench"

    def resolve(self, ns: argparse.Namespace, config: Config) -> BenchOptions:
        benchmarks = registered()
        only: list[str] = ns.only or []
        unknown = [name for name in only if name not in benchmarks]
        if unknown:
            msg = f"no benchmark named {', '.join(map(repr, unknown))}"
            raise UsageError(msg, hint=f"choose from: {', '.join(benchmarks)}")
        iterations = choose(ns.iterations, DEFAULT_ITERATIONS)
        if iterations < 1:
            msg = f"--iterations must be at least 1, got {iterations!r}"
            raise UsageError(msg, hint="pass a positive count, e.g. --iterations 40")
        selected = {name: entry for name, entry in benchmarks.items() if not only or name in only}
        left_out: tuple[str, ...] = ()
        if ns.gating_only:
            left_out = tuple(name for name in selected if not gates(name))
            selected = {name: entry for name, entry in selected.items() if gates(name)}
        return BenchOptions(iterations=iterations, selected=selected, left_out=left_out)

    def config_hash(self, options: BenchOptions, config: Config) -> str:
        return config.section_hash("governor")

    def seed(self, options: BenchOptions) -> Seed:
        return None

    def run(self, options: BenchOptions, config: Config, run: LaneRun) -> None:
        ctx = BenchContext(
            root=config.root, config=config, iterations=options.iterations, python=sys.executable
        )
        data: BenchData = {"iterations": options.iterations, "benchmarks": []}
        if options.left_out:
            data["left_out"] = list(options.left_out)
            print(
                f"bench: --gating-only leaves out {', '.join(options.left_out)} "
                "(tracked goals or none; `lanes bench` runs them)",
                file=sys.stderr,
            )
        for name, (description, function) in options.selected.items():
            print(f"bench: {name} ...", file=sys.stderr, flush=True)
            began, cpu = time.perf_counter(), _cpu_seconds()
            entry = function(ctx).entry(name, description)
            # What each benchmark costs the lane, to size its profile.
            print(
                f"bench: {name} took {time.perf_counter() - began:.1f} s wall, "
                f"{_cpu_seconds() - cpu:.1f} s CPU (this process and its children)",
                file=sys.stderr,
            )
            data["benchmarks"].append(entry)
            # After each benchmark: a crash in the next keeps those that finished.
            run.publish(data)
            _print(entry)
        run.publish(data)
        run.verdict(passed=all(item["verdict"] != "fail" for item in data["benchmarks"]))
        print(f"bench: wrote {config.envelope_path('bench')}", file=sys.stderr)


def run_bench(ns: argparse.Namespace) -> int:
    return drive(BenchLane(), ns)


def _cpu_seconds() -> float:
    """User + system seconds of this process and its reaped children."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def _print(entry: BenchBenchmark) -> None:
    shown = ", ".join(f"{k}={v}" for k, v in entry["figures"].items())
    note = f" ({entry['note']})" if entry["note"] else ""
    print(f"{entry['name']}: {entry['verdict'].upper()} (goal: {entry['goal']}) {shown}{note}")
