"""`lanes affected`: the plan for a diff in a real git repository, each selection with its rule."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import pytest

from lanes.affected.changes import tracked_files
from lanes.affected.selfcheck import FILES
from lanes.cli import main
from tests.support.documents import read_envelope
from tests.support.git import git, make_repo

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The self-check's planted project, committed, as the working directory."""
    make_repo(tmp_path, FILES, "base")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _plan(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["affected", "--json", *args]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert isinstance(plan, dict)
    return plan


def _tests(plan: dict[str, Any]) -> dict[str, list[str]]:
    return {t["file"]: [r["rule"] for r in t["reasons"]] for t in plan["tests"]}


def test_a_module_change_selects_its_direct_and_transitive_importers(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pkg/leaf.py").write_text("def f(x: int) -> int:\n    return x\n")
    plan = _plan(capsys)
    assert _tests(plan) == {
        "tests/test_leaf.py": ["import graph"],
        "tests/test_mid.py": ["import graph"],
    }
    assert plan["full"] is False
    assert plan["changed"][0]["detail"] == "1 direct, 1 transitive"
    assert plan["counts"] == {"selected": 2, "total": 4, "share": 0.5}
    # One filtered pytest invocation for the selected files, the suite's paths replaced.
    assert [s["command"] for s in plan["suites"]] == [
        ["pytest", "tests/test_leaf.py", "tests/test_mid.py"]
    ]


def test_committed_staged_and_untracked_changes_all_count(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pkg/other.py").write_text("def h() -> str:\n    return 'o'\n")
    git(project, "commit", "-qam", "other")
    (project / "tests/test_new.py").write_text("def test_new() -> None:\n    pass\n")
    plan = _plan(capsys, "--base", "HEAD~1")
    assert _tests(plan) == {
        "tests/test_new.py": ["test file"],
        "tests/test_other.py": ["import graph"],
    }


def test_an_untracked_virtualenv_in_the_project_is_left_out_as_pytest_leaves_it_out(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `python -m venv venv` in a project whose .gitignore does not name it:
    # thousands of untracked files, none the project's (one .py and a script here).
    for name in ("venv/pyvenv.cfg", "venv/bin/activate", "venv/lib/site-packages/dep.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("x = 1\n")
    (project / "conda/conda-meta").mkdir(parents=True)
    (project / "conda/conda-meta/history").write_text("")
    (project / "conda/bin/tool").parent.mkdir()
    (project / "conda/bin/tool").write_text("")
    # An untracked directory that is no environment still counts.
    (project / "tools/pyvenv.txt").parent.mkdir()
    (project / "tools/pyvenv.txt").write_text("")
    (project / "pkg/leaf.py").write_text("def f(x: int) -> int:\n    return x\n")
    plan = _plan(capsys, "--base", "HEAD")
    assert plan["full"] is False
    assert set(_tests(plan)) == {"tests/test_leaf.py", "tests/test_mid.py"}
    changed = {c["path"]: (c["change"], c["rule"]) for c in plan["changed"]}
    assert changed == {
        "conda/": ("untracked", "quiet"),
        "venv/": ("untracked", "quiet"),
        "pkg/leaf.py": ("modified", "import graph"),
        "tools/pyvenv.txt": ("untracked", "quiet"),
    }
    assert tracked_files(project) == sorted([*FILES, "tools/pyvenv.txt"])


def test_a_rename_selects_the_importers_of_the_old_name(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(project, "mv", "pkg/other.py", "pkg/renamed.py")
    git(project, "commit", "-qm", "rename")
    plan = _plan(capsys, "--base", "HEAD~1")
    # test_other.py still imports pkg.other: it is exactly the test that will now fail.
    assert "tests/test_other.py" in _tests(plan)
    changes = {c["path"]: c["change"] for c in plan["changed"]}
    assert changes == {
        "pkg/other.py": "renamed to pkg/renamed.py",
        "pkg/renamed.py": "renamed from pkg/other.py",
    }


def test_a_conftest_selects_its_subtree(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "tests/sub/conftest.py").write_text(FILES["tests/sub/conftest.py"] + "# edit\n")
    assert _tests(_plan(capsys)) == {"tests/sub/test_sub.py": ["conftest"]}


def test_packaging_config_selects_everything_and_says_why(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text(FILES["pyproject.toml"] + "# edit\n")
    plan = _plan(capsys)
    assert plan["full"] is True
    assert plan["full_reasons"] == [
        {"rule": "full", "changed": "pyproject.toml", "detail": "packaging and tool configuration"}
    ]
    assert len(plan["tests"]) == 4
    # No suite declared: plain `pytest`, which runs what pytest's own config collects.
    assert [s["command"] for s in plan["suites"]] == [["pytest"]]


def test_docs_select_nothing_and_unknown_files_fail_open(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "README.md").write_text("# docs\n")
    assert _plan(capsys)["tests"] == []
    (project / "pkg/data.bin").write_bytes(b"\0")
    plan = _plan(capsys)
    assert plan["full"] is True
    assert plan["full_reasons"][0]["rule"] == "unknown"


def test_the_ownership_table_maps_data_to_tests(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text(
        FILES["pyproject.toml"]
        + '\n[tool.lanes.affected.owners]\n"pkg/*.bin" = ["tests/test_other.py"]\n'
    )
    git(project, "commit", "-qam", "owners")
    (project / "pkg/data.bin").write_bytes(b"\0")
    assert _tests(_plan(capsys)) == {"tests/test_other.py": ["owners"]}


def test_a_module_imported_lazily_by_leaf_name_is_followed(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The governor's runner table names its rule modules ("jvm") and imports them
    # with __import__(f"{package}.{name}"): a recall run planted a bug in such a
    # module and no test was selected.
    (project / "pkg/table.py").write_text(
        'RULES = {"x": "other"}\n\n\ndef rule(name: str) -> object:\n'
        '    return __import__(f"pkg.{RULES[name]}", fromlist=["h"])\n'
    )
    (project / "tests/test_table.py").write_text(
        "from pkg.table import rule\n\n\ndef test_rule() -> None:\n    assert rule('x')\n"
    )
    git(project, "add", "-A")
    git(project, "commit", "-qm", "table")
    (project / "pkg/other.py").write_text("def h() -> str:\n    return 'changed'\n")
    assert sorted(_tests(_plan(capsys))) == ["tests/test_other.py", "tests/test_table.py"]


def test_dynamic_imports_are_reported_not_hidden(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pkg/leaf.py").write_text(
        "import importlib\n\n\ndef f(x: int) -> int:\n"
        "    return importlib.import_module('pkg.other') and x + 1\n"
    )
    plan = _plan(capsys)
    assert plan["blind_spots"] == [{"file": "pkg/leaf.py", "line": 5, "what": "import_module(...)"}]


def test_text_output_is_bounded_and_says_what_it_hid(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i in range(4):
        (project / f"tests/test_more{i}.py").write_text("def test_x() -> None:\n    pass\n")
    assert main(["affected", "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert "tests (4/8 test files):" in out
    assert "… and 2 more selected tests (--limit N or --json shows them)" in out


@pytest.mark.usefixtures("project")
def test_dependents_of_a_module(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["affected", "pkg.leaf", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert (view["direct"], view["transitive"]) == (2, 1)
    assert [d["path"] for d in view["dependents"]] == [
        "pkg/mid.py",  # widest first: test_mid depends on it
        "tests/test_leaf.py",
        "tests/test_mid.py",
    ]
    assert view["tests"] == ["tests/test_leaf.py", "tests/test_mid.py"]


@pytest.mark.usefixtures("project")
def test_an_unknown_module_is_a_usage_error_with_a_hint(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["affected", "pkg.lief"]) == 2
    err = capsys.readouterr().err
    assert "error: no module or Python file named 'pkg.lief'" in err
    assert "hint: did you mean" in err


def test_the_affected_section_is_strict(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text(
        FILES["pyproject.toml"] + "\n[tool.lanes.affected]\nowner = {}\n"
    )
    assert main(["affected"]) == 2
    err = capsys.readouterr().err
    assert "unknown key 'owner' — did you mean 'owners'?" in err


@pytest.mark.integration
def test_run_executes_the_plan_once_and_writes_an_envelope(project: Path) -> None:
    (project / "pkg/leaf.py").write_text("def f(x: int) -> int:\n    return x - 1\n")
    assert main(["affected", "--run"]) == 1  # the planted bug fails the selected tests
    envelope = read_envelope(project / "envelopes/affected.json")
    assert envelope["result"] == "fail"
    [run] = envelope["data"]["runs"]
    assert run["command"] == ["pytest", "tests/test_leaf.py", "tests/test_mid.py"]
    assert run["exit_code"] == 1


@pytest.mark.integration
def test_run_uses_the_pytest_of_the_environment_lanes_runs_in(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A `pytest` earlier on PATH (another venv, a system install) would test an
    # installed copy of the project instead of the working tree.
    impostor = project / "elsewhere"
    impostor.mkdir()
    (impostor / "pytest").write_text("#!/bin/sh\nexit 99\n")
    (impostor / "pytest").chmod(0o755)
    monkeypatch.setenv("PATH", f"{impostor}:{os.environ['PATH']}")
    (project / "tests/test_leaf.py").write_text(FILES["tests/test_leaf.py"] + "# edit\n")
    assert main(["affected", "--run"]) == 0
    envelope = read_envelope(project / "envelopes/affected.json")
    assert [run["exit_code"] for run in envelope["data"]["runs"]] == [0]


@pytest.mark.integration
def test_self_check_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["affected", "--self-check"]) == 0
    envelope = read_envelope(tmp_path / "envelopes/affected.json")
    assert all(check["passed"] for check in envelope["data"]["self_check"]["checks"])
    [plant] = envelope["data"]["self_check"]["planted"]
    assert plant["fault"].startswith("a selector that follows only direct imports")
    assert (plant["real"], plant["planted"], plant["caught"]) == (
        "tests/test_leaf.py, tests/test_mid.py",
        "tests/test_leaf.py",
        True,
    )
