"""The GitHub workflows: valid, locked down, thin, and scheduling every lane — checked offline.

Every workflow under .github/workflows is checked (ci.yml, nightly.yml and
whatever a lane adds, e.g. weekly-mutation.yml): against GitHub's workflow
schema as vendored by check-jsonschema, by zizmor's offline audits, and by
the rules below, which are what keeps CI cheap to trust.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
FILES = sorted(WORKFLOWS.glob("*.yml"))
BIN = Path(sys.executable).parent

# GitHub-hosted runners: a hung job is cancelled after 6 hours unless told otherwise.
MAX_TIMEOUT_MINUTES = 120
SHA_PIN = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
VERSION_COMMENT = re.compile(r"#\s*v\d+(\.\d+){0,2}\s*$")


def _load(path: Path) -> dict[str, Any]:
    # BaseLoader keeps every scalar a string: `on:` stays "on", not True.
    document: dict[str, Any] = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)  # noqa: S506  # BaseLoader builds no objects
    return document


def _steps(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in document["jobs"].values() for step in job.get("steps", [])]


def test_the_workflows_exist() -> None:
    assert {"ci.yml", "nightly.yml"} <= {path.name for path in FILES}


@pytest.mark.integration  # a real tool run (offline): about a second
def test_every_workflow_matches_githubs_schema() -> None:
    """check-jsonschema's vendored copy of schemastore's github-workflow schema: no network."""
    done = subprocess.run(
        [
            str(BIN / "check-jsonschema"),
            "--builtin-schema",
            "vendor.github-workflows",
            *map(str, FILES),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.integration  # a real tool run (offline): about a second
def test_zizmor_offline_finds_nothing() -> None:
    """zizmor's offline audits (template injection, credentials, pinning, permissions, ...).

    A finding that is acceptable must be explained where it is silenced (an
    ignore comment in the workflow says why), never dropped here.
    """
    done = subprocess.run(
        [str(BIN / "zizmor"), "--offline", "--format", "json", "--no-progress", str(WORKFLOWS)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    findings = json.loads(done.stdout or "[]")
    assert findings == [], json.dumps(findings, indent=1)[:4000]
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_locked_down(path: Path) -> None:
    document = _load(path)
    text = path.read_text(encoding="utf-8")
    # Least privilege: nothing by default, each job names what it needs.
    assert document.get("permissions") in ({}, {"contents": "read"}), document.get("permissions")
    for name, job in document["jobs"].items():
        assert "permissions" in job or document.get("permissions") == {"contents": "read"}, name
        permissions = job.get("permissions", {})
        assert all(level in ("read", "none") for level in permissions.values()) or name.startswith(
            "publish"
        ), (name, permissions)
        minutes = int(job.get("timeout-minutes", "0"))
        assert 0 < minutes <= MAX_TIMEOUT_MINUTES, f"{name}: timeout-minutes {minutes}"
    # Superseded pull-request runs are cancelled; a run on main never is.
    cancel = document["concurrency"]["cancel-in-progress"]
    assert cancel in ("false", "${{ github.event_name == 'pull_request' }}"), cancel
    # Every action pinned to a full commit SHA, its version in a comment.
    for line in text.splitlines():
        match = re.search(r"uses: (\S+)(.*)$", line)
        if match:
            assert SHA_PIN.match(match[1]), line
            assert VERSION_COMMENT.search(match[2]), line
    checkouts = [s for s in _steps(document) if s.get("uses", "").startswith("actions/checkout@")]
    assert checkouts
    assert all(s.get("with", {}).get("persist-credentials") == "false" for s in checkouts)


SYSTEM_TOOLS = "sudo apt-get update && sudo apt-get install -y --no-install-recommends valgrind"


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_thin(path: Path) -> None:
    """Every `run:` step installs nox or calls a nox session: CI runs what developers run.

    The one other step installs a system tool a lane measures with, which a
    nox session cannot (valgrind: the bench lane's instruction counts).
    """
    for step in _steps(_load(path)):
        command = step.get("run")
        if command is not None:
            assert command in ("python -m pip install nox", SYSTEM_TOOLS) or command.startswith(
                "nox -s "
            ), command


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_artifacts_have_unique_names_and_a_retention(path: Path) -> None:
    document = _load(path)
    names = []
    for job in document["jobs"].values():
        matrix = job.get("strategy", {}).get("matrix")
        # A matrix computed at run time (fromJSON) has keys this file cannot see.
        matrix_keys = set(matrix) if isinstance(matrix, dict) else {"?"} if matrix else set()
        for step in job.get("steps", []):
            if not step.get("uses", "").startswith("actions/upload-artifact@"):
                continue
            name = step["with"]["name"]
            assert 1 <= int(step["with"]["retention-days"]) <= 90, name
            # A re-run attempt uploads again: the attempt keeps names unique.
            assert "github.run_attempt" in name or "github.run_id" in name, name
            if matrix_keys:
                # One name per matrix job: every matrix key, or the job's index.
                assert "strategy.job-index" in name or all(
                    f"matrix.{key}" in name for key in matrix_keys
                ), name
            names.append(name)
    assert len(names) == len(set(names)), names


def _nox_sessions() -> set[str]:
    """Session names declared in noxfile.py (read, not imported: nox need not be installed)."""
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    sessions = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            target = call.func if call is not None else decorator
            if ast.unparse(target) != "nox.session":
                continue
            named = [
                k.value.value
                for k in (call.keywords if call else [])
                if k.arg == "name" and isinstance(k.value, ast.Constant)
            ]
            sessions.add(str(named[0]) if named else node.name)
    return sessions


def _scheduled() -> dict[str, set[str]]:
    """nox session -> the workflows that run it."""
    runs: dict[str, set[str]] = {}
    for path in FILES:
        for step in _steps(_load(path)):
            match = re.match(r"nox -s ([\w-]+)", step.get("run", ""))
            if match:
                runs.setdefault(match[1], set()).add(path.name)
    return runs


def test_every_nox_session_a_workflow_names_exists() -> None:
    missing = set(_scheduled()) - _nox_sessions()
    assert not missing, f"workflows call nox sessions that noxfile.py does not define: {missing}"


def _promised_lanes() -> set[str]:
    """The lanes the README has a section for: '## The fuzz lane', '## The slow-test ratchet', ..."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return set(
        re.findall(r"^## The (\w+)(?: lane|-test ratchet| selector)\b", readme, re.MULTILINE)
    )


