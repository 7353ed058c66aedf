"""The fuzz lane in a user's project, as the user runs it: their targets only,
modules imported from the project root, printed commands that work as printed,
and a promoted case that fails the user's own ``pytest`` until it is fixed."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from lanes.fuzz.artifacts import SavedCase, append_to_corpus

pytestmark = pytest.mark.integration

LANES = str(Path(sys.executable).with_name("lanes"))

BUGGY = """\
class ParseError(ValueError):
    hint = "write key=value with a whole number"


def parse(text):
    if text[0] == "#":  # the bug: "" raises a bare IndexError
        return {}
    key, sep, value = text.partition("=")
    if not sep or not value.isdecimal():
        raise ParseError(f"not key=number: {text!r}")
    return {key: int(value)}
"""

FIXED = BUGGY.replace('if text[0] == "#":', 'if text.startswith("#"):')

PYPROJECT = """\
[project]
name = "kv"
version = "0.1"

[tool.pytest.ini_options]
testpaths = ["tests"]

[tool.lanes.fuzz]
iterations = 40
case_budget = 5.0

[tool.lanes.fuzz.targets.kv]
callable = "kv.parser:parse"
strategy = "tests.fuzzing:texts"
error = "kv.parser:ParseError"
"""


def _project(root: Path) -> Path:
    root.mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (root / "kv").mkdir()
    (root / "kv" / "__init__.py").write_text("", encoding="utf-8")
    (root / "kv" / "parser.py").write_text(BUGGY, encoding="utf-8")
    (root / "tests").mkdir()
    # A strategy module under tests/ without __init__.py: importable only
    # from the project root, as pytest's rootdir makes it.
    (root / "tests" / "fuzzing.py").write_text(
        "from hypothesis import strategies as st\n\ntexts = st.text(max_size=12)\n",
        encoding="utf-8",
    )
    (root / "tests" / "test_kv.py").write_text(
        "from kv.parser import parse\n\n\ndef test_parse():\n    assert parse('a=1') == {'a': 1}\n",
        encoding="utf-8",
    )
    return root


def _env() -> dict[str, str]:
    # As in a user's shell: no PYTHONPATH pointing at the project.
    blocked = ("PYTHONPATH", "GITHUB_", "LANES_", "PYTEST_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(blocked)}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=300, check=False
    )


def _printed(stdout: str, label: str) -> list[str]:
    [line] = [line for line in stdout.splitlines() if line.strip().startswith(f"{label}:")]
    return shlex.split(line.split(":", 1)[1])


def test_a_user_project_fuzzes_its_own_targets_and_its_pytest_replays_the_promoted_case(
    tmp_path: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path / "kv-project")
    found = _run([LANES, "fuzz"], root)
    assert found.returncode == 1, found.stdout + found.stderr
    envelope = json.loads((root / "envelopes" / "fuzz.json").read_text(encoding="utf-8"))
    # Only the project's target: lanekit's own parsers are not the user's code.
    assert [t["name"] for t in envelope["data"]["targets"]] == ["kv"]
    # Nor is lanekit's goal for its own watchdog: figures, no goal to miss.
    assert envelope["data"]["watchdog_overhead"]["goal"] is None
    assert {t["overhead"]["goal"] for t in envelope["data"]["targets"]} == {None}
    [failure] = envelope["data"]["failures"]
    assert failure["kind"] == "untyped"
    assert failure["error_type"] == "IndexError"
    assert failure["input_preview"] == "''"

    # The repro line is the promote line without --append-corpus: one run covers both.
    assert _printed(found.stdout, "promote") == [
        *_printed(found.stdout, "repro"),
        "--append-corpus",
    ]
    promote = _run(_printed(found.stdout, "promote"), root)
    assert promote.returncode == 1, promote.stdout + promote.stderr
    assert "the unit suite will fail until the parser is fixed" in promote.stdout
    assert (root / "baselines" / "fuzz-regressions.json").is_file()

    # The user's own pytest (the whole suite, from the project root) holds the promise.
    monkeypatch.chdir(root)
    result = pytester.run(sys.executable, "-m", "pytest", "-p", "lanes.fuzz")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*promoted fuzz case * of target 'kv' (was untyped) fails: untyped*"]
    )

    (root / "kv" / "parser.py").write_text(FIXED, encoding="utf-8")
    fixed = _run([sys.executable, "-m", "pytest", "-p", "lanes.fuzz"], root)
    assert fixed.returncode == 0, fixed.stdout
    assert "2 passed" in fixed.stdout


def test_a_project_without_targets_is_told_how_to_declare_one(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "empty"\n', encoding="utf-8")
    proc = _run([LANES, "fuzz", "--iterations", "5"], root)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "declares no fuzz targets" in proc.stderr
    assert "--builtin" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_corpus_joins_whole_suite_runs_only_unless_asked(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(pytester.path / "kv-project")
    case = SavedCase(target="kv", value="", kind="untyped", source=root / "case.json")
    append_to_corpus(root / "baselines" / "fuzz-regressions.json", case, note="IndexError")
    monkeypatch.chdir(root)
    pytester.syspathinsert(root)  # as `python -m pytest` from the root would
    runs = {
        "whole suite": ([], 1),
        "the testpaths directory": (["tests"], 1),
        "the rootdir": (["."], 1),
        "an explicit path": (["tests/test_kv.py"], 0),
        "an explicit path, --fuzz-corpus on": (["--fuzz-corpus", "on", "tests/test_kv.py"], 1),
        "whole suite, --fuzz-corpus off": (["--fuzz-corpus", "off"], 0),
    }
    for label, (args, failed) in runs.items():
        # Whether the already-imported plugin warns depends on test order: ignore it.
        result = pytester.runpytest_inprocess(
            "-W", "ignore::pytest.PytestAssertRewriteWarning", "-p", "lanes.fuzz", *args
        )
        assert result.parseoutcomes().get("failed", 0) == failed, label
