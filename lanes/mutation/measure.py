"""What the lane costs over mutmut itself, and what sharding buys: ``python -m lanes.mutation.measure``.

Too slow for ``nox -s bench`` (every sample is whole mutmut runs), so the
figures go in docs/explanation/measurements.md with this command. On the
self-check's planted project (ten mutants), each sample is timed twice: wall
clock, and CPU seconds (user + system of this process and every child mutmut
forked) — on a shared machine the CPU figure is the one to trust.

- overhead: the lane's unsharded run (copy, settings, ``mutmut run``, reading
  every result) against a bare ``mutmut run`` with the same settings in a
  prepared copy, in pairs whose order alternates: the ratio of the medians,
  and the spread of the per-pair ratios;
- sharding: each of N shards run alone (as N CI runners would run them)
  against one unsharded run: the speed-up N runners get
  (one run / the slowest shard), the CPU all shards spend together against
  one run, and the generation + test-mapping call every shard repeats.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanes.mutation.runner import find_mutmut, run_shard
from lanes.mutation.selfcheck import plant
from lanes.mutation.shard import Shard
from lanes.mutation.workcopy import copy_tree, mutmut_settings, write_mutmut_settings

if TYPE_CHECKING:
    from lanes.mutation.settings import MutationModule

__all__ = ["main"]


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class _Sample:
    """Wall and CPU seconds of one run (and its phases, for a lane run)."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0
        self.phases: dict[str, int] = {}

    def __enter__(self) -> _Sample:
        self._wall, self._cpu = time.perf_counter(), _cpu()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self._wall
        self.cpu = _cpu() - self._cpu


def _bare(root: Path, executable: str, settings: dict[str, Any]) -> _Sample:
    with tempfile.TemporaryDirectory(prefix="lanes-measure-bare-") as tmp:
        copy = Path(tmp)
        copy_tree(root, copy)
        write_mutmut_settings(copy, settings)
        with _Sample() as sample:
            subprocess.run([executable, "run"], cwd=copy, capture_output=True, check=True)
    return sample


def _lane(root: Path, module: MutationModule, shard: Shard) -> _Sample:
    with _Sample() as sample:
        result = run_shard(root, module, shard, timeout_multiplier=5.0)
    sample.phases = result.phases_ms
    return sample


def _overhead(bare: list[_Sample], lane: list[_Sample], what: str) -> dict[str, Any]:
    mine = [getattr(s, what) for s in lane]
    theirs = [getattr(s, what) for s in bare]
    ratios = sorted(a / b for a, b in zip(mine, theirs, strict=True))
    return {
        "bare_median_s": round(statistics.median(theirs), 3),
        "lane_median_s": round(statistics.median(mine), 3),
        "ratio_of_medians": round(statistics.median(mine) / statistics.median(theirs), 3),
        "pair_ratios_min_max": [round(ratios[0], 3), round(ratios[-1], 3)],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lanes.mutation.measure")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--shards", type=int, default=2)
    ns = parser.parse_args(argv)
    executable, version = find_mutmut()
    with tempfile.TemporaryDirectory(prefix="lanes-measure-") as tmp:
        root = Path(tmp) / "project"
        module = plant(root).mutation.modules["planted"]
        # The same settings on both sides: the comparison is the lane's own work.
        settings = mutmut_settings(
            root,
            module,
            timeout_multiplier=5.0,
            xdist=importlib.util.find_spec("xdist") is not None,
        )
        bare: list[_Sample] = []
        lane: list[_Sample] = []
        for index in range(ns.pairs):
            # Alternate the order: a warm page cache or a neighbour's burst
            # must not always favour the same side.
            if index % 2:
                lane.append(_lane(root, module, Shard(1, 1)))
                bare.append(_bare(root, executable, settings))
            else:
                bare.append(_bare(root, executable, settings))
                lane.append(_lane(root, module, Shard(1, 1)))
        whole = _lane(root, module, Shard(1, 1))
        shards = [_lane(root, module, Shard(i, ns.shards)) for i in range(1, ns.shards + 1)]
    report = {
        "mutmut": version,
        "pairs": ns.pairs,
        "overhead_cpu": _overhead(bare, lane, "cpu"),
        "overhead_wall": _overhead(bare, lane, "wall"),
        "shards": ns.shards,
        "one_run_wall_s": round(whole.wall, 3),
        "slowest_shard_wall_s": round(max(s.wall for s in shards), 3),
        "speedup_on_n_runners": round(whole.wall / max(s.wall for s in shards), 3),
        "cpu_all_shards_over_one_run": round(sum(s.cpu for s in shards) / whole.cpu, 3),
        "generate_call_ms_per_shard": [s.phases.get("generate", 0) for s in shards],
        "mutate_call_ms_per_shard": [s.phases.get("mutate", 0) for s in shards],
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