def test_every_lane_the_readme_promises_is_scheduled_somewhere() -> None:
    lanes = _promised_lanes()
    assert {"slow", "fuzz", "torture", "bench"} <= lanes  # the parse still finds the sections
    scheduled = _scheduled()
    unscheduled = {
        lane for lane in lanes if not any(s == lane or s.startswith(f"{lane}-") for s in scheduled)
    }
    assert not unscheduled, f"README lanes no workflow runs: {sorted(unscheduled)}"


def test_ci_runs_lint_tests_on_the_declared_pythons_and_the_wheel() -> None:
    document = _load(WORKFLOWS / "ci.yml")
    runs = {step.get("run", "") for step in _steps(document)}
    assert {"nox -s lint", "nox -s tests", "nox -s tests-wheel"} <= runs
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = sorted(
        c.rsplit(" :: ", 1)[1]
        for c in pyproject["project"]["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    )
    assert sorted(document["jobs"]["tests"]["strategy"]["matrix"]["python-version"]) == declared
    assert "3.14" in declared


def test_a_pull_request_gets_every_pr_sized_lane() -> None:
    document = _load(WORKFLOWS / "ci.yml")
    runs = {step.get("run", "") for step in _steps(document)}
    for command in ("nox -s torture", "nox -s fuzz -- --self-check", "nox -s fuzz", "nox -s slow"):
        assert command in runs, command
    assert any(run.startswith("nox -s slow-check -- --base ") for run in runs)
    # The report job renders every job's envelopes, whatever their outcome.
    report = document["jobs"]["report"]
    assert report["if"] == "always()"
    assert any(
        step.get("run", "").startswith("nox -s report -- --junit") for step in report["steps"]
    )


def test_nightly_runs_the_lanes_at_depth_with_their_state() -> None:
    document = _load(WORKFLOWS / "nightly.yml")
    assert "schedule" in document["on"]
    assert "workflow_dispatch" in document["on"]
    jobs = document["jobs"]
    # Fuzz: iterations at depth, the seed from the run number, the database restored then saved, always.
    steps = jobs["fuzz"]["steps"]
    uses = [step.get("uses", "").split("@")[0] for step in steps]
    deep = next(i for i, s in enumerate(steps) if "--iterations" in s.get("run", ""))
    assert uses.index("actions/cache/restore") < deep < uses.index("actions/cache/save")
    assert steps[uses.index("actions/cache/save")]["if"] == "always()"
    assert steps[deep]["env"]["RUN_NUMBER"] == "${{ github.run_number }}"
    # Torture: 10 shards × 1,000 seeds = 10,000, each shard its own seed range and envelope.
    torture = jobs["torture"]
    shards = torture["strategy"]["matrix"]["shard"]
    sweep = next(s for s in torture["steps"] if "--runs" in s.get("run", ""))
    runs_per_shard = int(re.search(r"--runs (\d+)", sweep["run"])[1])  # type: ignore[index]  # asserted present just above
    assert len(shards) * runs_per_shard == 10_000
    assert "matrix.shard" in sweep["env"]["SEED_START"]
    assert "github.run_number" in sweep["env"]["SEED_START"]
    # Timing against its baseline; the report with its history kept in the cache.
    runs = {step.get("run", "") for step in _steps(document)}
    assert "nox -s timing" in runs
    report = jobs["report"]["steps"]
    assert any(s.get("run", "").startswith("nox -s report-history") for s in report)
    assert any(
        s.get("with", {}).get("path") == "report-history/"
        for s in report
        if "cache/save" in s.get("uses", "")
    )
