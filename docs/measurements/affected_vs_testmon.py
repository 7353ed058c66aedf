"""`lanes affected` with a recorded map against pytest-testmon, by test count.

    python docs/measurements/affected_vs_testmon.py PROJECT PLANTS.json \
        --lanes-python VENV/bin/python --testmon-python VENV2/bin/python

PROJECT: a git repository of a real project at a clean commit, its test
dependencies installed in both environments (lanekit in the first,
pytest-testmon in the second). PLANTS.json: a list of one-line bugs
``{"file", "old", "new"}`` (affected_toolz_plants.json and
affected_boltons_plants.json beside this script: toolz 0.12.1 and boltons
25.0.0, from `pip download --no-binary :all: --no-deps`; marshmallow 3.20.2,
click 8.1.7, attrs 25.3.0, pluggy 1.6.0, packaging 24.2 and tomlkit 0.13.2
(with PyYAML) likewise; attrs with
`--deselect=tests/test_converters.py::TestPipe::test_wrapped_annotation` in
its addopts, a test that fails on CPython 3.11 and 3.12 before any plant;
pluggy installed with ``SETUPTOOLS_SCM_PRETEND_VERSION=1.6.0``, its sdist
carrying no git tag).

On the clean commit it times a plain full run, records the map
(`lanes affected --record`) and builds testmon's database. Then per plant,
one at a time: the tests that fail (a full run), the test ids `lanes affected`
selects (a narrowed file counts its selected ids, any other selected file all
its tests), the ids testmon selects, and the CPU of running lanes' selection
against the CPU of the full run with the same plant (the same failures to
report: a plant failing 120 tests costs a run more than the clean one does).
Prints one JSON line per plant and a SUMMARY line. Takes ~2 full suite runs
per plant.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import time
from pathlib import Path
from typing import Any


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(
    root: Path, argv: list[str], env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], float]:
    """The process and its CPU seconds (user + system, children included)."""
    before = _cpu()
    proc = subprocess.run(argv, cwd=root, capture_output=True, text=True, env=env, check=False)
    return proc, round(_cpu() - before, 2)


PYTEST_ARGS = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
# testmon keeps its state beside pytest's cache: it needs the cacheprovider.
TESTMON_ARGS = ["--testmon", "-q", "-p", "no:randomly"]


def failing_ids(summary: str, per_file: dict[str, set[str]]) -> set[str]:
    """The tests pytest's short summary reports as failed or errored.

    A parametrized id may hold spaces and " - " (click's ``[-equal length, no
    dot]``), so a line is not cut at its first space: its id is the longest
    collected id (or test file) the line starts with, before " - MESSAGE".
    """
    known = set(per_file).union(*per_file.values())
    failing: set[str] = set()
    for line in summary.splitlines():
        kind, _, rest = line.partition(" ")
        if kind not in ("FAILED", "ERROR"):
            continue
        cuts = sorted([len(rest), *(m.start() for m in re.finditer(" - ", rest))], reverse=True)
        found = next((rest[:cut] for cut in cuts if rest[:cut] in known), rest[: cuts[-1]])
        # A test file that fails to import errors as a whole: each of its tests fails.
        failing.update(per_file.get(found, {found}) if "::" not in found else {found})
    return failing


def measure_plant(
    root: Path,
    plant: dict[str, str],
    *,
    lanes: str,
    testmon: str,
    env: dict[str, str],
    per_file: dict[str, set[str]],
) -> dict[str, Any]:
    """One plant: the failing tests, lanes' and testmon's selections, the selected run's CPU."""
    pytest_args, testmon_args = PYTEST_ARGS, TESTMON_ARGS
    path = root / plant["file"]
    source = path.read_text()
    if source.count(plant["old"]) != 1:
        msg = f"plant not found exactly once: {plant}"
        raise SystemExit(msg)
    path.write_text(source.replace(plant["old"], plant["new"]))
    try:
        # Its CPU is the fair yardstick for the selected run: the same failures to report.
        failed, planted_full_cpu = run(root, [lanes, "-m", "pytest", "-rfE", *pytest_args], env)
        _, _, summary = failed.stdout.rpartition("short test summary info")
        failing = failing_ids(summary, per_file)
        planned, _ = run(root, [lanes, "-m", "lanes", "affected", "--json", "--base", "HEAD"], env)
        plan = json.loads(planned.stdout)
        selected: set[str] = set()
        for test in plan["tests"]:
            if "nodes" not in test:
                selected.update(per_file.get(test["file"], set()))
                continue
            for node in (n["id"] for n in test["nodes"]):
                # A test's own id (a parametrized test, a class) runs all its items:
                # the clean run's for the count, and any the plant made (a changed
                # parametrize value changes the ids: test_x[22] is test_x[23] now).
                items = per_file.get(test["file"], set())
                own = (f"{node}[", f"{node}::")
                selected.update({i for i in items if i.startswith(own)} or {node})
                selected.update(f for f in failing if f.startswith(own))
        # The selection as `lanes affected --run` runs it (its own commands, no gate).
        selected_cpu = 0.0
        for suite in plan["suites"]:
            argv = (
                [lanes, "-m", *suite["command"]]
                if suite["command"][0] == "pytest"
                else suite["command"]
            )
            _, cpu = run(root, argv, env)
            selected_cpu += cpu
        listed, _ = run(root, [testmon, "-m", "pytest", "--collect-only", *testmon_args], env)
        by_testmon = {line.strip() for line in listed.stdout.splitlines() if "::" in line}
    finally:
        path.write_text(source)
    row: dict[str, Any] = {
        "plant": f"{plant['file']}: {plant['new'].strip()[:50]}",
        "failing": len(failing),
        "lanes": len(selected),
        "lanes_files": len(plan["tests"]),
        "testmon": len(by_testmon),
        "lanes_caught": failing <= selected,
        "testmon_caught": failing <= by_testmon,
        "missed_by_lanes": sorted(failing - selected),
        "missed_by_testmon": sorted(failing - by_testmon),
        "full": plan["full"],
        "selected_run_cpu_s": round(selected_cpu, 2),
        "planted_full_run_cpu_s": planted_full_cpu,
    }
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("project", type=Path)
    parser.add_argument("plants", type=Path)
    parser.add_argument("--lanes-python", required=True)
    parser.add_argument("--testmon-python", required=True)
    ns = parser.parse_args()
    root: Path = ns.project.resolve()
    plants: list[dict[str, str]] = json.loads(ns.plants.read_text())
    lanes, testmon = ns.lanes_python, ns.testmon_python
    env = {**os.environ, "LANES_TEST_FORCE": "1"}
    pytest_args, testmon_args = PYTEST_ARGS, TESTMON_ARGS

    collected, _ = run(root, [lanes, "-m", "pytest", "--collect-only", *pytest_args], env)
    all_ids = {line.strip() for line in collected.stdout.splitlines() if "::" in line}
    per_file: dict[str, set[str]] = {}
    for node in all_ids:
        per_file.setdefault(node.split("::", 1)[0], set()).add(node)

    full, full_cpu = run(root, [lanes, "-m", "pytest", *pytest_args], env)
    started = time.monotonic()
    record, record_cpu = run(root, [lanes, "-m", "lanes", "affected", "--record"], env)
    record_wall = round(time.monotonic() - started, 2)
    (root / ".testmondata").unlink(missing_ok=True)
    # testmon's database is this harness's file, not the project's: a project
    # without it in .gitignore (pluggy's sdist) would see an unknown untracked
    # file, and lanes fails open on one (the full set, for every plant).
    exclude = root / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    known = exclude.read_text() if exclude.exists() else ""
    if ".testmondata*" not in known.split():
        exclude.write_text(known + "\n.testmondata*\n")
    built, testmon_cpu = run(root, [testmon, "-m", "pytest", *testmon_args], env)
    setup = {
        "tests": len(all_ids),
        "test_files": len(per_file),
        "full_run_cpu_s": full_cpu,
        "record_cpu_s": record_cpu,
        "record_wall_s": record_wall,
        "testmon_db_cpu_s": testmon_cpu,
        "record_note": record.stdout.strip().splitlines()[-1:] or record.stderr[-300:],
        "full_run": full.stdout.strip().splitlines()[-1:],
        "testmon_db_run": built.stdout.strip().splitlines()[-1:],
    }
    print("SETUP", json.dumps(setup), flush=True)

    rows = [
        measure_plant(root, plant, lanes=lanes, testmon=testmon, env=env, per_file=per_file)
        for plant in plants
    ]
    noticed = [r for r in rows if r["failing"]]
    summary = {
        "plants": len(rows),
        "noticed": len(noticed),
        "mean_lanes_tests": round(sum(r["lanes"] for r in rows) / len(rows), 1),
        "mean_testmon_tests": round(sum(r["testmon"] for r in rows) / len(rows), 1),
        "mean_lanes_share": round(sum(r["lanes"] for r in rows) / len(rows) / len(all_ids), 4),
        "mean_testmon_share": round(sum(r["testmon"] for r in rows) / len(rows) / len(all_ids), 4),
        "every_failing_test_selected_by_lanes": all(r["lanes_caught"] for r in rows),
        "every_failing_test_selected_by_testmon": all(r["testmon_caught"] for r in rows),
        "max_selected_run_cpu_over_full": round(
            max(r["selected_run_cpu_s"] for r in rows) / full_cpu, 3
        ),
        "max_selected_run_cpu_over_planted_full": round(
            max(r["selected_run_cpu_s"] / r["planted_full_run_cpu_s"] for r in rows), 3
        ),
    }
    print("SUMMARY", json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
