"""The ways an agent can start pytest past the hook's shell-string check, run through a real bash with CLAUDECODE=1 and the
hook NOT installed: each either runs a genuinely partial set or stops before
the first test with the sweep message — and runs normally for a human."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lanes.governor.runner.exits import RunnerExit
from tests.governor.runner_helpers import AGENT_VARIABLES, write_project

# Every form runs the whole test root (or the whole unit suite) of the project.
# find and xargs report a command's failure their own way (0, 123).
SWEEPS = {
    "lf-nothing-failed": "pytest --lf",
    "cd-dot-dot": "cd tests/unit && pytest ..",
    "isolated-module": "python -Im pytest",
    "exported-variable": "export RUNNER=pytest; $RUNNER",
    "printf-name": '"$(printf pyt)est"',
    "split-name": "a=pyt;b=est;$a$b",
    "bash-c-script": 'export SCRIPT=pytest; bash -c "$SCRIPT"',
    "python-c-main": "python -c 'import pytest, sys; sys.exit(pytest.main())'",
    "setsid": "setsid -w pytest",
    "find-exec": "find . -maxdepth 1 -name tests -exec pytest {} \\;",
    "glob": "pytest t*s",
    "brace": "pytest {tests,}",
    "tilde-plus": "pytest ~+/tests",
    "alias": "shopt -s expand_aliases\nalias t=pytest\nt",
    "xargs": "echo tests | xargs -I{} pytest {}",
}
if shutil.which("script"):
    SWEEPS["script"] = "script -qec pytest /dev/null"

PARTIAL = "pytest tests/unit/test_unit0.py tests/unit/test_unit1.py"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("bypass") / "repo")


def bash(repo: Path, command: str, **variables: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in AGENT_VARIABLES}
    # The test environment's python and pytest first, as in an activated venv.
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["XDG_STATE_HOME"] = str(repo.parent / "xdg")
    env.update(variables)
    return subprocess.run(
        ["bash", "-c", command],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _form(command: str) -> str:
    return next(name for name, text in SWEEPS.items() if text == command)


@pytest.mark.integration  # a real bash and pytest per form
@pytest.mark.parametrize("command", SWEEPS.values(), ids=SWEEPS.keys())
def test_every_bypass_form_stops_before_the_first_test(repo: Path, command: str) -> None:
    proc = bash(repo, command, CLAUDECODE="1")
    output = proc.stdout + proc.stderr
    expected = {"find-exec": 0, "xargs": 123}.get(_form(command), RunnerExit.SWEEP)
    assert proc.returncode == expected, output
    assert "full sweep stopped before the first test" in output
    assert " passed" not in output


@pytest.mark.integration  # a real bash and pytest per form
@pytest.mark.parametrize("command", [SWEEPS["printf-name"], SWEEPS["python-c-main"]])
def test_the_same_forms_run_for_a_human(repo: Path, command: str) -> None:
    proc = bash(repo, command)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "18 passed" in proc.stdout


@pytest.mark.integration  # a real bash and pytest
def test_a_genuinely_partial_run_runs_for_an_agent(repo: Path) -> None:
    proc = bash(repo, PARTIAL, CLAUDECODE="1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "6 passed" in proc.stdout
