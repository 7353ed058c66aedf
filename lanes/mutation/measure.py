"""What the lane costs over mutmut itself, and what sharding buys: ``python -m lanes.mutation.measure``.

Too slow for ``nox -s bench`` (every sample is whole mutmut runs), so the
figures go in the README's "The mutation lane" with this command. On the
self-check's planted project (ten mutants), in pairs whose order alternates:

- overhead: the lane's unsharded run (copy, settings, ``mutmut run``, reading
  every result) against a bare ``mutmut run`` in a prepared copy — the ratio
  of the medians, and the spread of the per-pair ratios;
- sharding: N shards at once (N processes) against one shard, wall clock,
  and the generation + test-mapping call every shard repeats.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanes.mutation.runner import find_mutmut, run_shard
from lanes.mutation.selfcheck import plant
from lanes.mutation.shard import Shard
from lanes.mutation.workcopy import copy_tree, mutmut_settings, write_mutmut_settings

if TYPE_CHECKING:
    from lanes.mutation.settings import MutationModule

__all__ = ["main"]


def _bare(root: Path, executable: str, settings: dict[str, Any]) -> float:
    with tempfile.TemporaryDirectory(prefix="lanes-measure-bare-") as tmp:
        copy = Path(tmp)
        copy_tree(root, copy)
        write_mutmut_settings(copy, settings)
        clock = time.perf_counter()
        subprocess.run([executable, "run"], cwd=copy, capture_output=True, check=True)
        return time.perf_counter() - clock


def _lane(root: Path, module: MutationModule, shard: Shard) -> tuple[float, dict[str, int]]:
    clock = time.perf_counter()
    result = run_shard(root, module, shard, timeout_multiplier=5.0)
    return time.perf_counter() - clock, result.phases_ms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lanes.mutation.measure")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--shards", type=int, default=2)
    ns = parser.parse_args(argv)
    executable, version = find_mutmut()
    with tempfile.TemporaryDirectory(prefix="lanes-measure-") as tmp:
        root = Path(tmp) / "project"
        config = plant(root)
        module = config.mutation.modules["planted"]
        settings = mutmut_settings(root, module, timeout_multiplier=5.0, xdist=False)
        bare: list[float] = []
        lane: list[float] = []
        for index in range(ns.pairs):
            # Alternate the order: a warm page cache or a neighbour's burst
            # must not always favour the same side.
            if index % 2:
                lane.append(_lane(root, module, Shard(1, 1))[0])
                bare.append(_bare(root, executable, settings))
            else:
                bare.append(_bare(root, executable, settings))
                lane.append(_lane(root, module, Shard(1, 1))[0])
        ratios = sorted(a / b for a, b in zip(lane, bare, strict=True))
        one_shard, _ = _lane(root, module, Shard(1, 1))
        with ThreadPoolExecutor(max_workers=ns.shards) as pool:
            clock = time.perf_counter()
            sharded = list(
                pool.map(
                    lambda i: _lane(root, module, Shard(i, ns.shards)), range(1, ns.shards + 1)
                )
            )
            parallel = time.perf_counter() - clock
        generation = [phases.get("generate", 0) for _, phases in sharded]
    report = {
        "mutmut": version,
        "pairs": ns.pairs,
        "bare_median_s": round(statistics.median(bare), 3),
        "lane_median_s": round(statistics.median(lane), 3),
        "overhead_ratio_of_medians": round(statistics.median(lane) / statistics.median(bare), 3),
        "pair_ratio_min_max": [round(ratios[0], 3), round(ratios[-1], 3)],
        "one_shard_s": round(one_shard, 3),
        "shards": ns.shards,
        "shards_in_parallel_s": round(parallel, 3),
        "speedup": round(one_shard / parallel, 3),
        "generation_per_shard_ms": generation,
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
