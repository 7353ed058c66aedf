"""``economy-sim``: how many suite runs the governor saves agents finishing tasks.

A number, not a verdict on correctness: the same simulation is the torture
lane's many-agents mode (``lanes torture --agents N``), which fails on any
broken requirement. Here a violation is only mentioned, so that a reader of the
bench envelope does not take a saving bought by a bug at face value.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from lanes.bench.registry import BenchContext, BenchResult, benchmark
from lanes.torture.agents import simulate

if TYPE_CHECKING:
    from lanes.payloads.bench import BenchFigure

__all__ = ["economy_simulation"]


@benchmark(
    "economy-sim",
    "agents finishing tasks through the real hook: suite runs with and without the governor",
    gating=False,
)
def economy_simulation(ctx: BenchContext) -> BenchResult:
    workdir = Path(tempfile.mkdtemp(prefix="lanes-bench-sim-"))
    try:
        report = simulate(workdir, agents=4, tasks=max(3, min(ctx.iterations // 4, 10)), seed=1)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    figures: dict[str, BenchFigure] = dict(report.to_dict())
    if report.requested:
        figures["runs_saved_share"] = round(1 - report.executed / report.requested, 3)
    note = (
        f"{len(report.violations)} requirement violations: see `lanes torture --agents 4`"
        if report.violations
        else ""
    )
    return BenchResult(figures=figures, goal=None, verdict="info", note=note)
