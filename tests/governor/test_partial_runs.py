"""A recorded PASS means every test of the suite ran and passed on that tree: runs that left tests out never vouch for the suite, node ids of
one file are one path, and wrapper runners (tox, nox, make, lanes) are test
runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.config import parse_config
from lanes.errors import ConfigError
from lanes.governor.classify.classifier import classify
from lanes.governor.screen.prescreen import screen_text
from tests.governor.governor_helpers import Project, make_repo
from tests.support.hooks import payload, run_hook

if TYPE_CHECKING:
    from pathlib import Path

UNIT = "pytest tests/unit -q"


@pytest.mark.parametrize(
    "command",
    [
        UNIT + " --deselect tests/unit/test_a.py::test_a",
        UNIT + " --ignore tests/unit/test_a.py",
        UNIT + " --ignore-glob '*_slow.py'",
        UNIT + " --lf",
        UNIT + " --sw",
        UNIT + " -k test_a",
        UNIT + " -k ''",
        UNIT + " -k 'not nothing'",
        UNIT + " -m slow",
        "pytest tests/unit/test_a.py::test_a -q",
        UNIT + " --collect-only",
    ],
)
def test_a_run_that_left_tests_out_never_records_the_suite(project: Project, command: str) -> None:
    project.pre(command)
    assert project.post(command).recorded == {}


def test_the_whole_suite_still_records(project: Project) -> None:
    project.pre(UNIT)
    assert project.post(UNIT).recorded == {"unit": "PASS"}
    # The suite's own -m expression is part of the suite, not a narrowing.
    integ = "pytest tests/integ -m 'not slow'"
    project.pre(integ)
    assert project.post(integ).recorded == {"integ": "PASS"}


@pytest.mark.parametrize(
    ("command", "runner"),
    [
        ("tox", "tox"),
        ("tox -e py311", "tox"),
        ("nox -s tests", "nox"),
        ("nox -s tests-3.12", "nox"),
        ("make test", "make"),
        ("make -j4 test", "make"),
        ("hatch test", "pytest"),
        ("lanes slow run", "lanes"),
        ("uv run tox -e py", "tox"),
    ],
)
def test_wrapper_runners_are_full_test_runs(command: str, runner: str) -> None:
    result = classify(command)
    assert result.scope == "full"
    assert [inv.runner for inv in result.invocations] == [runner]
    # ...and the pre-screen passes them on to the full path.
    assert any(word in screen_text(command.encode()) for word in (b"test", b"tox", b"lanes"))


@pytest.mark.parametrize(
    "command",
    ["lanes affected --run", "lanes affected --base main --run", "uv run lanes affected --run"],
)
def test_the_affected_selection_is_a_filtered_run(command: str) -> None:
    # The tests a diff needs, never the whole suite: the economy must not count
    # it as full, and it must never record a suite PASS.
    result = classify(command)
    assert result.scope == "filtered"
    assert [inv.runner for inv in result.invocations] == ["lanes"]


def test_arguments_handed_on_by_a_wrapper_narrow_it() -> None:
    result = classify("tox -e py311 -- tests/unit/test_a.py")
    assert result.scope == "filtered"
    assert result.invocations[0].selectors == ("tests/unit/test_a.py",)


@pytest.mark.parametrize(
    "command", ["nox -s lint", "make lint", "lanes report", "lanes affected", "echo tox"]
)
def test_other_wrapper_commands_are_no_test_runs(command: str) -> None:
    assert classify(command).scope == "none"


def test_test_commands_are_configurable(tmp_path: Path) -> None:
    config = parse_config({"governor": {"test_commands": ["just ci"]}}, root=tmp_path)
    forms = config.governor.test_commands
    assert forms == ("just ci",)
    assert classify("just ci", tmp_path, forms).scope == "full"
    # The configured list replaces the defaults.
    assert classify("tox", tmp_path, forms).scope == "none"


@pytest.mark.parametrize("value", ["tox", [""], [1], ["  "]])
def test_bad_test_commands_are_config_errors_with_a_hint(tmp_path: Path, value: object) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config({"governor": {"test_commands": value}}, root=tmp_path)
    assert "test_commands" in str(info.value)
    assert info.value.hint


def test_a_configured_test_command_reaches_the_full_path(tmp_path: Path) -> None:
    from lanes.governor.config_loader import load  # noqa: PLC0415  # the full path's half of the screen

    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.lanes.governor]\ntest_commands = ["just ci"]\n', encoding="utf-8")
    assert b"just" in load(str(pyproject), str(tmp_path)).words


@pytest.mark.integration
def test_the_hook_counts_the_projects_own_test_commands(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        '[tool.lanes.governor]\nmax_full = 0\nescalate_at = 1\ntest_commands = ["just ci"]\n',
    )
    xdg = tmp_path / "xdg"
    counted = run_hook(payload("just ci", event="PostToolUse", cwd=repo), xdg=xdg)
    assert counted.returncode == 0
    assert "additionalContext" in counted.stdout  # a full run past max_full: advice
    # The project's list replaces the defaults: tox is no test run here.
    other = run_hook(payload("tox -e py311", event="PostToolUse", cwd=repo, session="s-2"), xdg=xdg)
    assert other.stdout == ""


@pytest.mark.integration
def test_a_broken_config_is_told_once_as_advice(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", "[tool.lanes.governor]\nmax_fulll = 2\n")
    xdg = tmp_path / "xdg"
    outputs = [
        run_hook(payload("ls -la", event="PostToolUse", cwd=repo, session=f"s-{i}"), xdg=xdg).stdout
        for i in range(3)
    ]
    told = [out for out in outputs if "cannot be loaded" in out]
    assert len(told) == 1, outputs
    assert "max_fulll" in told[0]
    # An edit that leaves it broken is a new version: told again, once.
    (repo / "pyproject.toml").write_text("[tool.lanes.governor]\nmax_full = -1\n", "utf-8")
    again = [
        run_hook(payload("ls -la", event="PostToolUse", cwd=repo, session=f"t-{i}"), xdg=xdg).stdout
        for i in range(2)
    ]
    assert sum("cannot be loaded" in out for out in again) == 1, again
