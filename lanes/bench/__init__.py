"""The ``bench`` lane: named performance benchmarks, reported as ratios.

Benchmarks register themselves in :mod:`lanes.bench.registry`; ``lanes bench``
runs them and writes one ``bench`` envelope. Timings are ratios of paired runs
in one process, never absolute numbers compared across machines.
"""

from __future__ import annotations

from lanes.bench.registry import BenchContext, BenchResult, benchmark, registered

__all__ = ["BenchContext", "BenchResult", "benchmark", "registered"]
