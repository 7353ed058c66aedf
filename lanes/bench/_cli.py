"""``lanes bench``: the parser; the benchmarks are imported only when it runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanes._cli_config import add_config_option

if TYPE_CHECKING:
    import argparse

__all__ = ["add_parser"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = sub.add_parser(
        "bench",
        help="measure the governor's own cost and write the bench envelope",
        description=(
            "Run the registered benchmarks (hook latency as a ratio to `python -c pass`, "
            "classification throughput, ...) and write envelopes/bench.json. Exit 1 when a "
            "gating goal is missed beyond noise; a tracked goal's miss is reported as MISS "
            "and does not fail the lane."
        ),
    )
    bench.add_argument(
        "--iterations",
        type=int,
        default=None,
        metavar="N",
        help="paired samples per subprocess benchmark, rounds per in-process one (default: 40)",
    )
    bench.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="run only this benchmark (repeatable)",
    )
    bench.add_argument(
        "--gating-only",
        action="store_true",
        help="run only the benchmarks with a gating goal (the main job's profile); the envelope "
        "lists the tracked and goal-less ones left out",
    )
    add_config_option(bench)
    bench.set_defaults(handler=_run)


def _run(ns: argparse.Namespace) -> int:
    from lanes.bench.runner import run_bench

    return run_bench(ns)
