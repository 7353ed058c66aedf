"""`lanes affected --run` exits by what ran: a gate whose command cannot start is skipped, named."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.affected.selfcheck import FILES
from lanes.cli import main
from tests.support.documents import read_envelope
from tests.support.git import make_repo

if TYPE_CHECKING:
    from pathlib import Path

# A gate whose program is not installed anywhere: nox absent from the environment.
_GATE = '\n[tool.lanes.affected.gates.lint]\ncommand = "lanes-absent-linter -s lint"\ninputs = ["*.py"]\n'


@pytest.mark.integration
def test_a_gate_that_cannot_start_is_skipped_and_the_tests_decide(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: the plan exited 1 ("could not start", 127) whatever the tests did.
    make_repo(tmp_path, {**FILES, "pyproject.toml": FILES["pyproject.toml"] + _GATE}, "base")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tests/test_leaf.py").write_text(FILES["tests/test_leaf.py"] + "# edit\n")
    assert main(["affected", "--run"]) == 0
    envelope = read_envelope(tmp_path / "envelopes/affected.json")
    assert envelope["result"] == "pass"
    suite, gate = envelope["data"]["runs"]
    assert (suite["what"], suite["exit_code"], "skipped" in suite) == ("suite tests", 0, False)
    assert gate["what"] == "gate lint"
    assert "'lanes-absent-linter' is not installed in this environment" in gate["skipped"]
    assert "-m pip install lanes-absent-linter" in gate["skipped"]
    assert "gate lint skipped: 'lanes-absent-linter' is not installed" in capsys.readouterr().err


@pytest.mark.integration
def test_a_skipped_gate_does_not_hide_a_failing_test(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_repo(tmp_path, {**FILES, "pyproject.toml": FILES["pyproject.toml"] + _GATE}, "base")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg/leaf.py").write_text("def f(x: int) -> int:\n    return x - 1\n")
    assert main(["affected", "--run"]) == 1
    envelope = read_envelope(tmp_path / "envelopes/affected.json")
    assert [("skipped" in run, run["exit_code"] == 0) for run in envelope["data"]["runs"]] == [
        (False, False),
        (True, False),
    ]


@pytest.mark.integration
def test_without_a_declared_suite_the_full_set_runs_what_pytest_collects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # pluggy 1.6.0's shape: tests in testing/, found through tox.ini's testpaths,
    # and no suite declared. Before: the full set ran lanekit's default
    # `pytest tests` ("file or directory not found: tests", exit 4): the plan failed.
    files = {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n' + _GATE,
        "tox.ini": "[pytest]\ntestpaths = testing\npythonpath = .\n",
        "pkg/__init__.py": "",
        "pkg/leaf.py": "def f(x: int) -> int:\n    return x + 1\n",
        "testing/test_leaf.py": "from pkg.leaf import f\n\n\ndef test_f() -> None:\n"
        "    assert f(1) == 2\n",
    }
    make_repo(tmp_path, files, "base")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tox.ini").write_text(files["tox.ini"] + "addopts = -q\n")
    assert main(["affected", "--run"]) == 0
    envelope = read_envelope(tmp_path / "envelopes/affected.json")
    assert envelope["data"]["plan"]["full"] is True
    assert envelope["data"]["plan"]["suites"][0]["command"] == ["pytest"]
    suite = envelope["data"]["runs"][0]
    assert (suite["what"], suite["exit_code"]) == ("suite tests", 0)
    assert "affected: suite tests: pytest" in capsys.readouterr().err
