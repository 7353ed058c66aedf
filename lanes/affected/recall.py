"""``lanes affected --recall N``: recall measured on the project itself, not assumed.

In a throw-away clone of the repository, plant a bug in N functions chosen by
a fixed seed, one at a time: the function's body raises at its first line.
For each plant, run the whole suite once and compare the tests that failed
with the selector's plan for that one-file change, narrowed by the recorded
map when there is one (``--map``, else ``envelopes/affected-map.json``):
a failing test counts as selected when its file runs whole or its node id is
selected. Recall is the share of failing tests the plan selected (goal:
100%); the saving is the share of the suite's test files the plan did *not*
select. A plant no test notices is counted
separately: it says something about the suite, nothing about the selector.
A failing test outside the selection is confirmed before it counts as a
miss: run alone, it must fail with the plant and pass without it (a test that
flakes under load is listed as ``flaky``, not as a miss).
"""

from __future__ import annotations

import ast
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from lanes.affected.changes import tracked_files
from lanes.affected.lane import build_plan
from lanes.affected.plan import Project
from lanes.affected.record import default_map_path
from lanes.affected.selfcheck import failing_tests
from lanes.affected.testmap import read_map
from lanes.config import load_config

if TYPE_CHECKING:
    from lanes.affected.plan import Plan
    from lanes.config import Config
    from lanes.payloads.affected import AffectedPlant, AffectedRecall

__all__ = ["measure_recall", "plant_sites"]

SEED = 20261130
# The suite runs once per plant: use both cores, and no plugin that reorders.
_PYTEST_ARGS = ("-n", "2", "-p", "no:randomly")


def plant_sites(root: Path, files: list[str], tests: set[str]) -> list[tuple[str, str, int]]:
    """(file, function, first body line) of every plantable function outside the tests."""
    sites: list[tuple[str, str, int]] = []
    for path in files:
        if not path.endswith(".py") or path in tests or "/tests/" in f"/{path}":
            continue
        try:
            tree = ast.parse((root / path).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
                first = node.body[0]
                # Skip the docstring: plant at the first statement that runs.
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                    if len(node.body) == 1:
                        continue
                    first = node.body[1]
                sites.append((path, node.name, first.lineno))
    return sites


def _plant(path: Path, line: int) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    target = lines[line - 1]
    indent = target[: len(target) - len(target.lstrip())]
    lines.insert(line - 1, f'{indent}raise RuntimeError("planted by lanes affected --recall")\n')
    path.write_text("".join(lines), encoding="utf-8")


def _selects(plan: Plan, test: str) -> bool:
    """A failing test is selected when its file runs whole, or by its id."""
    file = test.split("::", 1)[0]
    return file in plan.tests and (file not in plan.nodes or test in plan.nodes[file])


def _pytest_args(map_file: Path | None) -> tuple[str, ...]:
    """The full runs' arguments: with a seeded map's seed, whose draws it vouches for."""
    test_map = read_map(map_file) if map_file is not None else None
    seed = test_map.document["hypothesis_seed"] if test_map is not None else None
    return (*_PYTEST_ARGS, f"--hypothesis-seed={seed}") if seed is not None else _PYTEST_ARGS


def measure_recall(config: Config, count: int, map_file: Path | None = None) -> AffectedRecall:
    """``map_file`` (else ``envelopes/affected-map.json`` when present): the recorded map
    the plans use, as ``lanes affected`` would; recorded on the commit measured."""
    if map_file is None and default_map_path(config).is_file():
        map_file = default_map_path(config)
    if map_file is not None:
        map_file = map_file.resolve()
    with tempfile.TemporaryDirectory(prefix="lanes-affected-recall-") as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(
            ["git", "clone", "-q", "--no-hardlinks", str(config.root), str(clone)],
            check=True,
            capture_output=True,
        )
        files = tracked_files(clone)
        cloned = load_config(cwd=clone)
        all_tests = Project.scan(cloned, files).tests
        tests = set(all_tests)
        sites = plant_sites(clone, files, tests)
        args = _pytest_args(map_file)
        # Tests that already fail (or flake) without a plant say nothing about the selector.
        broken = failing_tests(clone, *args)
        chosen = random.Random(SEED).sample(  # noqa: S311  # a reproducible choice, not a secret
            sites, min(count, len(sites))
        )
        plants: list[AffectedPlant] = []
        map_state = ""
        for path, function, line in chosen:
            print(f"affected recall: {path}:{function}", file=sys.stderr, flush=True)
            _plant(clone / path, line)
            plan = build_plan(cloned, "HEAD", map_file)
            map_state = plan.map_state
            failing = failing_tests(clone, *args) - broken
            # A failure outside the selection is a miss only if the plant
            # causes it: it fails alone with the plant and passes alone without.
            # Anything else is a flaky test, which says nothing about the selector.
            suspects = sorted(test for test in failing if not _selects(plan, test))
            still = failing_tests(clone, *suspects) & set(suspects) if suspects else set()
            subprocess.run(["git", "checkout", "--", path], cwd=clone, check=True)
            flaky_alone = failing_tests(clone, *sorted(still)) if still else set()
            missed = still - flaky_alone
            plants.append(
                {
                    "file": path,
                    "function": function,
                    "failing": sorted(failing - (set(suspects) - missed)),
                    "missed": sorted(missed),
                    "flaky": sorted(set(suspects) - missed),
                    "selected": len(plan.tests),
                    "node_ids": sum(len(ids) for ids in plan.nodes.values()),
                    "full": plan.full,
                }
            )
        total = len(all_tests) or 1
    noticed = [p for p in plants if p["failing"]]
    found = sum(len(p["failing"]) - len(p["missed"]) for p in noticed)
    failing_total = sum(len(p["failing"]) for p in noticed)
    return {
        "seed": SEED,
        "map": map_state,
        "already_failing": sorted(broken),
        "plants": plants,
        "noticed": len(noticed),
        "missed": [m for p in plants for m in p["missed"]],
        "recall": round(found / failing_total, 4) if failing_total else None,
        "mean_selected_share": round(sum(p["selected"] for p in plants) / (len(plants) * total), 4)
        if plants
        else None,
    }
