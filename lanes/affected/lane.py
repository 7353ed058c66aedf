"""``lanes affected``: the plan for a diff, the dependents of a module, and ``--run``.

The plan and the dependents view are read-only queries an agent makes often:
they print and exit, no envelope. ``--run`` and ``--self-check`` are lane runs
(:mod:`lanes.lane`): they execute something, so they leave
``envelopes/affected.json`` on every exit path.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from lanes._measuring import measuring_environment
from lanes.affected.changes import changed_files, tracked_files
from lanes.affected.dependents import dependents_of
from lanes.affected.plan import Plan, Project, make_plan
from lanes.affected.render import render_dependents, render_plan
from lanes.affected.selfplan import full_plan, own_package, plan_by_base, touched
from lanes.config import load_config
from lanes.errors import UsageError
from lanes.exitcodes import ExitCode
from lanes.lane import drive

if TYPE_CHECKING:
    import argparse

    from lanes.affected.changes import Changes
    from lanes.affected.plan import SuiteRun
    from lanes.config import Config
    from lanes.envelope import LaneRun, Seed
    from lanes.payloads.affected import AffectedData, AffectedRecord, AffectedRun

__all__ = ["AffectedLane", "build_plan", "handle"]


def build_plan(config: Config, base: str | None, map_file: Path | None = None) -> Plan:
    """The plan for ``base``..working tree, narrowed by the recorded map when one is valid.

    A change to the running lanekit's own code, inside its own repository, is
    planned by the base commit's selector (:mod:`lanes.affected.selfplan`), or
    runs the full set when that fails; anywhere else this costs one path check.
    """
    from lanes.affected.record import load_map  # noqa: PLC0415  # the map only for a plan

    changes = changed_files(config.root, base)
    package = own_package(config.root)
    if package is not None and touched(changes, package):
        made = plan_by_base(config, changes, package, map_file)
        return made if isinstance(made, Plan) else full_plan(_scan(config, changes), changes, made)
    test_map, state = load_map(config, map_file)
    return make_plan(_scan(config, changes), changes, test_map, state)


def _scan(config: Config, changes: Changes) -> Project:
    """The project as the selector sees it, deleted modules kept so their importers are found."""
    phantom = tuple(
        path
        for path, change in changes.paths.items()
        if path.endswith(".py") and (change == "deleted" or change.startswith("renamed to"))
    )
    return Project.scan(config, tracked_files(config.root, changes.untracked), phantom=phantom)


@dataclass(frozen=True)
class AffectedOptions:
    base: str | None
    run: bool
    self_check: bool
    recall: int
    map_file: Path | None


class AffectedLane:
    name: ClassVar[str] = "affected"

    def resolve(self, ns: argparse.Namespace, config: Config) -> AffectedOptions:
        if ns.recall < 0:
            msg = f"--recall must be a count of planted bugs >= 0, got {ns.recall!r}"
            raise UsageError(
                msg, hint="pass e.g. --recall 20 (each plant costs one full suite run)"
            )
        return AffectedOptions(ns.base, ns.run, ns.self_check, ns.recall, ns.map)

    def config_hash(self, options: AffectedOptions, config: Config) -> str:
        return config.section_hash("suites", "affected")

    def seed(self, options: AffectedOptions) -> Seed:
        return None

    def run(self, options: AffectedOptions, config: Config, run: LaneRun) -> None:
        # Each part is published as soon as it exists: a crash in a later one
        # keeps the earlier ones in the envelope.
        data: AffectedData = {}
        passed = True
        if options.run:
            plan = build_plan(config, options.base, options.map_file)
            data["plan"] = plan.to_dict()
            run.publish(data)
            data["runs"] = results = _execute(plan, config)
            run.publish(data)
            # A gate that could not start is reported, not counted: the result
            # is the tests' and the gates' that ran.
            passed = all(item["exit_code"] == 0 for item in results if "skipped" not in item)
        if options.self_check:
            from lanes.affected.selfcheck import run_self_check  # noqa: PLC0415  # builds a project

            data["self_check"] = report = run_self_check()
            run.publish(data)
            passed = passed and report["passed"]
        if options.recall:
            from lanes.affected.recall import measure_recall  # noqa: PLC0415  # full suite runs

            data["recall"] = recall = measure_recall(config, options.recall, options.map_file)
            run.publish(data)
            passed = passed and recall["missed"] == []
        if config.affected.record_map:
            data["record"] = _record_for_lane(config)
            run.publish(data)
        run.verdict(passed=passed)


def _record_for_lane(config: Config) -> AffectedRecord:
    """``record_map = true``: the map, recorded after the lane's own work; a tree
    that cannot be recorded (uncommitted Python files) is said, not failed."""
    from lanes.affected.record import default_map_path, record_map  # noqa: PLC0415  # a full run

    try:
        result = record_map(config, _environment(), None)
    except UsageError as exc:
        return {
            "path": str(default_map_path(config)),
            "tests": 0,
            "unvouched": 0,
            "exit_code": 0,
            "cpu_seconds": 0.0,
            "wall_seconds": 0.0,
            "skipped": f"{exc} ({exc.hint})",
        }
    return {
        "path": str(result.path),
        "tests": result.tests,
        "unvouched": result.unvouched,
        "exit_code": result.exit_code,
        "cpu_seconds": result.cpu_seconds,
        "wall_seconds": result.wall_seconds,
    }


def _environment() -> dict[str, str]:
    """The environment lanekit runs in comes first on PATH, as nox and tox activate theirs:
    ``.venv/bin/lanes affected --run`` must run that venv's ``pytest``, not the first
    one on PATH (which may test an installed copy instead of the working tree)."""
    bin_dir = str(Path(sys.executable).parent)
    return measuring_environment(
        {**os.environ, "PATH": os.pathsep.join([bin_dir, os.environ.get("PATH", "")])}
    )


def _gate_skip(argv: list[str], env: dict[str, str], exc: OSError) -> str:
    """Why a gate could not start, and the command that installs it."""
    program = argv[0] if argv else "(empty command)"
    if argv and shutil.which(program, path=env.get("PATH")) is None:
        return (
            f"{program!r} is not installed in this environment ({exc.strerror or exc}); "
            f"install it with `{shlex.quote(sys.executable)} -m pip install {shlex.quote(program)}` "
            f"or set [tool.lanes.affected.gates] to a command that exists"
        )
    return f"{program!r} could not start: {exc}; check the gate's command in [tool.lanes.affected.gates]"


# Past this many bytes of test ids a command line nears the kernel's limit
# (ARG_MAX, 2 MiB on Linux, shared with the environment): pytest reads them
# from a file instead (``@FILE``, pytest >= 8.2).
ARGV_ID_BUDGET = 64 * 1024


def _pytest_reads_argfiles() -> bool:
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415  # a big run only

    try:
        major, minor = (int(part) for part in version("pytest").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        return False
    return (major, minor) >= (8, 2)


def _suite_argv(run: SuiteRun, scratch: Path) -> list[str]:
    """The suite's command; thousands of test ids go through an argument file."""
    if sum(len(node) + 1 for node in run.nodes) <= ARGV_ID_BUDGET:
        return run.command
    ids = set(run.nodes)
    head = [arg for arg in run.command if arg not in ids]
    if _pytest_reads_argfiles():
        argfile = scratch / f"ids-{len(list(scratch.iterdir()))}.txt"
        argfile.write_text("".join(f"{node}\n" for node in run.nodes), encoding="utf-8")
        return [*head, f"@{argfile}"]
    # An older pytest: the narrowed files run whole, which is never less than selected.
    files = dict.fromkeys(node.split("::", 1)[0] for node in run.nodes)
    print(
        f"affected: {len(ids)} test ids exceed the command line and this pytest reads no "
        "@FILE (pytest >= 8.2 does): their files run whole",
        file=sys.stderr,
    )
    return [*head, *(f for f in files if f not in head)]


