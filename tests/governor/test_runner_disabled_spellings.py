"""Which spellings turn the governor's pytest plugin off, and which only look
like it: pytest's options are case-sensitive, a trailing ``-p`` names no
plugin, and an environment prefix applies to its own command only."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.governor.governor_helpers import Project

FOCUSED = "pytest tests/unit/test_a.py"


@pytest.mark.parametrize(
    "command",
    [
        FOCUSED + " -p",  # pytest's own usage error: no plugin named
        FOCUSED + " -P no:lanes.governor",  # -P is no plugin option
        "PYTEST_ADDOPTS='-p no:lanes.governor' true; " + FOCUSED,
        "PYTEST_CURRENT_TEST=x true; " + FOCUSED,
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 true; " + FOCUSED,
    ],
)
def test_what_only_looks_like_turning_the_plugin_off_is_allowed(
    project: Project, command: str
) -> None:
    assert project.pre(command).action == "allow"


@pytest.mark.parametrize(
    "command",
    [
        FOCUSED + " -p no:lanes.governor -q",
        "true; PYTEST_ADDOPTS='-q -p no:lanes.governor' " + FOCUSED,
    ],
)
def test_turning_the_plugin_off_anywhere_in_its_own_command_is_a_sweep_attempt(
    project: Project, command: str
) -> None:
    decision = project.pre(command)
    assert (decision.action, decision.step) == ("block", "sweep"), decision
    assert "turns the governor's pytest plugin off" in decision.message


def test_with_autoload_off_only_p_loads_the_plugin(project: Project) -> None:
    # `-kEXPR` is a keyword filter that happens to name the plugin: no `-p`.
    command = "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 " + FOCUSED + " -klanes.governor"
    decision = project.pre(command)
    assert decision.action == "block"
    assert (
        "runs the whole suite (PYTEST_DISABLE_PLUGIN_AUTOLOAD keeps the governor's pytest plugin"
        " from loading, so only the shell string can be judged)."
    ) in decision.message
    assert project.pre(command.replace("-klanes", "-planes")).action == "allow"


def test_a_unittest_run_has_no_pytest_plugin_to_turn_off(project: Project) -> None:
    command = "python -m unittest tests.unit.test_a -p no:lanes.governor"
    assert project.pre(command).action == "allow"
