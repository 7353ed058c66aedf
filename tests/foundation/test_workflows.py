"""The GitHub workflows: valid, locked down, thin, and scheduling every lane — checked offline.

Every workflow under .github/workflows is checked (ci.yml, nightly.yml,
release.yml and whatever a lane adds, e.g. weekly-mutation.yml), and
.github/dependabot.yml: against GitHub's schemas as vendored by
check-jsonschema, by zizmor's offline audits, by actionlint, and by the rules
in tests/support/workflow_audit.py (shared with the workflows `lanes init`
writes), which are what keeps CI cheap to trust.
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
from pathlib import Path

import pytest
import yaml

from tests.support.workflow_audit import (
    actionlint_problems,
    artifact_problems,
    load,
    lockdown_problems,
    schema_problems,
    steps,
    zizmor_findings,
)

ROOT = Path(__file__).parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
FILES = sorted(WORKFLOWS.glob("*.yml"))
DEPENDABOT = ROOT / ".github" / "dependabot.yml"
_load = load
_steps = steps


def test_the_workflows_exist() -> None:
    assert {"ci.yml", "nightly.yml", "release.yml"} <= {path.name for path in FILES}


@pytest.mark.integration  # a real tool run (offline): about a second
def test_every_workflow_matches_githubs_schema() -> None:
    """check-jsonschema's vendored copies of schemastore's workflow and Dependabot schemas."""
    assert schema_problems(FILES, DEPENDABOT) == []


@pytest.mark.integration  # a real tool run (offline): about a second
def test_zizmor_offline_finds_nothing() -> None:
    findings = zizmor_findings(ROOT / ".github")
    assert findings == [], json.dumps(findings, indent=1)[:4000]


@pytest.mark.integration  # a real tool run (offline): well under a second
def test_actionlint_finds_nothing() -> None:
    assert actionlint_problems(FILES) == []


def test_dependabot_keeps_the_action_pins_current() -> None:
    document = yaml.safe_load(DEPENDABOT.read_text(encoding="utf-8"))
    ecosystems = {u["package-ecosystem"]: u for u in document["updates"]}
    assert ecosystems["github-actions"]["schedule"]["interval"] == "weekly"


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_locked_down(path: Path) -> None:
    assert lockdown_problems(path) == []


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
            assert command in ("python -m pip install nox uv", SYSTEM_TOOLS) or command.startswith(
                "nox -s "
            ), command


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_artifacts_have_unique_names_and_a_retention(path: Path) -> None:
    assert artifact_problems(path) == []


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
    """The lanes the docs have a how-to page for: '# The fuzz lane', '# The slow-test ratchet', ..."""
    titles = "\n".join(
        page.read_text(encoding="utf-8").split("\n", 1)[0]
        for page in (ROOT / "docs" / "how-to").glob("*.md")
    )
    return set(re.findall(r"^# The (\w+)(?: lane|-test ratchet| selector)\b", titles, re.MULTILINE))


def test_every_lane_the_docs_promise_is_scheduled_somewhere() -> None:
    lanes = _promised_lanes()
    assert {"slow", "fuzz", "torture", "bench"} <= lanes  # the parse still finds the sections
    scheduled = _scheduled()
    unscheduled = {
        lane for lane in lanes if not any(s == lane or s.startswith(f"{lane}-") for s in scheduled)
    }
    assert not unscheduled, f"documented lanes no workflow runs: {sorted(unscheduled)}"


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


def test_ci_builds_the_docs_on_every_pr_and_uploads_the_site() -> None:
    document = _load(WORKFLOWS / "ci.yml")
    assert "pull_request" in document["on"]
    docs = document["jobs"]["docs"]
    assert docs["permissions"] == {"contents": "read"}
    assert any(step.get("run") == "nox -s docs" for step in docs["steps"])
    upload = next(s for s in docs["steps"] if "upload-artifact" in s.get("uses", ""))
    assert upload["with"]["path"] == "site/"
    assert int(upload["with"]["retention-days"]) > 0


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


def test_the_docs_tested_with_names_the_ci_matrix() -> None:
    """Regression: "Tested with" said 3.11 (CI also 3.12 and 3.13) while CI ran 3.11-3.14."""
    page = (ROOT / "docs" / "reference" / "platforms.md").read_text(encoding="utf-8")
    section = page.split("\n## Tested with\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"Python ([^(]+)\(", section)
    assert match, section[:200]
    named = re.findall(r"3\.\d+", match[1])
    matrix = _load(WORKFLOWS / "ci.yml")["jobs"]["tests"]["strategy"]["matrix"]["python-version"]
    assert named == sorted(matrix, key=lambda v: tuple(map(int, v.split("."))))