def _execute(plan: Plan, config: Config) -> list[AffectedRun]:
    """Each selected suite once, then each gate; a failure does not stop the others.

    A suite that cannot start is a failure (its tests did not run); a gate that
    cannot start (nox not installed) is *skipped*, with the reason and the
    install command: it must not turn the tests' pass into the plan's failure.
    """
    env = _environment()
    with tempfile.TemporaryDirectory(prefix="lanes-affected-ids-") as scratch:
        commands = [(f"suite {s.name}", _suite_argv(s, Path(scratch)), False) for s in plan.suites]
        commands += [
            (f"gate {gate.name}", shlex.split(gate.command), True)
            for gate, _ in plan.gates.values()
        ]
        return [
            _run_one(label, argv, config, env, is_gate=is_gate) for label, argv, is_gate in commands
        ]


def _run_one(
    label: str, argv: list[str], config: Config, env: dict[str, str], *, is_gate: bool
) -> AffectedRun:
    """One command of the plan, timed; a gate that cannot start is skipped, not failed."""
    print(f"affected: {label}: {shlex.join(argv)}", file=sys.stderr, flush=True)
    started = time.monotonic()
    skipped: str | None = None
    try:
        code = subprocess.run(argv, cwd=config.root, env=env, check=False).returncode
    except OSError as exc:
        code = 127
        if is_gate:
            skipped = _gate_skip(argv, env, exc)
            print(f"affected: {label} skipped: {skipped}", file=sys.stderr)
        else:
            print(f"affected: {label} could not start: {exc}", file=sys.stderr)
    result: AffectedRun = {
        "what": label,
        "command": argv,
        "exit_code": code,
        "duration_ms": int((time.monotonic() - started) * 1000),
    }
    if skipped is not None:
        result["skipped"] = skipped
    return result


