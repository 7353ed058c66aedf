"""``lanes bench``: run the registered benchmarks and write the ``bench`` envelope."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from lanes.bench.registry import BenchContext, registered
from lanes.config import load_config
from lanes.envelope import lane_run
from lanes.errors import UsageError
from lanes.exitcodes import ExitCode

if TYPE_CHECKING:
    import argparse

__all__ = ["DEFAULT_ITERATIONS", "run_bench"]

DEFAULT_ITERATIONS = 40


def run_bench(ns: argparse.Namespace) -> int:
    benchmarks = registered()
    only: list[str] = ns.only or []
    unknown = [name for name in only if name not in benchmarks]
    if unknown:
        msg = f"no benchmark named {', '.join(map(repr, unknown))}"
        raise UsageError(msg, hint=f"choose from: {', '.join(benchmarks)}")
    if ns.iterations < 1:
        msg = f"--iterations must be at least 1, got {ns.iterations!r}"
        raise UsageError(msg, hint="pass a positive count, e.g. --iterations 40")
    selected = {name: entry for name, entry in benchmarks.items() if not only or name in only}
    config = load_config(ns.config)
    ctx = BenchContext(
        root=config.root, config=config, iterations=ns.iterations, python=sys.executable
    )
    try:
        with lane_run("bench", config=config, sections=("governor",)) as run:
            run.data["iterations"] = ns.iterations
            run.data["benchmarks"] = results = []
            for name, (description, function) in selected.items():
                print(f"bench: {name} ...", file=sys.stderr, flush=True)
                result = function(ctx)
                results.append({"name": name, "description": description, **result.to_dict()})
                _print(name, result.to_dict())
            passed = all(item["verdict"] != "fail" for item in results)
            run.verdict(passed=passed)
    except Exception as exc:  # noqa: BLE001  # the envelope already says stage "error"
        print(f"error: the bench lane crashed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return ExitCode.CRASH
    print(f"bench: wrote {config.envelope_path('bench')}", file=sys.stderr)
    return ExitCode.OK if passed else ExitCode.FAIL


def _print(name: str, result: dict[str, object]) -> None:
    figures = result["figures"]
    shown = ", ".join(f"{k}={v}" for k, v in figures.items()) if isinstance(figures, dict) else ""
    note = f" ({result['note']})" if result["note"] else ""
    print(f"{name}: {str(result['verdict']).upper()} (goal: {result['goal']}) {shown}{note}")
