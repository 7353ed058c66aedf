"""`lanes affected` is never silently empty: pytest's collection rules decide what a test is,
"quiet" holds only outside test directories, and a computed import fails open, named.

Each test is a silent miss measured on a real project, rebuilt small.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from lanes.affected.testmap import read_map
from lanes.cli import main
from tests.affected.recordings import NO_HYPOTHESIS
from tests.support.git import make_repo

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

_LEAF = "def f(x: int) -> int:\n    return x + 1\n"


def _plan(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    monkeypatch.chdir(root)
    assert main(["affected", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert isinstance(plan, dict)
    return plan


def _tests(plan: dict[str, Any]) -> dict[str, list[str]]:
    return {t["file"]: [r["rule"] for r in t["reasons"]] for t in plan["tests"]}


def test_tests_inside_the_package_are_found_through_testpaths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # No [tool.lanes]: lanekit's default suite looks in tests/, pytest in pkg/.
    # Before: "tests (0/0 test files): none: no test depends on what changed".
    make_repo(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n\n'
            '[tool.pytest.ini_options]\ntestpaths = ["pkg"]\n',
            "pkg/__init__.py": "",
            "pkg/dicts.py": _LEAF,
            "pkg/tests/__init__.py": "",
            "pkg/tests/test_dicts.py": "from pkg.dicts import f\n\n\ndef test_f() -> None:\n    assert f(1) == 2\n",
        },
        "base",
    )
    (tmp_path / "pkg/dicts.py").write_text(_LEAF.replace("+ 1", "+ 2"))
    plan = _plan(tmp_path, capsys, monkeypatch)
    assert _tests(plan) == {"pkg/tests/test_dicts.py": ["import graph"]}
    assert plan["counts"]["total"] == 1
    assert [s["command"] for s in plan["suites"]] == [["pytest", "pkg/tests/test_dicts.py"]]


def test_a_product_module_named_like_a_test_is_not_a_test_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # lanes/governor/classify/test_roots.py matches test_*.py, but pytest's
    # testpaths = ["tests"] never collects it: a change to it must select its importers.
    make_repo(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n\n'
            '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
            "pkg/__init__.py": "",
            "pkg/test_roots.py": _LEAF,
            "tests/test_uses_roots.py": "from pkg.test_roots import f\n\n\ndef test_f() -> None:\n    assert f(1) == 2\n",
        },
        "base",
    )
    (tmp_path / "pkg/test_roots.py").write_text(_LEAF.replace("+ 1", "+ 2"))
    plan = _plan(tmp_path, capsys, monkeypatch)
    assert plan["changed"][0]["rule"] == "import graph"
    assert _tests(plan) == {"tests/test_uses_roots.py": ["import graph"]}
    assert plan["counts"]["total"] == 1


def test_a_data_file_under_the_tests_is_not_quiet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # boltons' tests/jsonl_test_data.txt, read by test_jsonutils.py: "*.txt" is
    # quiet by default, and the plan said "no test depends on what changed".
    make_repo(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n',
            "pkg/__init__.py": "",
            "tests/jsonl_test_data.txt": '{"a": 1}\n',
            "tests/test_json.py": "from pathlib import Path\n\n\ndef test_read() -> None:\n"
            "    assert Path(__file__).with_name('jsonl_test_data.txt').read_text()\n",
            "docs/notes.txt": "prose\n",
        },
        "base",
    )
    (tmp_path / "tests/jsonl_test_data.txt").write_text("broken\n")
    (tmp_path / "docs/notes.txt").write_text("more prose\n")
    plan = _plan(tmp_path, capsys, monkeypatch)
    rules = {c["path"]: (c["rule"], c["detail"]) for c in plan["changed"]}
    assert rules["tests/jsonl_test_data.txt"][0] == "test data"
    assert _tests(plan) == {"tests/test_json.py": ["test data"]}
    # Prose outside every test directory stays quiet, and the verdict names the rule.
    rule, detail = rules["docs/notes.txt"]
    assert rule == "quiet"
    assert "outside every test directory" in detail


def test_a_doctest_file_collected_by_doctest_glob_is_a_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    make_repo(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n\n'
            '[tool.pytest.ini_options]\naddopts = ["--doctest-glob=*.rst"]\n',
            "docs/usage.rst": ">>> 1 + 1\n2\n",
            "tests/test_x.py": "def test_x() -> None:\n    pass\n",
        },
        "base",
    )
    (tmp_path / "docs/usage.rst").write_text(">>> 1 + 1\n3\n")
    assert _tests(_plan(tmp_path, capsys, monkeypatch)) == {"docs/usage.rst": ["test file"]}


def test_a_computed_import_fails_open_and_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The test reaches pkg.leaf only through importlib.import_module(name) with
    # a computed name: before, it was not selected and no blind spot was shown.
    make_repo(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n',
            "pkg/__init__.py": "",
            "pkg/leaf.py": _LEAF,
            "pkg/other.py": "X = 1\n",
            "tests/test_dynamic.py": "import importlib\n\n\ndef test_f() -> None:\n"
            "    name = '.'.join(['pkg', 'leaf'])\n"
            "    assert importlib.import_module(name).f(1) == 2\n",
            "tests/test_other.py": "from pkg.other import X\n\n\ndef test_x() -> None:\n    assert X\n",
        },
        "base",
    )
    (tmp_path / "pkg/leaf.py").write_text(_LEAF.replace("+ 1", "+ 2"))
    plan = _plan(tmp_path, capsys, monkeypatch)
    assert _tests(plan) == {"tests/test_dynamic.py": ["computed import"]}
    [reason] = plan["tests"][0]["reasons"]
    assert "tests/test_dynamic.py:6" in reason["detail"]
    assert reason["detail"].endswith(
        "could import the modules named in tests/test_dynamic.py (1) and below"
    )
    assert plan["blind_spots"] == [
        {"file": "tests/test_dynamic.py", "line": 6, "what": "import_module(...)"}
    ]


def test_a_computed_import_with_a_literal_prefix_reaches_only_that_package(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    make_repo(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n',
            "pkg/__init__.py": "",
            "pkg/plugins/__init__.py": "",
            "pkg/plugins/one.py": _LEAF,
            "pkg/other.py": "X = 1\n",
            "pkg/loader.py": "def load(name: str) -> object:\n"
            "    return __import__(f'pkg.plugins.{name}', fromlist=['f'])\n",
            "tests/test_loader.py": "from pkg.loader import load\n\n\ndef test_load() -> None:\n"
            "    assert load('one')\n",
        },
        "base",
    )
    (tmp_path / "pkg/plugins/one.py").write_text(_LEAF.replace("+ 1", "+ 2"))
    (tmp_path / "pkg/other.py").write_text("X = 2\n")
    plan = _plan(tmp_path, capsys, monkeypatch)
    assert _tests(plan) == {"tests/test_loader.py": ["computed import"]}
    selected = {c["path"]: c["tests"] for c in plan["changed"]}
    assert selected == {"pkg/other.py": 0, "pkg/plugins/one.py": 1}
    assert plan["blind_spots"] == [
        {
            "file": "pkg/loader.py",
            "line": 2,
            "what": "computed __import__(...): could import modules under pkg.plugins",
        }
    ]


def test_no_test_file_at_all_fails_open_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    make_repo(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n\n'
            '[tool.pytest.ini_options]\npython_files = ["check_*.py"]\n',
            "pkg/__init__.py": "",
            "pkg/leaf.py": _LEAF,
        },
        "base",
    )
    (tmp_path / "pkg/leaf.py").write_text(_LEAF.replace("+ 1", "+ 2"))
    plan = _plan(tmp_path, capsys, monkeypatch)
    assert plan["full"] is True
    [reason] = plan["full_reasons"]
    assert reason["changed"] == "(test discovery)"
    assert "python_files check_*.py" in reason["detail"]


def test_a_large_selection_runs_with_the_suites_parallelism(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # lanekit's environment has pytest-xdist and the project runs under it:
    # 8 selected files run with -n auto, 1 serially.
    files = {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n'
        '[project.optional-dependencies]\ntest = ["pytest-xdist"]\n',
        "pkg/__init__.py": "",
        "pkg/leaf.py": _LEAF,
        "pkg/other.py": _LEAF,
        "tests/test_other.py": "from pkg.other import f\n\n\ndef test_f() -> None:\n    assert f(1)\n",
    }
    for i in range(8):
        files[f"tests/test_{i}.py"] = (
            "from pkg.leaf import f\n\n\ndef test_f() -> None:\n    assert f(1)\n"
        )
    make_repo(tmp_path, files, "base")
    (tmp_path / "pkg/leaf.py").write_text(_LEAF.replace("+ 1", "+ 2"))
    [run] = _plan(tmp_path, capsys, monkeypatch)["suites"]
    assert run["command"][:3] == ["pytest", "-n", "auto"]
    assert len(run["files"]) == 8
    (tmp_path / "pkg/leaf.py").write_text(_LEAF)
    (tmp_path / "pkg/other.py").write_text(_LEAF.replace("+ 1", "+ 2"))
    [run] = _plan(tmp_path, capsys, monkeypatch)["suites"]
    assert run["command"] == ["pytest", "tests/test_other.py"]


def test_a_selection_the_recorded_map_times_as_short_runs_serially(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: on attrs (a 12 s suite naming xdist), every selection of 8 files
    or more ran under -n auto and cost up to 2x the CPU of the serial full run."""
    files = {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n'
        '[project.optional-dependencies]\ntest = ["pytest-xdist"]\n',
        ".gitignore": "envelopes/\n__pycache__/\n",
        "pkg/__init__.py": "",
        "pkg/leaf.py": _LEAF,
        **{
            f"tests/test_{i}.py": "from pkg.leaf import f\n\n\ndef test_f() -> None:\n"
            "    assert f(1)\n"
            for i in range(8)
        },
    }
    make_repo(tmp_path, files, "base")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTEST_ADDOPTS", NO_HYPOTHESIS)
    assert main(["affected", "--record"]) == 0
    capsys.readouterr()
    recorded = read_map(tmp_path / "envelopes/affected-map.json")
    assert recorded is not None
    assert all(0 <= test["ms"] < 5000 for test in recorded.document["tests"])
    (tmp_path / "pkg/leaf.py").write_text(_LEAF.replace("+ 1", "+ 2"))
    [run] = _plan(tmp_path, capsys, monkeypatch)["suites"]
    assert len(run["nodes"]) == 8
    assert "-n" not in run["command"]


def test_a_project_that_runs_serially_keeps_a_large_selection_serial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # toolz names no xdist: its 12 selected files under -n auto cost 2.5x the CPU
    # of its serial full run; a selection must never cost more than the full run.
    files = {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n',
        "pkg/__init__.py": "",
        "pkg/leaf.py": _LEAF,
    }
    for i in range(8):
        files[f"tests/test_{i}.py"] = (
            "from pkg.leaf import f\n\n\ndef test_f() -> None:\n    assert f(1)\n"
        )
    make_repo(tmp_path, files, "base")
    (tmp_path / "pkg/leaf.py").write_text(_LEAF.replace("+ 1", "+ 2"))
    [run] = _plan(tmp_path, capsys, monkeypatch)["suites"]
    assert run["command"][:2] == ["pytest", "tests/test_0.py"]
    assert "-n" not in run["command"]