def _record(ns: argparse.Namespace) -> int:
    from lanes.affected.record import record_map  # noqa: PLC0415  # a full suite run

    config = load_config(ns.config)
    result = record_map(config, _environment(), ns.map)
    print(
        f"affected: recorded {result.tests} tests ({result.unvouched} not vouched for: "
        "failed, started a process that left no record, or a Hypothesis test drawing "
        f"at random{result.seeded}), "
        f"{result.nodes} functions, "
        f"into {result.path}\n"
        f"affected: recording run: pytest exit {result.exit_code}, "
        f"{result.cpu_seconds} s CPU, {result.wall_seconds} s wall"
    )
    return ExitCode.OK


def handle(ns: argparse.Namespace) -> int:
    if ns.record:
        if ns.module is not None or ns.run or ns.self_check or ns.recall:
            msg = "--record runs the whole suite once; it combines with no MODULE, --run, --self-check or --recall"
            raise UsageError(
                msg, hint="record first (lanes affected --record), then plan: lanes affected"
            )
        return _record(ns)
    if ns.run or ns.self_check or ns.recall:
        if ns.module is not None:
            msg = "a MODULE and --run/--self-check/--recall cannot be combined"
            raise UsageError(
                msg, hint="ask for a module's dependents alone: lanes affected pkg.mod"
            )
        return drive(AffectedLane(), ns)
    config = load_config(ns.config)
    if ns.module is not None:
        from lanes.affected.record import load_map  # noqa: PLC0415  # the map only for a query

        project = Project.scan(config, tracked_files(config.root))
        test_map, state = load_map(config, ns.map)
        view = dependents_of(project, ns.module, test_map, state)
        print(
            json.dumps(view.to_dict(), indent=2)
            if ns.json
            else render_dependents(view, limit=ns.limit)
        )
        return ExitCode.OK
    plan = build_plan(config, ns.base, ns.map)
    print(json.dumps(plan.to_dict(), indent=2) if ns.json else render_plan(plan, limit=ns.limit))
    return ExitCode.OK
