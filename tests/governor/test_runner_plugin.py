"""The governor's pytest plugin in real pytest sessions (pytester): inert for a
human, the sweep gate, dedup and record for an agent."""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING

import pytest

from lanes.governor.runner.exits import RunnerExit
from tests.governor.runner_helpers import (
    REASON,
    audit_lines,
    clear_agent,
    ledger,
    write_project,
)
from tests.support.git import git

if TYPE_CHECKING:
    from pathlib import Path

pytest_plugins = ["pytester"]


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """An in-process pytest run as the agent's own: pytest sets
    PYTEST_CURRENT_TEST for this test's call phase (it sets it again for the
    teardown), and with it the plugin would take the inner run for part of
    this test and stay inert."""
    os.environ.pop("PYTEST_CURRENT_TEST", None)
    return pytester.runpytest(*args)


@pytest.fixture
def human(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A two-suite git project (4 unit files, 2 integ files, 3 tests each),
    run from a human's shell."""
    clear_agent(monkeypatch, tmp_path / "xdg")
    return write_project(pytester.path)


@pytest.fixture
def agent(human: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The same project, run from Claude Code's shell tool."""
    monkeypatch.setenv("CLAUDECODE", "1")
    return human


def test_a_humans_full_run_is_never_stopped(pytester: pytest.Pytester, human: Path) -> None:
    result = run(pytester)
    result.assert_outcomes(passed=18)
    assert ledger(human) == {}


def test_an_agents_full_run_stops_before_the_first_test(
    pytester: pytest.Pytester, agent: Path
) -> None:
    result = run(pytester)
    assert result.ret == RunnerExit.SWEEP
    result.assert_outcomes()
    result.stdout.fnmatch_lines(
        [
            (
                "*full sweep stopped before the first test: this run collected 12 items in 4 files"
                " = 100 % of suite unit*"
            ),
            "*LANES_FULL_SWEEP_OK=1*",
        ]
    )
    assert ledger(agent) == {}


@pytest.mark.parametrize(
    "variable", ["CODEX_THREAD_ID=t-1", "CODEX_CI=1", "CODEX_SANDBOX=seatbelt", "LANES_AGENT=ci"]
)
@pytest.mark.usefixtures("human")
def test_every_agent_signal_turns_the_gate_on(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    name, _, value = variable.partition("=")
    monkeypatch.setenv(name, value)
    assert run(pytester, "tests/unit").ret == RunnerExit.SWEEP


@pytest.mark.usefixtures("agent")
def test_a_focused_run_runs(pytester: pytest.Pytester) -> None:
    result = run(pytester, "tests/unit/test_unit0.py", "tests/unit/test_unit1.py")
    result.assert_outcomes(passed=6)


@pytest.mark.usefixtures("agent")
def test_a_small_suite_run_whole_is_a_focused_run(pytester: pytest.Pytester) -> None:
    # integ has 2 files, fewer than sweep_min_paths (3): not a sweep.
    run(pytester, "tests/integ").assert_outcomes(passed=6)


def test_cd_into_a_subdirectory_and_dot_dot_is_still_the_whole_suite(
    pytester: pytest.Pytester, agent: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(agent / "tests" / "unit")
    assert run(pytester, "..").ret == RunnerExit.SWEEP


@pytest.mark.usefixtures("agent")
def test_k_not_x_is_judged_by_what_it_deselects(pytester: pytest.Pytester) -> None:
    # 11 of unit's 12 items (92 %): a sweep in all but name.
    result = run(pytester, "tests/unit", "-k", "not test_0_0")
    assert result.ret == RunnerExit.SWEEP
    result.stdout.fnmatch_lines(["*11 items in 4 files = 92 % of suite unit (by items)*"])
    # Most of it deselected: a focused run.
    run(pytester, "tests/unit", "-k", "test_0_").assert_outcomes(passed=3, deselected=9)


@pytest.mark.usefixtures("agent")
def test_lf_with_nothing_failed_runs_everything_so_it_is_a_sweep(pytester: pytest.Pytester) -> None:
    assert run(pytester, "--lf").ret == RunnerExit.SWEEP


def test_collect_only_is_never_stopped_nor_recorded(pytester: pytest.Pytester, agent: Path) -> None:
    result = run(pytester, "--co")
    assert result.ret == 0
    assert ledger(agent) == {}


def test_the_override_runs_audits_once_and_records_pass_then_dedups(
    pytester: pytest.Pytester, agent: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANES_FULL_SWEEP_OK", "1")
    monkeypatch.setenv("LANES_OVERRIDE_REASON", REASON)
    run(pytester, "tests/unit").assert_outcomes(passed=12)
    audits = audit_lines(agent)
    assert [(a["event"], a["reason"], a["source"]) for a in audits] == [
        ("full-sweep-override", REASON, "runner")
    ]
    entry = ledger(agent)["unit"]
    assert (entry["status"], entry["source"], entry["agent"]) == ("PASS", "runner", "claude")
    assert entry["git_head"] == git(agent, "rev-parse", "HEAD").strip()
    # The same run on the same tree: green already.
    again = run(pytester, "tests/unit")
    assert again.ret == RunnerExit.DEDUP
    again.stdout.fnmatch_lines(
        ["*unit green * ago by claude on this exact tree*LANES_TEST_FORCE=1*"]
    )
    again.assert_outcomes()
    # The deduplicated run never ran: its override is not audited again.
    assert len(audit_lines(agent)) == 1
    # Forced, it runs, and that run's override is audited.
    monkeypatch.setenv("LANES_TEST_FORCE", "1")
    run(pytester, "tests/unit").assert_outcomes(passed=12)
    assert len(audit_lines(agent)) == 2


def test_a_short_reason_is_refused_and_says_why(
    pytester: pytest.Pytester, agent: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANES_FULL_SWEEP_OK", "1")
    monkeypatch.setenv("LANES_OVERRIDE_REASON", "because")
    result = run(pytester, "tests/unit")
    assert result.ret == RunnerExit.SWEEP
    result.stdout.fnmatch_lines(["*LANES_OVERRIDE_REASON is 7 characters; at least 15*"])
    assert audit_lines(agent) == []


def test_a_failing_whole_suite_records_fail(
    pytester: pytest.Pytester, agent: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (agent / "tests" / "unit" / "test_unit3.py").write_text("def test_x():\n    assert 0\n")
    monkeypatch.setenv("LANES_FULL_SWEEP_OK", "1")
    monkeypatch.setenv("LANES_OVERRIDE_REASON", REASON)
    run(pytester, "tests/unit").assert_outcomes(passed=9, failed=1)
    assert ledger(agent)["unit"]["status"] == "FAIL"


@pytest.mark.parametrize(
    "args",
    [
        ("tests/unit", "--deselect", "tests/unit/test_unit0.py::test_0_0"),
        ("tests/unit", "-k", "not test_0_0"),
        ("tests/unit", "--ignore", "tests/unit/test_unit0.py"),
        ("tests/unit", "-m", "not slow"),
    ],
    ids=["deselect", "k-not", "ignore", "m"],
)
def test_a_narrowed_run_never_records_a_suite_pass(
    pytester: pytest.Pytester, agent: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    monkeypatch.setenv("LANES_FULL_SWEEP_OK", "1")
    monkeypatch.setenv("LANES_OVERRIDE_REASON", REASON)
    result = run(pytester, *args)
    assert result.ret == 0
    assert ledger(agent) == {}


def test_an_ignore_outside_the_suite_leaves_it_whole(
    pytester: pytest.Pytester, agent: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Real projects ignore setup.py in addopts (wcwidth: `--ignore=setup.py
    # --ignore=.tox`): the suite still runs whole, is recorded and deduped.
    pyproject = agent / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text()
        + '\n[tool.pytest.ini_options]\naddopts = "--ignore=setup.py --ignore=.tox"\n'
    )
    git(agent, "commit", "-qam", "addopts")
    monkeypatch.setenv("LANES_FULL_SWEEP_OK", "1")
    monkeypatch.setenv("LANES_OVERRIDE_REASON", REASON)
    assert run(pytester, "tests/unit").ret == 0
    assert ledger(agent)["unit"]["status"] == "PASS"
    assert run(pytester, "tests/unit").ret == RunnerExit.DEDUP


def test_enforce_off_leaves_agents_alone(pytester: pytest.Pytester, agent: Path) -> None:
    pyproject = agent / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + '\n[tool.lanes.governor]\nenforce = "off"\n')
    run(pytester).assert_outcomes(passed=18)


def test_enforce_always_governs_a_human_too(pytester: pytest.Pytester, human: Path) -> None:
    pyproject = human / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + '\n[tool.lanes.governor]\nenforce = "always"\n')
    assert run(pytester).ret == RunnerExit.SWEEP


def test_an_unconfigured_project_is_gated_on_its_test_root(
    pytester: pytest.Pytester, agent: Path
) -> None:
    (agent / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    result = run(pytester)
    assert result.ret == RunnerExit.SWEEP
    result.stdout.fnmatch_lines(["*18 items in 6 files = 100 % of suite *"])


@pytest.mark.usefixtures("agent")
def test_a_run_inside_a_running_test_is_left_to_the_outer_session(
    pytester: pytest.Pytester,
) -> None:
    # pytest set PYTEST_CURRENT_TEST for this very test: the inner run is a
    # part of it (pytester, a test spawning pytest), not an agent's run.
    assert os.environ["PYTEST_CURRENT_TEST"]
    pytester.runpytest().assert_outcomes(passed=18)


@pytest.mark.integration  # starts xdist workers: real processes, seconds each
def test_under_xdist_the_controller_stops_a_sweep_before_any_test(
    pytester: pytest.Pytester, agent: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run(pytester, "-n", "2", "tests/unit")
    assert result.ret == RunnerExit.SWEEP
    result.assert_outcomes()
    # Approved, the workers run it and the controller records it.
    monkeypatch.setenv("LANES_FULL_SWEEP_OK", "1")
    monkeypatch.setenv("LANES_OVERRIDE_REASON", REASON)
    run(pytester, "-n", "2", "tests/unit").assert_outcomes(passed=12)
    assert ledger(agent)["unit"]["status"] == "PASS"
    # -k under xdist: the workers' deselection is not reported, so the
    # options alone make it partial (never recorded) — and still a sweep.
    monkeypatch.setenv("LANES_TEST_FORCE", "1")
    run(pytester, "-n", "2", "tests/integ", "-k", "not test_0_0").assert_outcomes(passed=5)
    assert "integ" not in ledger(agent)


@pytest.mark.usefixtures("agent")
def test_a_mutation_tools_runs_are_left_to_the_mutation_lane(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # mutmut sets MUTANT_UNDER_TEST around every run of the suite it makes.
    monkeypatch.setenv("MUTANT_UNDER_TEST", "")
    run(pytester).assert_outcomes(passed=18)


def test_an_override_the_hook_just_audited_is_audited_once(
    pytester: pytest.Pytester, agent: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With the hook installed, PreToolUse audits the override first; the
    # plugin's run of the same command is the same override, not a second.
    state = agent / ".git" / "lanes"
    state.mkdir(exist_ok=True)
    hook_line = {"ts": time.time(), "event": "full-sweep-override", "reason": REASON}
    (state / "audit.jsonl").write_text(json.dumps(hook_line) + "\n")
    monkeypatch.setenv("LANES_FULL_SWEEP_OK", "1")
    monkeypatch.setenv("LANES_OVERRIDE_REASON", REASON)
    run(pytester, "tests/unit").assert_outcomes(passed=12)
    assert len(audit_lines(agent)) == 1
    # Another reason is another override: audited by the runner.
    monkeypatch.setenv("LANES_OVERRIDE_REASON", REASON + ", again")
    monkeypatch.setenv("LANES_TEST_FORCE", "1")
    run(pytester, "tests/unit").assert_outcomes(passed=12)
    assert [a.get("source") for a in audit_lines(agent)] == [None, "runner"]
