"""The mutation lane's envelope-writing verbs: plan, run (one shard), merge, check.

- ``plan`` writes ``<output>/plan.json`` (``data.kind = "plan"``) next to
  mutmut's files: every module's mutants generated and its tests mapped once,
  each mutant's key and estimated cost, each module's shard count.
- ``run`` writes a *shard* envelope (``data.kind = "shard"``) per invocation
  under ``--out`` (default ``envelopes/mutation/shards/``): every mutant's
  key, status, duration, diff, and the module's provenance. With ``--plan``
  it runs only its own mutants from the plan; without, it generates and maps
  on its own and picks its mutants by hash.
- ``merge`` reads shard envelopes and writes the *merged* envelope
  ``envelopes/mutation/merged.json``: module scores, or the problems that
  refused them.
- ``check`` ratchets the merged scores against ``baselines/mutation.json`` and
  writes the lane's envelope ``envelopes/mutation.json`` (the one
  ``lanes report`` shows), the Stryker report and the proposed baseline.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from lanes._atomic import write_atomic
from lanes.config import fingerprint
from lanes.envelope import read_envelope
from lanes.errors import UsageError
from lanes.mutation.baseline import read_baseline
from lanes.mutation.merge import (
    MergedModule,
    collect_envelope_paths,
    merge_shards,
    outside_registry,
    registry_paths,
)
from lanes.mutation.plan import select_modules
from lanes.mutation.planfile import PLAN_FILE, PlanError, read_plan, tree_differences
from lanes.mutation.planned import plan_module, run_planned_shard
from lanes.mutation.provenance import mutmut_version
from lanes.mutation.ratchet import ratchet
from lanes.mutation.runner import find_mutmut, run_shard
from lanes.mutation.shard import WHOLE, Shard, parse_shard
from lanes.mutation.stryker import html_page, stryker_report

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping

    from lanes.config import Config
    from lanes.envelope import LaneRun, Seed
    from lanes.mutation.settings import MutationModule
    from lanes.payloads.mutation import (
        MutationCheck,
        MutationCheckedModule,
        MutationMerged,
        MutationPlan,
        MutationShardRun,
    )

__all__ = ["CheckLane", "MergeLane", "PlanLane", "RunLane", "merged_path", "report_dir"]


def report_dir(config: Config) -> Path:
    return config.root / config.envelope_dir / "mutation"


def merged_path(config: Config) -> Path:
    return report_dir(config) / "merged.json"


def _registry_hash(config: Config) -> str:
    return config.section_hash("mutation")


# --------------------------------------------------------------------------- run


@dataclass(frozen=True)
class RunOptions:
    modules: list[MutationModule]
    shard: Shard
    out: Path
    max_children: int | None
    plan_dir: Path | None = None
    plan_id: str = ""
    plan: MutationPlan | None = None

    @property
    def envelope(self) -> Path:
        names = "+".join(m.name for m in self.modules) if len(self.modules) <= 3 else "all"
        return self.out / f"shard-{names}-{self.shard.index}of{self.shard.count}.json"


def _outputs(config: Config, *dirs: Path | None) -> list[Path]:
    """The lane's own outputs, never part of the tree mutmut copies (nor of a plan's digest)."""
    return [config.root / config.envelope_dir, *(d for d in dirs if d is not None)]


def _absolute(path: Path) -> Path:
    return path if path.is_absolute() else Path.cwd() / path


class RunLane:
    name: ClassVar[str] = "mutation"

    def resolve(self, ns: argparse.Namespace, config: Config) -> RunOptions:
        modules = select_modules(config.mutation, ns.module or ())
        out = Path(ns.out) if ns.out else report_dir(config) / "shards"
        shard = parse_shard(ns.shard) if ns.shard else WHOLE
        plan_dir = _absolute(Path(ns.plan)) if ns.plan else None
        plan_id, plan = "", None
        if plan_dir is not None:
            # A plan that cannot serve this shard is a usage error: nothing ran.
            plan_id, plan = read_plan(plan_dir)
            for module in modules:
                entry = plan["modules"].get(module.name)
                if entry is None:
                    msg = f"module {module.name!r} is not in the plan {str(plan_dir)!r} (it has {', '.join(sorted(plan['modules'])) or 'no module'})"
                    raise UsageError(
                        msg,
                        hint=f"plan it: `lanes mutation plan --module {module.name} --output DIR`",
                    )
                if entry["shards"] != shard.count:
                    why = f" ({entry['note']})" if entry["note"] else ""
                    msg = f"--shard {shard} does not fit the plan: module {module.name!r} runs in {entry['shards']} shard(s){why}"
                    raise UsageError(
                        msg,
                        hint=f"pass --shard I/{entry['shards']}, as `lanes mutation matrix --plan DIR` lists them",
                    )
        return RunOptions(
            modules=modules,
            shard=shard,
            out=_absolute(out),
            max_children=ns.max_children,
            plan_dir=plan_dir,
            plan_id=plan_id,
            plan=plan,
        )

    def config_hash(self, options: RunOptions, config: Config) -> str:
        return _registry_hash(config)

    def seed(self, options: RunOptions) -> Seed:
        return None

    def run(self, options: RunOptions, config: Config, run: LaneRun) -> None:
        payload: MutationShardRun = {"kind": "shard", "shard": str(options.shard), "shards": []}
        exclude = _outputs(config, options.out, options.plan_dir)
        try:
            version = mutmut_version()
            if version is not None:
                run.tools["mutmut"] = version
            find_mutmut()  # mutmut missing: an error with the install command, in the envelope
            for module in options.modules:
                if options.plan is not None and options.plan_dir is not None:
                    result = run_planned_shard(
                        config.root,
                        module,
                        options.shard,
                        plan_dir=options.plan_dir,
                        plan_id=options.plan_id,
                        plan=options.plan,
                        timeout_multiplier=config.mutation.timeout_multiplier,
                        max_children=options.max_children,
                        exclude=exclude,
                    )
                else:
                    result = run_shard(
                        config.root,
                        module,
                        options.shard,
                        timeout_multiplier=config.mutation.timeout_multiplier,
                        shard_threshold=config.mutation.shard_threshold,
                        max_children=options.max_children,
                        exclude=exclude,
                    )
                payload["shards"].append(result.to_dict())
        finally:
            # A crashed shard's envelope still says which modules it finished
            # (the merge refuses it for its stage, never for its shape).
            run.publish(payload)
        run.verdict(passed=True)


# --------------------------------------------------------------------------- plan


@dataclass(frozen=True)
class PlanOptions:
    modules: list[MutationModule]
    output: Path
    max_children: int | None

    @property
    def envelope(self) -> Path:
        return self.output / PLAN_FILE


class PlanLane:
    """``lanes mutation plan``: generate and map every module once; the shards run from it."""

    name: ClassVar[str] = "mutation"

    def resolve(self, ns: argparse.Namespace, config: Config) -> PlanOptions:
        return PlanOptions(
            modules=select_modules(config.mutation, ns.module or ()),
            output=_absolute(Path(ns.output)),
            max_children=ns.max_children,
        )

    def config_hash(self, options: PlanOptions, config: Config) -> str:
        return _registry_hash(config)

    def seed(self, options: PlanOptions) -> Seed:
        return None

    def run(self, options: PlanOptions, config: Config, run: LaneRun) -> None:
        threshold = config.mutation.shard_threshold
        payload: MutationPlan = {
            "kind": "plan",
            "shard_threshold": threshold,
            "tree": {},
            "modules": {},
        }
        exclude = _outputs(config, options.output)
        try:
            version = mutmut_version()
            if version is not None:
                run.tools["mutmut"] = version
            find_mutmut()
            for module in options.modules:
                entry, tree = plan_module(
                    config.root,
                    module,
                    options.output,
                    timeout_multiplier=config.mutation.timeout_multiplier,
                    shard_threshold=threshold,
                    max_children=options.max_children,
                    exclude=exclude,
                )
                if payload["modules"] and tree != payload["tree"]:
                    msg = f"the project changed while it was planned (module {module.name!r}): {tree_differences(payload['tree'], tree)}"
                    raise PlanError(msg, hint="plan again on a tree nobody edits meanwhile")
                payload["tree"] = tree
                payload["modules"][module.name] = entry
        finally:
            # A plan that stopped half-way is written too, and refused by every shard.
            run.publish(payload)
        run.verdict(passed=True)


# --------------------------------------------------------------------------- merge


@dataclass(frozen=True)
class MergeOptions:
    inputs: list[Path]
    expect_shards: int


class MergeLane:
    name: ClassVar[str] = "mutation"

    def resolve(self, ns: argparse.Namespace, config: Config) -> MergeOptions:
        inputs = [Path(p) for p in ns.inputs] or [report_dir(config) / "shards"]
        return MergeOptions(inputs=inputs, expect_shards=ns.expect_shards)

    def config_hash(self, options: MergeOptions, config: Config) -> str:
        return _registry_hash(config)

    def seed(self, options: MergeOptions) -> Seed:
        return None

    def run(self, options: MergeOptions, config: Config, run: LaneRun) -> None:
        merged = merge_shards(
            collect_envelope_paths(options.inputs),
            expect_shards=options.expect_shards,
            registry=registry_paths(config),
        )
        payload: MutationMerged = {
            "kind": "merged",
            "expect_shards": options.expect_shards,
            "shard_files": merged.shard_files,
            "shard_group_id": merged.group_id,
            "problems": merged.problems,
            "modules": {name: m.to_dict() for name, m in merged.modules.items()},
        }
        run.publish(payload)
        run.verdict(passed=not merged.problems)


# --------------------------------------------------------------------------- check


@dataclass(frozen=True)
class CheckOptions:
    merged: Path
    baseline: Path


class CheckLane:
    name: ClassVar[str] = "mutation"

    def resolve(self, ns: argparse.Namespace, config: Config) -> CheckOptions:
        merged = Path(ns.merged) if ns.merged else merged_path(config)
        if not merged.is_file():
            msg = f"no merged mutation envelope at {merged}"
            raise UsageError(
                msg,
                hint="run `lanes mutation run` and `lanes mutation merge --expect-shards N` first",
            )
        baseline = Path(ns.baseline) if ns.baseline else config.root / config.mutation.baseline
        return CheckOptions(merged=merged, baseline=baseline)

    def config_hash(self, options: CheckOptions, config: Config) -> str:
        return _registry_hash(config)

    def seed(self, options: CheckOptions) -> Seed:
        return None

    def run(self, options: CheckOptions, config: Config, run: LaneRun) -> None:
        envelope = read_envelope(options.merged)
        data = envelope.get("data", {})
        if envelope.get("lane") != "mutation" or data.get("kind") != "merged":
            msg = f"{options.merged} is not a merged mutation envelope (kind {data.get('kind')!r})"
            raise UsageError(msg, hint="pass --merged the file `lanes mutation merge` wrote")
        payload: MutationCheck = {
            "kind": "check",
            "merged_from": str(options.merged),
            "problems": [str(problem) for problem in data.get("problems", [])],
            "modules": {},
        }
        try:
            if envelope.get("result") != "pass" or payload["problems"]:
                # A failed merge has no scores, and a check never invents one.
                payload["problems"].insert(0, "the merge failed: no module is scored")
                run.verdict(passed=False)
                return
            passed = _check(options, config, data, payload)
        finally:
            # A check that crashes half-way still shows what it had judged.
            run.publish(payload)
        run.verdict(passed=passed)


def _check(
    options: CheckOptions, config: Config, merged: dict[str, Any], payload: MutationCheck
) -> bool:
    """Ratchet the merged modules into ``payload``, write the reports; whether the lane passes."""
    modules = {name: MergedModule.from_dict(name, raw) for name, raw in merged["modules"].items()}
    # The merged file is an artifact too: its paths are confined again before
    # the report reads a single source file.
    foreign = outside_registry(modules, registry_paths(config))
    if foreign:
        payload["problems"].extend(foreign)
        return False
    baseline = read_baseline(options.baseline)
    required = config.mutation.required_stable_runs
    verdicts, proposal = ratchet(
        modules,
        baseline,
        required_stable_runs=required,
        sweep=str(merged.get("shard_group_id", "")),
    )
    for verdict in verdicts:
        # The scores without the mutants: the merged envelope and the Stryker
        # report hold them.
        checked: MutationCheckedModule = {
            **modules[verdict.name].scores(),
            # The ratchet's score, which leaves the baseline's equivalents out.
            "score": verdict.score,
            "verdict": verdict.verdict,
            "gating": verdict.gating,
            "fails": verdict.fails,
            "baseline_score": verdict.baseline_score,
            "stable_runs": verdict.stable_runs,
            "required_stable_runs": required,
            "drift": verdict.drift,
            "regressions": verdict.regressions,
            "new_survivors": verdict.new_survivors,
            "equivalent_survivors": verdict.equivalent_survivors,
        }
        payload["modules"][verdict.name] = checked
    proposed = proposal.to_dict()
    payload["proposed_baseline"] = proposed
    payload["baseline_path"] = _from_root(config, options.baseline)
    directory = report_dir(config)
    directory.mkdir(parents=True, exist_ok=True)
    equivalents = {name: entry.equivalent for name, entry in baseline.modules.items()}
    report = stryker_report(config.root, modules, equivalents)
    _write_json(directory / "mutation.json", report)
    (directory / "mutation.html").write_text(html_page(report), encoding="utf-8")
    _write_json(directory / "proposed-baseline.json", proposed)
    payload["report"] = _from_root(config, directory / "mutation.json")
    payload["proposal_digest"] = fingerprint(proposed)
    return not any(v.fails for v in verdicts)


def _from_root(config: Config, path: Path) -> str:
    """``path`` from the project's root: the envelope travels, the machine's paths must not."""
    try:
        return path.resolve().relative_to(config.root.resolve()).as_posix()
    except ValueError:
        return str(path)  # outside the project: the user named it so


def _write_json(path: Path, document: Mapping[str, object]) -> None:
    write_atomic(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
