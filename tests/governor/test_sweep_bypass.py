"""Ways around the full-sweep gate: paths written the long
way round, selectors that select everything, argument files, nesting past
what the classifier follows, and runner names built at run time. Each is a
full sweep to the gate, or blocked as one it cannot see through."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings

from lanes.fuzz.adapters import sweep_rule_blocks
from lanes.governor.classify.classifier import classify
from lanes.strategies.shell import sweep_bypass_commands

if TYPE_CHECKING:
    from tests.governor.governor_helpers import Project

BYPASSES = [
    "pytest tests/../tests",
    "pytest tests/unit/..",
    "pytest ./tests//unit/../",
    "pytest -k ''",
    "pytest @args.txt",
    "pytest @missing-args.txt",
    "echo " + "$(" * 13 + "pytest" + ")" * 13,
    "$(echo pytest)",
    "`echo pytest`",
    "p=pytest; $p",
    "p=py; q=test; $p$q -q",
    "export R=pytest; $R",
    '"$(which pytest)"',
    "$RUNNER",
    '"$PY" -m pytest',
    'bash -c "$SCRIPT"',
    # Found by the fuzz lane's sweep-gate target: env took the program for
    # more assignments.
    "env A=1 $(command -v pytest) -q",
    'env A=1 "$PY" -m pytest',
    # An override exported after the command does not apply to it.
    '$RUNNER; export LANES_FULL_SWEEP_OK=1 LANES_OVERRIDE_REASON="release candidate ok"',
]


@pytest.mark.parametrize("command", BYPASSES)
def test_sweep_bypasses_are_blocked(project: Project, command: str) -> None:
    (project.root / "args.txt").write_text("tests\n", encoding="utf-8")
    decision = project.pre(command)
    assert (decision.action, decision.step) == ("block", "sweep"), decision


def test_nesting_past_what_the_classifier_follows_is_blocked_not_allowed(project: Project) -> None:
    deep_bash = "pytest"
    for _ in range(9):
        deep_bash = "bash -c " + _shell_quote(deep_bash)
    decision = project.pre(deep_bash)
    assert (decision.action, decision.step) == ("block", "sweep")
    assert "could not read it through" in decision.message
    assert ", and it could run a gated runner)." in decision.message


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


@pytest.mark.parametrize(
    "command",
    [
        "pytest tests/unit/test_a.py",
        "pytest -k test_one tests/unit",
        "pytest -k 'a and not b'",
        "pytest @args.txt",  # the file names one test file
        "$EDITOR notes.txt",
        '"$(npm bin)"/jest --ci',
        "p=ruff; $p check .",
        "env $(cat .env | xargs) npm test",
        "echo $(git rev-parse HEAD) && pytest tests/unit/test_a.py",
        "pytest tests/unit/test_a.py::t1 tests/unit/test_a.py::t2 tests/unit/test_a.py::t3",
    ],
)
def test_what_narrows_or_cannot_run_a_gated_runner_still_passes(
    project: Project, command: str
) -> None:
    (project.root / "args.txt").write_text("tests/unit/test_a.py\n", encoding="utf-8")
    assert project.pre(command).step != "sweep"


def test_node_ids_of_one_file_are_one_path_in_classify_and_the_gate(project: Project) -> None:
    command = "pytest tests/unit/test_a.py::a tests/unit/test_a.py::b tests/unit/test_a.py::c"
    assert classify(command, project.root).scope == "filtered"
    assert project.pre(command).step != "sweep"
    # Three different files still make a sweep.
    three = "pytest tests/unit/test_a.py tests/integ/test_a.py tests/other.py"
    assert project.pre(three).step == "sweep"


def test_the_override_still_opens_a_computed_runner(project: Project) -> None:
    command = 'LANES_FULL_SWEEP_OK=1 LANES_OVERRIDE_REASON="release candidate check" $RUNNER'
    decision = project.pre(command)
    assert decision.action == "allow"
    assert project.audit()[-1]["reason"] == "release candidate check"


@pytest.mark.parametrize("expression", ["not nothing", "x or not y", "not (a and b)"])
def test_a_keyword_filter_with_words_is_left_to_the_pytest_plugin(
    project: Project, expression: str
) -> None:
    # The held-out corpus of real commands: `-k 'not X'` is a filter to the hook;
    # the governor's pytest plugin stops it when what it leaves is a sweep
    # (tests/governor/test_runner_plugin.py, -k 'not test_0_0').
    command = f"pytest -k '{expression}'"
    assert classify(command, project.root).scope == "filtered"
    assert project.pre(command).action == "allow"


@settings(max_examples=30, deadline=None)
@given(sweep_bypass_commands())
def test_no_generated_sweep_in_disguise_gets_past_the_rule(command: str) -> None:
    # The fuzz lane's `sweep-gate` target runs the same oracle at length.
    sweep_rule_blocks(command)
