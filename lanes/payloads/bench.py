"""The bench lane's payload (``lanes bench``): one entry per registered benchmark.

:class:`BenchData` is the envelope's ``data``; :mod:`lanes.bench.runner`
builds it from each benchmark's :class:`lanes.bench.registry.BenchResult` and
:mod:`lanes.report.views.bench` reads it.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict

from lanes.payloads.constraints import Min, Pattern

__all__ = ["BenchBenchmark", "BenchData", "BenchFigure", "BenchVerdict"]

BenchVerdict = Literal["pass", "miss", "fail", "info"]
# A figure is a number (ratio, count, rate), a word or a flag; null when unmeasured.
BenchFigure = float | str | bool | None


class BenchBenchmark(TypedDict):
    """One registered benchmark's figures, its goal and the verdict against it."""

    name: Annotated[str, Pattern("^[a-z][a-z0-9-]*$")]
    description: str
    figures: dict[str, BenchFigure]
    goal: str | None
    verdict: BenchVerdict
    note: str


class BenchData(TypedDict):
    """The bench lane (lanes bench): one entry per registered benchmark. Figures are ratios,
    counts or rates of paired or repeated runs; verdict fail means a gating goal was missed
    beyond noise (the lane fails), miss a tracked goal missed or a gating one missed within
    noise (reported, the lane passes), info a figure without a goal."""

    iterations: Annotated[int, Min(1)]
    benchmarks: list[BenchBenchmark]
    # With --gating-only (the main job's profile): the registered benchmarks not
    # run because none of their goals gates; the full `lanes bench` runs them.
    left_out: NotRequired[list[Annotated[str, Pattern("^[a-z][a-z0-9-]*$")]]]
