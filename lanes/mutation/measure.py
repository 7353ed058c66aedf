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

``--project DIR --module NAME`` measures a plan on a real module instead (the
module as DIR's ``[tool.lanes.mutation]`` registers it): per round, one
unsharded run against a plan and its N shards each run alone, the order
alternating; the CPU of plan + shards over the unsharded run's, each
shard's wall clock over the unsharded run's, and whether the merged
statuses equal the unsharded run's (they must).
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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanes.config import load_config
from lanes.mutation.planned import plan_module, run_planned_shard
from lanes.mutation.runner import find_mutmut, run_shard
from lanes.mutation.selfcheck import plant
from lanes.mutation.shard import Shard
from lanes.mutation.workcopy import copy_tree, mutmut_settings, write_mutmut_settings

if TYPE_CHECKING:
    from lanes.mutation.settings import MutationModule
    from lanes.payloads.mutation import MutationPlan

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


def _ratio(a: float, b: float) -> float:
    return round(a / b, 3)


@dataclass(frozen=True)
class _Subject:
    """A real project's registry module, measured with its own settings."""

    project: Path
    module: MutationModule
    timeout_multiplier: float
    outputs: list[Path]  # the lane's outputs: never part of the copied tree
    children: int


def _whole(subject: _Subject) -> tuple[_Sample, dict[str, str]]:
    with _Sample() as sample:
        result = run_shard(
            subject.project,
            subject.module,
            Shard(1, 1),
            timeout_multiplier=subject.timeout_multiplier,
            max_children=subject.children,
            exclude=subject.outputs,
        )
    return sample, {m.key: m.status.value for m in result.mutants}


def _plan_and_shards(
    subject: _Subject, shards: int
) -> tuple[_Sample, list[_Sample], dict[str, str], list[int]]:
    """The plan and each shard timed alone; the statuses all shards found, each shard's size."""
    with tempfile.TemporaryDirectory(prefix="lanes-measure-plan-") as tmp:
        plan_dir = Path(tmp)
        with _Sample() as plan_sample:
            entry, tree = plan_module(
                subject.project,
                subject.module,
                plan_dir,
                timeout_multiplier=subject.timeout_multiplier,
                shard_threshold=1,
                max_children=subject.children,
                exclude=subject.outputs,
            )
        plan: MutationPlan = {
            "kind": "plan",
            "shard_threshold": 1,
            "tree": tree,
            "modules": {subject.module.name: entry},
        }
        samples: list[_Sample] = []
        statuses: dict[str, str] = {}
        sizes: list[int] = []
        for number in range(1, shards + 1):
            with _Sample() as sample:
                result = run_planned_shard(
                    subject.project,
                    subject.module,
                    Shard(number, shards),
                    plan_dir=plan_dir,
                    plan_id="measure",
                    plan=plan,
                    timeout_multiplier=subject.timeout_multiplier,
                    max_children=subject.children,
                    exclude=[*subject.outputs, plan_dir],
                )
            sample.phases = {**result.phases_ms, "estimated": result.sharding["estimated_ms"]}
            samples.append(sample)
            sizes.append(len(result.mutants))
            statuses.update({m.key: m.status.value for m in result.mutants})
    return plan_sample, samples, statuses, sizes


def _planned(project: Path, name: str, shards: int, rounds: int, children: int) -> dict[str, Any]:
    """Rounds of (one unsharded run, a plan and its shards), alternating which goes first."""
    config = load_config(project / "pyproject.toml")
    subject = _Subject(
        project=project,
        module=config.mutation.modules[name],
        timeout_multiplier=config.mutation.timeout_multiplier,
        outputs=[project / config.envelope_dir],
        children=children,
    )
    found: list[dict[str, Any]] = []
    for index in range(rounds):
        if index % 2:
            plan, parts, split, sizes = _plan_and_shards(subject, shards)
            one, statuses = _whole(subject)
        else:
            one, statuses = _whole(subject)
            plan, parts, split, sizes = _plan_and_shards(subject, shards)
        slowest = max(s.wall for s in parts)
        found.append({
            "mutants": len(statuses),
            "shard_sizes": sizes,
            "same_statuses": split == statuses,
            # Any mutant the two disagree on, with (unsharded, sharded) statuses.
            "differences": {
                key: [statuses.get(key), split.get(key)]
                for key in sorted(statuses.keys() | split.keys())
                if statuses.get(key) != split.get(key)
            },
            "survived": sum(1 for v in statuses.values() if v == "survived"),
            "whole_wall_s": round(one.wall, 1),
            "whole_cpu_s": round(one.cpu, 1),
            "plan_wall_s": round(plan.wall, 1),
            "plan_cpu_s": round(plan.cpu, 1),
            "shard_wall_s": [round(s.wall, 1) for s in parts],
            "shard_cpu_s": [round(s.cpu, 1) for s in parts],
            "shard_estimated_and_mutate_ms": [
                (s.phases["estimated"], s.phases.get("mutate", 0)) for s in parts
            ],
            "cpu_plan_and_shards_over_whole": _ratio(plan.cpu + sum(s.cpu for s in parts), one.cpu),
            "slowest_shard_wall_over_whole": _ratio(slowest, one.wall),
            "slowest_shard_cpu_over_whole": _ratio(max(s.cpu for s in parts), one.cpu),
            "plan_plus_slowest_shard_wall_over_whole": _ratio(plan.wall + slowest, one.wall),
        })  # fmt: skip
        print(json.dumps(found[-1]), flush=True)  # a long measurement shows each round
    return {"module": name, "shards": shards, "max_children": children, "rounds": found}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lanes.mutation.measure")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--project", type=Path, help="measure a plan on this project's module")
    parser.add_argument("--module", help="the registry module of --project")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-children", type=int, default=1)
    ns = parser.parse_args(argv)
    if ns.project is not None:
        report = _planned(ns.project, ns.module, ns.shards, ns.rounds, ns.max_children)
        print(json.dumps(report, indent=2))
        return 0
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
