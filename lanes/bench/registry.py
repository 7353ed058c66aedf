"""The registry of named benchmarks.

A benchmark is a function taking a :class:`BenchContext` and returning a
:class:`BenchResult` (its figures, its goal and a verdict). Register one with
the decorator, in a module listed in :data:`BENCHMARK_MODULES`::

    @benchmark("hook-latency", "lanes hook vs python -c pass, paired runs")
    def hook_latency(ctx: BenchContext) -> BenchResult: ...

Modules are imported only when the lane runs, so ``lanes --help`` pays nothing.
"""

from __future__ import annotations

import importlib
import os
import shutil
import tempfile
import weakref
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes.payloads.bench import BenchVerdict

if TYPE_CHECKING:
    from lanes.config import Config
    from lanes.payloads.bench import BenchBenchmark, BenchFigure

__all__ = [
    "BENCHMARK_MODULES",
    "BenchContext",
    "BenchResult",
    "Benchmark",
    "Verdict",
    "benchmark",
    "child_environment",
    "gates",
    "registered",
]

# Every module that registers benchmarks, in run order. Add yours here.
BENCHMARK_MODULES: Final[tuple[str, ...]] = (
    "lanes.bench.governor_hook",
    "lanes.bench.hook_sizes",
    "lanes.bench.gate",
    "lanes.bench.economy",
    "lanes.bench.slow",
    "lanes.bench.governor_plugin",
    "lanes.bench.governor_agent",
    "lanes.bench.timing",
    "lanes.bench.affected",
)

# The benchmarks' name for the payload's closed set of verdicts.
Verdict = BenchVerdict


class BenchContext:
    """What a benchmark may use: the project, its config and the effort asked for."""

    __slots__ = ("__weakref__", "config", "iterations", "memo", "python", "root", "scratch")

    def __init__(
        self,
        *,
        root: Path,
        config: Config,
        iterations: int,
        python: str,
        scratch: Path | None = None,
    ) -> None:
        self.root = root
        self.config = config
        # Paired samples (subprocess benchmarks) or rounds (in-process ones);
        # each benchmark documents how it scales.
        self.iterations = iterations
        # The interpreter of the virtualenv under test (sys.executable).
        self.python = python
        # Shared by the lane run's benchmarks: generated projects (scratch)
        # and measurements more than one of them compares against (memo: the
        # instruction-count benchmarks' not-loaded runs). Without a scratch directory
        # given, a private one lives as long as this context.
        if scratch is None:
            scratch = Path(tempfile.mkdtemp(prefix="lanes-bench-"))
            weakref.finalize(self, shutil.rmtree, scratch, ignore_errors=True)
        self.scratch = scratch
        self.memo: dict[tuple[object, ...], object] = {}


class BenchResult:
    """One benchmark's outcome (the runner adds its name and description).

    ``verdict`` is ``"fail"`` only when a gating goal is missed beyond noise,
    ``"miss"`` for a tracked goal missed or a gating one missed within noise
    (see :mod:`lanes.bench._stats`); ``"info"`` for a figure without a goal.
    """

    __slots__ = ("figures", "goal", "note", "verdict")

    def __init__(
        self,
        *,
        figures: dict[str, BenchFigure],
        goal: str | None,
        verdict: Verdict,
        note: str = "",
    ) -> None:
        self.figures = figures
        self.goal = goal
        self.verdict = verdict
        self.note = note

    def entry(self, name: str, description: str) -> BenchBenchmark:
        """The envelope's entry for this result of the benchmark ``name``."""
        return {
            "name": name,
            "description": description,
            "figures": dict(self.figures),
            "goal": self.goal,
            "verdict": self.verdict,
            "note": self.note,
        }


Benchmark = Callable[[BenchContext], BenchResult]

_REGISTRY: dict[str, tuple[str, Benchmark]] = {}
# The benchmarks registered with ``gating=False``: their goals are tracked, or they have none.
_NOT_GATING: set[str] = set()


def benchmark(
    name: str, description: str, *, gating: bool = True
) -> Callable[[Benchmark], Benchmark]:
    """Register ``function`` as the benchmark ``name``.

    ``gating=False`` for a benchmark whose goals are all tracked (or that has
    none): ``lanes bench --gating-only`` (the main job's profile) leaves it to
    the full run, since it can only inform, never fail the lane.
    """

    def register(function: Benchmark) -> Benchmark:
        if name in _REGISTRY and _REGISTRY[name][1] is not function:
            msg = f"benchmark {name!r} is registered twice"
            raise ValueError(msg)
        _REGISTRY[name] = (description, function)
        if not gating:
            _NOT_GATING.add(name)
        return function

    return register


def gates(name: str) -> bool:
    """Whether the registered benchmark ``name`` has a gating goal (one whose miss fails the lane)."""
    return name not in _NOT_GATING


def registered() -> dict[str, tuple[str, Benchmark]]:
    """Every benchmark (name -> (description, function)), in registration order."""
    for module in BENCHMARK_MODULES:
        importlib.import_module(module)
    return dict(_REGISTRY)


def child_environment(
    *, drop: Collection[str] = (), drop_prefixes: tuple[str, ...] = ()
) -> dict[str, str]:
    """This process's environment for a measured child process, less the
    variables named in ``drop`` or starting with one of ``drop_prefixes``.

    Never with ``PYTHONDONTWRITEBYTECODE``: an installed lanekit runs from
    bytecode (pip compiles it at install; the first run writes what uv
    leaves out), but with the variable inherited (containers and CI images
    often set it) every measured child would compile the package from source
    again, and the figure would measure the compiler: 100 ms of the 120-190 ms
    ``hook-large-commands`` charged to a 64 KiB command in the main job.
    """
    return {
        name: value
        for name, value in os.environ.items()
        if name != "PYTHONDONTWRITEBYTECODE"
        and name not in drop
        and not name.startswith(drop_prefixes)
    }
