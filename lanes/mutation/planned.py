"""The expensive part once per sweep: a plan of every module's mutants, and shards that run from it.

``plan`` runs mutmut's generation and test mapping once per module (the
first of the two calls a hash shard makes, :mod:`lanes.mutation.runner`),
keeps mutmut's files (:mod:`lanes.mutation.planfile`), and records each
mutant's key and estimated cost and each module's shard count
(:mod:`lanes.mutation.balance`). ``run_planned_shard`` copies the tree,
checks it is the tree the plan was made on (every file's digest) and that the
module's provenance (mutmut, Python, registry entry, mutmut settings, source)
is the plan's, puts mutmut's files back, and runs only its own mutants: no
generation, no mapping.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from lanes.mutation.balance import estimate_costs, partition, planned_shards
from lanes.mutation.planfile import (
    REPLAN,
    STATS,
    PlanError,
    restore_files,
    save_files,
    tree_differences,
)
from lanes.mutation.provenance import Provenance, drift
from lanes.mutation.runner import describe_all, generate, mutate, read_shard, work_copy

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from lanes.mutation.runner import ShardResult
    from lanes.mutation.settings import MutationModule
    from lanes.mutation.shard import Shard
    from lanes.payloads.mutation import (
        MutationPlan,
        MutationPlanModule,
        MutationPlanMutant,
        MutationSharding,
    )

__all__ = ["plan_module", "run_planned_shard", "shard_members"]


def plan_module(
    root: Path,
    module: MutationModule,
    plan_dir: Path,
    *,
    timeout_multiplier: float,
    shard_threshold: int,
    max_children: int | None = None,
    exclude: Iterable[Path] = (),
) -> tuple[MutationPlanModule, dict[str, str]]:
    """Generate and map ``module`` once; its plan entry and the tree it was made on."""
    with work_copy(
        root,
        module,
        timeout_multiplier=timeout_multiplier,
        max_children=max_children,
        exclude=exclude,
    ) as copy:
        sources = generate(copy)
        files = save_files(copy.root, plan_dir, module)
        stats = json.loads((copy.root / "mutants" / STATS).read_text(encoding="utf-8"))
        costs = estimate_costs(stats, (source.name for source in sources))
        shards, note = planned_shards(len(sources), module.shards, shard_threshold)
        mutants: list[MutationPlanMutant] = [
            {"name": source.name, "key": source.key, "cost_ms": costs[source.name]}
            for source in sorted(sources, key=lambda source: source.key)
        ]
        entry: MutationPlanModule = {
            "provenance": copy.provenance.to_dict(),
            "registry_shards": module.shards,
            "shards": shards,
            "note": note,
            "generated": len(sources),
            "phases_ms": dict(copy.phases_ms),
            "files": files,
            "mutants": mutants,
        }
        return entry, copy.tree


def shard_members(entry: MutationPlanModule, shard: Shard) -> tuple[list[str], int]:
    """(the keys of ``shard``, its estimated milliseconds), computed from the plan alone."""
    costs = [(mutant["key"], mutant["cost_ms"]) for mutant in entry["mutants"]]
    members = partition(costs, shard.count)[shard.index - 1]
    by_key = dict(costs)
    return members, sum(by_key[key] for key in members)


def run_planned_shard(
    root: Path,
    module: MutationModule,
    shard: Shard,
    *,
    plan_dir: Path,
    plan_id: str,
    plan: MutationPlan,
    timeout_multiplier: float,
    max_children: int | None = None,
    exclude: Iterable[Path] = (),
) -> ShardResult:
    """Run ``shard`` of ``module`` from the plan: only its mutants, nothing generated or mapped."""
    entry = plan["modules"][module.name]
    with work_copy(
        root,
        module,
        timeout_multiplier=timeout_multiplier,
        max_children=max_children,
        exclude=exclude,
    ) as copy:
        differences = tree_differences(plan["tree"], copy.tree)
        if differences:
            msg = f"the project is not the tree the plan was made on: {differences}"
            raise PlanError(msg, hint=REPLAN)
        changed = drift(Provenance.from_dict(entry["provenance"]), copy.provenance)
        if changed:
            shown = ", ".join(
                f"{c['field']} {c['baseline']!r} -> {c['current']!r}" for c in changed
            )
            msg = f"module {module.name!r} was planned under another configuration: {shown}"
            raise PlanError(msg, hint=REPLAN)
        clock = time.monotonic()
        restore_files(plan_dir, module, entry["files"], copy.root)
        copy.phases_ms["restore"] = round((time.monotonic() - clock) * 1000)
        sources = describe_all(copy.root, module)
        described = {source.name: source.key for source in sources}
        if described != {mutant["name"]: mutant["key"] for mutant in entry["mutants"]}:
            msg = f"mutmut's files of module {module.name!r} in the plan do not hold the plan's mutants"
            raise PlanError(msg, hint=REPLAN)
        members, estimated = shard_members(entry, shard)
        keys = set(members)
        chosen = [source.name for source in sources if source.key in keys]
        sharding: MutationSharding = {
            "strategy": "cost" if shard.count > 1 else "whole",
            "plan": plan_id,
            "plan_ms": sum(entry["phases_ms"].values()),
            "estimated_ms": estimated,
            "note": entry["note"],
        }
        # One shard runs every mutant: mutmut's plain run (no names to filter by).
        mutate(copy, chosen if shard.count > 1 else None)
        return read_shard(copy, shard, sources, chosen if shard.count > 1 else None, sharding)
