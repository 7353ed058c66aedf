"""The checks every GitHub workflow lanekit writes must pass, offline.

One set of rules for lanekit's own ``.github/`` (tests/foundation/test_workflows.py)
and for what ``lanes init`` scaffolds into a user's project (tests/init/):
GitHub's workflow and Dependabot schemas (as vendored by check-jsonschema),
zizmor's offline audits, actionlint, and lanekit's own rules below. Each
function returns the problems it found: an empty list is a pass.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "MAX_TIMEOUT_MINUTES",
    "actionlint_problems",
    "artifact_problems",
    "load",
    "lockdown_problems",
    "schema_problems",
    "steps",
    "uses_pins",
    "zizmor_findings",
]

BIN = Path(sys.executable).parent
# GitHub-hosted runners: a hung job is cancelled after 6 hours unless told otherwise.
MAX_TIMEOUT_MINUTES = 120
SHA_PIN = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
VERSION_COMMENT = re.compile(r"#\s*v\d+(\.\d+){0,2}\s*$")
# Superseded pull-request runs are cancelled; a scheduled run or a run on main never is.
CANCEL_RULES = ("false", "${{ github.event_name == 'pull_request' }}")


def load(path: Path) -> dict[str, Any]:
    # BaseLoader keeps every scalar a string: `on:` stays "on", not True.
    document: dict[str, Any] = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)  # noqa: S506  # BaseLoader builds no objects
    return document


def steps(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in document["jobs"].values() for step in job.get("steps", [])]


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)


def schema_problems(workflows: list[Path], dependabot: Path | None = None) -> list[str]:
    """check-jsonschema's vendored copies of schemastore's schemas: no network."""
    problems = []
    runs = [("vendor.github-workflows", workflows)]
    if dependabot is not None:
        runs.append(("vendor.dependabot", [dependabot]))
    for schema, files in runs:
        done = _run(str(BIN / "check-jsonschema"), "--builtin-schema", schema, *map(str, files))
        if done.returncode != 0:
            problems.append(done.stdout + done.stderr)
    return problems


def zizmor_findings(directory: Path) -> list[dict[str, Any]]:
    """zizmor's offline audits over a ``.github`` or ``.github/workflows`` directory.

    A finding that is acceptable must be explained where it is silenced (an
    ignore comment in the workflow says why), never dropped here.
    """
    done = _run(
        str(BIN / "zizmor"), "--offline", "--format", "json", "--no-progress", str(directory)
    )
    findings: list[dict[str, Any]] = json.loads(done.stdout or "[]")
    if done.returncode != 0 and not findings:
        return [{"zizmor failed": done.returncode, "stderr": done.stderr[-2000:]}]
    return findings


def actionlint_problems(workflows: list[Path]) -> list[str]:
    """actionlint: expressions, runner labels, deprecated action runtimes (node20), ..."""
    done = _run(str(BIN / "actionlint"), "-no-color", *map(str, workflows))
    if done.returncode == 0:
        return []
    return [line for line in (done.stdout + done.stderr).splitlines() if line.strip()][:40]


def uses_pins(path: Path) -> dict[str, str]:
    """Each ``uses:`` action (without ref) -> its full ``ref # version`` text."""
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.search(r"uses: ([^@\s]+)@(\S+.*)$", line)
        if match:
            pins[match[1]] = match[2].strip()
    return pins


def lockdown_problems(path: Path) -> list[str]:
    """Least privilege, timeouts, concurrency that spares scheduled runs, SHA pins, no credentials."""
    document = load(path)
    problems = []
    # Least privilege: nothing by default, each job names what it needs.
    if document.get("permissions") not in ({}, {"contents": "read"}):
        problems.append(f"top-level permissions {document.get('permissions')!r}")
    for name, job in document["jobs"].items():
        if "permissions" not in job and document.get("permissions") != {"contents": "read"}:
            problems.append(f"{name}: no job permissions")
        permissions = job.get("permissions", {})
        writes = {scope: level for scope, level in permissions.items() if level == "write"}
        allowed = {"id-token", "attestations"} if name.startswith("publish") else set()
        if set(writes) - allowed or any(
            v not in ("read", "none", "write") for v in permissions.values()
        ):
            problems.append(f"{name}: permissions {permissions!r}")
        minutes = int(job.get("timeout-minutes", "0"))
        if not 0 < minutes <= MAX_TIMEOUT_MINUTES:
            problems.append(f"{name}: timeout-minutes {minutes}")
    cancel = document.get("concurrency", {}).get("cancel-in-progress")
    if cancel not in CANCEL_RULES:
        problems.append(f"concurrency cancel-in-progress {cancel!r}")
    # Every action pinned to a full commit SHA, its version in a comment.
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.search(r"uses: (\S+)(.*)$", line)
        if match and not (SHA_PIN.match(match[1]) and VERSION_COMMENT.search(match[2])):
            problems.append(f"not pinned by SHA with its version: {line.strip()}")
    checkouts = [s for s in steps(document) if s.get("uses", "").startswith("actions/checkout@")]
    if not all(s.get("with", {}).get("persist-credentials") == "false" for s in checkouts):
        problems.append("a checkout persists credentials")
    return problems


def artifact_problems(path: Path) -> list[str]:
    """Every upload has a retention period and a name unique per run attempt and matrix job."""
    document = load(path)
    names = []
    problems = []
    for job in document["jobs"].values():
        matrix = job.get("strategy", {}).get("matrix")
        # A matrix computed at run time (fromJSON) has keys this file cannot see.
        matrix_keys = set(matrix) if isinstance(matrix, dict) else {"?"} if matrix else set()
        for step in job.get("steps", []):
            if not step.get("uses", "").startswith("actions/upload-artifact@"):
                continue
            name = step["with"]["name"]
            if not 1 <= int(step["with"].get("retention-days", "0")) <= 90:
                problems.append(f"{name}: retention-days {step['with'].get('retention-days')!r}")
            # A re-run attempt uploads again: the attempt keeps names unique.
            if "github.run_attempt" not in name and "github.run_id" not in name:
                problems.append(f"{name}: not unique per run")
            if matrix_keys and not (
                "strategy.job-index" in name or all(f"matrix.{key}" in name for key in matrix_keys)
            ):
                problems.append(f"{name}: not unique per matrix job")
            names.append(name)
    if len(names) != len(set(names)):
        problems.append(f"duplicate artifact names: {names}")
    return problems
