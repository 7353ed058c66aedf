"""An agent's pytest that turns the governor's pytest plugin off is, to the
hook, an unapproved sweep attempt: without the plugin, the shell
string is all the gate can judge."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.governor.governor_helpers import Project

FOCUSED = "pytest tests/unit/test_a.py"
APPROVED = {"LANES_FULL_SWEEP_OK": "1", "LANES_OVERRIDE_REASON": "release check before tagging"}


@pytest.mark.parametrize(
    "command",
    [
        FOCUSED + " -p no:lanes.governor",
        FOCUSED + " -pno:lanes.governor",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 " + FOCUSED,
        "export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1; " + FOCUSED,
        "PYTEST_ADDOPTS='-p no:lanes.governor' " + FOCUSED,
        "PYTEST_CURRENT_TEST=x " + FOCUSED,
        "export MUTANT_UNDER_TEST=; " + FOCUSED,
        "python -m pytest tests/unit/test_a.py -p no:lanes.governor",
    ],
)
def test_disabling_the_plugin_is_a_sweep_attempt(project: Project, command: str) -> None:
    decision = project.pre(command)
    assert (decision.action, decision.step) == ("block", "sweep"), decision
    assert "governor's pytest plugin" in decision.message
    # The audited override opens it, as for any sweep.
    assert project.pre(command, environ=APPROVED).action == "allow"


@pytest.mark.parametrize(
    "command",
    [
        FOCUSED,
        FOCUSED + " -p no:randomly",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 pytest -p lanes.governor tests/unit/test_a.py",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD=0 " + FOCUSED,
    ],
)
def test_a_focused_run_with_the_plugin_on_is_allowed(project: Project, command: str) -> None:
    assert project.pre(command).action == "allow"


def test_the_agents_own_environment_counts_too(project: Project) -> None:
    decision = project.pre(FOCUSED, environ={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert (decision.action, decision.step) == ("block", "sweep")
