"""What each ``lanes mutation`` verb does once argparse has parsed it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanes.config import load_config
from lanes.envelope import read_envelope
from lanes.errors import UsageError
from lanes.exitcodes import ExitCode
from lanes.lane import drive
from lanes.mutation.baseline import parse_baseline, write_baseline
from lanes.mutation.lane import CheckLane, MergeLane, PlanLane, RunLane
from lanes.mutation.plan import affected_modules, changed_files, matrix, select_modules
from lanes.mutation.planfile import read_plan
from lanes.mutation.planned import shard_members
from lanes.mutation.ratchet import status_counts_line
from lanes.mutation.shard import Shard

if TYPE_CHECKING:
    import argparse

__all__ = ["affected", "baseline", "check", "matrix_command", "merge", "plan", "run"]

_NEW_SURVIVORS_SHOWN = 10


def run(ns: argparse.Namespace) -> int:
    config = load_config(ns.config)
    lane = RunLane()
    options = lane.resolve(ns, config)
    options.out.mkdir(parents=True, exist_ok=True)
    try:
        # mutmut failing or missing is a LanesError in an open envelope: exit 3,
        # error/hint, no traceback (lanes/exitcodes.py).
        return drive(lane, ns, config=config, path=options.envelope)
    finally:
        print(f"mutation: shard envelope {options.envelope}", file=sys.stderr)
        if options.envelope.is_file():
            for shard in read_envelope(options.envelope)["data"].get("shards", []):
                if shard["sharding"]["note"]:
                    print(
                        f"mutation: {shard['module']}: {shard['sharding']['note']}", file=sys.stderr
                    )


def plan(ns: argparse.Namespace) -> int:
    """Generate and map every module once; print the matrix the shards of this plan make."""
    config = load_config(ns.config)
    if ns.github_output and not os.environ.get("GITHUB_OUTPUT"):
        # Said before ten minutes of mutmut, not after.
        msg = "--github-output needs the GITHUB_OUTPUT environment variable (set by GitHub Actions)"
        raise UsageError(msg, hint="drop --github-output outside GitHub Actions")
    lane = PlanLane()
    options = lane.resolve(ns, config)
    options.output.mkdir(parents=True, exist_ok=True)
    code = drive(lane, ns, config=config, path=options.envelope)
    if code != ExitCode.OK:
        return code
    _, document = read_plan(options.output)
    for name, entry in document["modules"].items():
        estimates = [
            shard_members(entry, Shard(index, entry["shards"]))[1]
            for index in range(1, entry["shards"] + 1)
        ]
        shown = ", ".join(f"{ms / 1000:.1f}" for ms in estimates)
        print(
            f"plan {name}: {entry['generated']} mutants, {entry['shards']} shard(s), "
            f"estimated s per shard: {shown}"
        )
        if entry["note"]:
            print(f"  {entry['note']}")
    planned = {name: entry["shards"] for name, entry in document["modules"].items()}
    modules = [config.mutation.modules[name] for name in planned]
    _print_matrix(matrix(modules, planned=planned), count=False, github_output=ns.github_output)
    print(f"mutation: plan {options.envelope}", file=sys.stderr)
    return code


def merge(ns: argparse.Namespace) -> int:
    config = load_config(ns.config)
    from lanes.mutation.lane import merged_path  # noqa: PLC0415

    target = merged_path(config)
    target.parent.mkdir(parents=True, exist_ok=True)
    code = drive(MergeLane(), ns, config=config, path=target)
    document = read_envelope(target)
    for problem in document["data"]["problems"]:
        print(f"merge: {problem}", file=sys.stderr)
    for name, module in document["data"]["modules"].items():
        print(
            f"merged {name}: shards {', '.join(module['shards'])}, score {module['score']}, "
            f"{status_counts_line(module['counts'])}"
        )
    return code


def _print_check(data: dict[str, Any]) -> None:
    for problem in data.get("problems", []):
        print(f"check: {problem}", file=sys.stderr)
    for name, module in data["modules"].items():
        if module["verdict"] == "new":
            gate = "no baseline entry yet"
        elif module["verdict"] == "drift":
            gate = "not comparable: graduation starts again"
        elif module["fails"]:
            gate = "fails the lane"
        elif module["gating"]:
            gate = "gating"
        else:
            runs = f"{module['stable_runs']}/{module['required_stable_runs']}"
            gate = f"score not gating yet ({runs} stable runs)"
        print(
            f"{name}: {module['verdict']}, score {module['score']} "
            f"(baseline {module['baseline_score']}), {gate}"
        )
        for change in module["drift"]:
            print(f"  drift: {change['field']} {change['baseline']} -> {change['current']}")
        fresh = module["new_survivors"]  # disjoint from the regressions (the ratchet's rule)
        for title, mutants in (
            ("regression: killed in the baseline, survives now", module["regressions"]),
            # A first sweep's survivors are all new: the terminal shows the
            # first few, the report (mutation.html) every one in its file.
            ("new survivor", fresh[:_NEW_SURVIVORS_SHOWN]),
        ):
            for mutant in mutants:
                tests = ", ".join(mutant["tests"][:5]) or "none"
                more = mutant["tests_total"] - min(len(mutant["tests"]), 5)
                tests += f" (+{more} more)" if more > 0 else ""
                print(f"  {title}: {mutant['path']}:{mutant['line']} in {mutant['function']}")
                print(f"    key {mutant['key']}; tests that ran: {tests}")
                print("    " + mutant["diff"].replace("\n", "\n    "))
        if len(fresh) > _NEW_SURVIVORS_SHOWN:
            print(
                f"  ... and {len(fresh) - _NEW_SURVIVORS_SHOWN} more new survivors: "
                "envelopes/mutation/mutation.html shows every one in its file"
            )


def check(ns: argparse.Namespace) -> int:
    config = load_config(ns.config)
    code = drive(CheckLane(), ns, config=config)
    # The envelope this check wrote, not the default one (an older run's).
    written = ns.envelope if ns.envelope is not None else config.envelope_path("mutation")
    _print_check(read_envelope(written)["data"])
    return code


def baseline(ns: argparse.Namespace) -> int:
    """Write the proposal of the last check into the baseline file (a person commits it)."""
    config = load_config(ns.config)
    source = Path(ns.envelope) if ns.envelope else config.envelope_path("mutation")
    if not source.is_file():
        msg = f"no mutation envelope at {source}"
        raise UsageError(
            msg, hint="run `lanes mutation check` first: its envelope carries the proposal"
        )
    data = read_envelope(source).get("data", {})
    proposal = data.get("proposed_baseline")
    if data.get("kind") != "check" or not isinstance(proposal, dict):
        msg = f"{source} carries no proposed baseline (kind {data.get('kind')!r})"
        raise UsageError(msg, hint="run `lanes mutation check` after a successful merge")
    target = Path(ns.output) if ns.output else config.root / config.mutation.baseline
    parsed = parse_baseline(proposal, source)  # the proposal is validated like any baseline
    write_baseline(target, parsed)
    for name, entry in sorted(parsed.modules.items()):
        print(
            f"{name}: score {entry.score}, {entry.total} mutants, stable runs {entry.stable_runs}"
        )
    print(f"wrote {target}: review it (git diff) and commit it")
    return ExitCode.OK


def matrix_command(ns: argparse.Namespace) -> int:
    config = load_config(ns.config)
    modules = select_modules(config.mutation, ns.module or ())
    planned = None
    if ns.plan is not None:
        _, document = read_plan(Path(ns.plan))
        planned = {name: entry["shards"] for name, entry in document["modules"].items()}
        unplanned = [module.name for module in modules if module.name not in planned]
        if unplanned and ns.module:
            msg = f"--module {unplanned[0]!r} is not in the plan {ns.plan!r}"
            raise UsageError(msg, hint="plan it, or leave --module out to list the plan's modules")
        modules = [module for module in modules if module.name in planned]
    _print_matrix(
        matrix(modules, whole=ns.whole, planned=planned),
        count=ns.count,
        github_output=ns.github_output,
    )
    return ExitCode.OK


def _print_matrix(document: dict[str, Any], *, count: bool, github_output: bool) -> None:
    text = json.dumps(document, separators=(",", ":"))
    if count:
        print(len(document["include"]))
    else:
        print(text)
    if github_output:
        output = os.environ.get("GITHUB_OUTPUT")
        if not output:
            msg = "--github-output needs the GITHUB_OUTPUT environment variable (set by GitHub Actions)"
            raise UsageError(msg, hint="drop --github-output outside GitHub Actions")
        with Path(output).open("a", encoding="utf-8") as handle:
            handle.write(f"matrix={text}\ncount={len(document['include'])}\n")


def affected(ns: argparse.Namespace) -> int:
    config = load_config(ns.config)
    names, why = affected_modules(config, changed_files(config.root, ns.base))
    modules = [config.mutation.modules[name] for name in names]
    document = {"base": ns.base, "modules": names, "why": why, "matrix": matrix(modules)}
    print(json.dumps(document, indent=None if ns.compact else 2))
    return ExitCode.OK
