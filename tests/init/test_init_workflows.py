"""The workflows and Dependabot config ``lanes init`` writes pass what lanekit's own pass.

The same offline checks as tests/foundation/test_workflows.py (GitHub's
schemas via check-jsonschema, zizmor, actionlint, and lanekit's rules in
tests/support/workflow_audit.py) over a freshly scaffolded project, and the
action pins are the very SHAs lanekit's own workflows use.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from lanes.cli import main
from tests.support.workflow_audit import (
    actionlint_problems,
    artifact_problems,
    load,
    lockdown_problems,
    schema_problems,
    steps,
    uses_pins,
    zizmor_findings,
)

ROOT = Path(__file__).parents[2]
SCAFFOLDED = ("lanes-pr.yml", "lanes-nightly.yml", "lanes-mutation.yml")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small project scaffolded once (with the mutation lane: mutmut is installed here)."""
    root = tmp_path_factory.mktemp("scaffold")
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_demo.py").write_text("def test_ok():\n    pass\n", encoding="utf-8")
    # A version: the requirement's own tests cover where it comes from.
    code = main(["init", "--root", str(root), "--no-hook", "--lanekit-requirement", "0.1.0"])
    assert code == 0
    return root


def _workflows(project: Path) -> list[Path]:
    return sorted((project / ".github" / "workflows").glob("*.yml"))


def test_init_writes_the_three_workflows_and_dependabot(project: Path) -> None:
    assert [path.name for path in _workflows(project)] == sorted(SCAFFOLDED)
    document = yaml.safe_load((project / ".github" / "dependabot.yml").read_text(encoding="utf-8"))
    (update,) = document["updates"]
    assert update["package-ecosystem"] == "github-actions"
    assert update["schedule"]["interval"] == "weekly"


@pytest.mark.integration  # real tool runs (offline): about a second
def test_the_scaffold_matches_githubs_schemas(project: Path) -> None:
    assert schema_problems(_workflows(project), project / ".github" / "dependabot.yml") == []


@pytest.mark.integration  # a real tool run (offline): about a second
def test_zizmor_finds_nothing_in_the_scaffold(project: Path) -> None:
    """Regression: 11 high findings (actions pinned by tag, not SHA)."""
    findings = zizmor_findings(project / ".github")
    assert findings == [], json.dumps(findings, indent=1)[:4000]


@pytest.mark.integration  # a real tool run (offline): well under a second
def test_actionlint_finds_nothing_in_the_scaffold(project: Path) -> None:
    """Regression: 11 actions on the node20 runtime GitHub is removing."""
    assert actionlint_problems(_workflows(project)) == []


@pytest.mark.parametrize("name", SCAFFOLDED)
def test_the_scaffold_follows_lanekits_own_rules(project: Path, name: str) -> None:
    """Least privilege, timeouts, SHA pins, retention on every upload, spared scheduled runs."""
    path = project / ".github" / "workflows" / name
    assert lockdown_problems(path) == []
    assert artifact_problems(path) == []
    document = load(path)
    if "schedule" in document["on"]:
        assert document["concurrency"]["cancel-in-progress"] == "false"
    uploads = [s for s in steps(document) if s.get("uses", "").startswith("actions/upload-")]
    assert uploads
    assert all(s["with"]["retention-days"] == "14" for s in uploads)


def test_the_scaffolds_pins_are_lanekits_own(project: Path) -> None:
    """One set of SHAs: Dependabot bumps lanekit's, and this fails until the templates follow."""
    own: dict[str, set[str]] = {}
    for path in sorted((ROOT / ".github" / "workflows").glob("*.yml")):
        for action, pin in uses_pins(path).items():
            own.setdefault(action, set()).add(pin)
    for path in _workflows(project):
        for action, pin in uses_pins(path).items():
            assert own.get(action) == {pin}, (path.name, action, pin, own.get(action))


def test_dependabot_is_opt_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    args = ["init", "--root", str(tmp_path), "--no-hook", "--lanekit-requirement", "0.1.0"]
    assert main([*args, "--no-dependabot"]) == 0
    assert ".github/dependabot.yml" not in capsys.readouterr().out
    assert not (tmp_path / ".github" / "dependabot.yml").exists()
    assert _workflows(tmp_path)
