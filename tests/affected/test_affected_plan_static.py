"""The plan a set of changed paths gets from the static rules, checked whole as ``lanes affected`` writes it.

:func:`lanes.affected.plan.make_plan` without a recorded map, in-process on
the planted project (:mod:`tests.affected.plan_helpers`): each change with its
rule and each test with its reasons and import chain, the counts and share,
the full set and what fails open, the blind spots and the computed-import
net, and the gates that fire.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanes.affected.changes import Changes
from lanes.affected.plan import make_plan
from lanes.affected.selfcheck import FILES
from tests.affected.plan_helpers import (
    LEAF_CHAINS,
    LOADER,
    by_file,
    loader_net,
    plan_of,
    planted_project,
    with_settings,
)

if TYPE_CHECKING:
    from pathlib import Path


def test_a_plan_lists_each_change_with_its_rule_and_each_test_with_its_chain(
    tmp_path: Path,
) -> None:
    plan = plan_of(planted_project(tmp_path), pkg__leaf_DOT_py="modified", README_DOT_md="modified")
    assert plan == {
        "base": "main",
        "base_commit": "abc123",
        "full": False,
        "full_reasons": [],
        "changed": [
            {
                "path": "README.md",
                "change": "modified",
                "rule": "quiet",
                "detail": "cannot change a test's outcome (*.md): outside every test directory, "
                "not a doctest file (test*.txt)",
                "tests": 0,
            },
            {
                "path": "pkg/leaf.py",
                "change": "modified",
                "rule": "import graph",
                "detail": "1 direct, 1 transitive",
                "tests": 2,
            },
        ],
        "tests": [
            {
                "file": test,
                "reasons": [{"rule": "import graph", "changed": "pkg/leaf.py", "detail": chain}],
            }
            for test, chain in LEAF_CHAINS.items()
        ],
        "suites": [
            {
                "name": "tests",
                "command": ["pytest", "tests/test_leaf.py", "tests/test_mid.py"],
                "files": ["tests/test_leaf.py", "tests/test_mid.py"],
                "full": False,
            }
        ],
        "gates": [],
        "blind_spots": [],
        "map": "a map state",
        "counts": {"selected": 2, "total": 4, "share": 0.5},
    }


def test_a_test_selected_by_two_changes_carries_both_reasons(tmp_path: Path) -> None:
    plan = plan_of(
        planted_project(tmp_path), pkg__leaf_DOT_py="modified", tests__test_leaf_DOT_py="modified"
    )
    assert plan["tests"][0] == {
        "file": "tests/test_leaf.py",
        "reasons": [
            {
                "rule": "import graph",
                "changed": "pkg/leaf.py",
                "detail": LEAF_CHAINS["tests/test_leaf.py"],
            },
            {
                "rule": "test file",
                "changed": "tests/test_leaf.py",
                "detail": "a changed test runs itself",
            },
        ],
    }
    # 2 of 4 selected; the share is rounded to 4 places.
    plan = plan_of(
        planted_project(tmp_path), pkg__mid_DOT_py="modified", tests__test_other_DOT_py="added"
    )
    assert plan["counts"] == {"selected": 2, "total": 4, "share": 0.5}
    plan = plan_of(planted_project(tmp_path), pkg__mid_DOT_py="modified")
    assert plan["counts"] == {"selected": 1, "total": 4, "share": 0.25}


def test_the_share_is_rounded_to_four_places(tmp_path: Path) -> None:
    project = planted_project(tmp_path, drop=("tests/test_other.py",))
    assert plan_of(project, pkg__mid_DOT_py="modified")["counts"] == {
        "selected": 1,
        "total": 3,
        "share": 0.3333,
    }


def test_a_full_change_runs_every_test_and_every_suite_whole(tmp_path: Path) -> None:
    project = planted_project(tmp_path)
    plan = plan_of(project, pyproject_DOT_toml="modified", pkg__leaf_DOT_py="modified")
    assert plan["full"] is True
    assert plan["full_reasons"] == [
        {"rule": "full", "changed": "pyproject.toml", "detail": "packaging and tool configuration"}
    ]
    reasons = {t["file"]: t["reasons"] for t in plan["tests"]}
    assert set(reasons) == set(project.tests)
    # Each test says the full set is why it runs (the first full reason), with no detail.
    assert reasons["tests/test_other.py"] == [
        {"rule": "full", "changed": "pyproject.toml", "detail": ""}
    ]
    assert reasons["tests/test_leaf.py"][-1] == {
        "rule": "full",
        "changed": "pyproject.toml",
        "detail": "",
    }
    assert plan["suites"] == [{"name": "tests", "command": ["pytest"], "files": [], "full": True}]
    assert plan["counts"] == {"selected": 4, "total": 4, "share": 1.0}


def test_an_unknown_file_kind_fails_open(tmp_path: Path) -> None:
    plan = plan_of(planted_project(tmp_path), pkg__data_DOT_bin="added")
    assert plan["full"] is True
    assert plan["full_reasons"] == [
        {
            "rule": "unknown",
            "changed": "pkg/data.bin",
            "detail": "no rule knows which tests read this file kind: fail open",
        }
    ]


def test_a_project_where_pytest_finds_no_test_runs_everything_and_says_why(tmp_path: Path) -> None:
    tests = tuple(path for path in FILES if path.startswith("tests/"))
    plan = plan_of(planted_project(tmp_path, drop=tests), pkg__leaf_DOT_py="modified")
    assert plan["full_reasons"] == [
        {
            "rule": "unknown",
            "changed": "(test discovery)",
            "detail": "no test file found by pytest's rules from pyproject.toml: testpaths tests; "
            "python_files test_*.py *_test.py: fail open",
        }
    ]
    assert plan["counts"] == {"selected": 0, "total": 0, "share": 0.0}
    # Nothing changed: nothing to fail open for.
    assert plan_of(planted_project(tmp_path / "empty", drop=tests))["full"] is False


def test_a_plan_made_without_a_map_state_says_none(tmp_path: Path) -> None:
    plan = make_plan(planted_project(tmp_path), Changes("main", None, {"pkg/mid.py": "modified"}))
    assert plan.to_dict()["map"] == ""


def test_a_file_that_does_not_parse_is_named_as_a_blind_spot(tmp_path: Path) -> None:
    project = planted_project(
        tmp_path, {"pkg/broken.py": "def f(:\n", "tests/test_broken.py": "import pkg.broken\n"}
    )
    plan = plan_of(project, pkg__broken_DOT_py="modified")
    assert [(s["file"], s["line"]) for s in plan["blind_spots"]] == [("pkg/broken.py", 0)]
    assert plan["blind_spots"][0]["what"].startswith("unparsable: ")
    # Not involved in the change: not named.
    assert plan_of(project, pkg__mid_DOT_py="modified")["blind_spots"] == []


def test_a_computed_import_that_could_load_a_changed_module_selects_its_tests(
    tmp_path: Path,
) -> None:
    loader = "import importlib\n\n\ndef load(name: str) -> object:\n    return importlib.import_module('pkg.' + name)\n"
    test = "from pkg.loader import load\n\n\ndef test_load() -> None:\n    assert load('other')\n"
    project = planted_project(tmp_path, {"pkg/loader.py": loader, "tests/test_loader.py": test})
    plan = plan_of(project, pkg__other_DOT_py="modified")
    reasons = {t["file"]: t["reasons"] for t in plan["tests"]}
    assert reasons["tests/test_loader.py"][0]["rule"] == "computed import"
    assert reasons["tests/test_other.py"][0]["rule"] == "import graph"
    assert next(c for c in plan["changed"] if c["path"] == "pkg/other.py")["tests"] == 2
    assert [s["file"] for s in plan["blind_spots"]] == ["pkg/loader.py"]
    assert plan["blind_spots"][0]["what"].startswith("computed ")
    assert plan["blind_spots"][0]["what"].endswith(": could import modules under pkg")
    # Once the loader is involved itself, its own blind spot names it.
    plan = plan_of(project, pkg__other_DOT_py="modified", pkg__loader_DOT_py="modified")
    assert [s["file"] for s in plan["blind_spots"]] == ["pkg/loader.py"]


def test_a_computed_import_reaching_only_another_package_is_not_a_blind_spot(
    tmp_path: Path,
) -> None:
    plugins = (
        "import importlib\n\n\ndef plugin(name: str) -> object:\n"
        "    return importlib.import_module('pkg.plugins.' + name)\n"
    )
    project = planted_project(tmp_path, {"pkg/aloader.py": plugins, **LOADER})
    plan = plan_of(project, pkg__other_DOT_py="modified")
    assert [s["file"] for s in plan["blind_spots"]] == ["pkg/loader.py"]
    # The loader that cannot reach pkg.other comes first and is passed over.
    assert loader_net(plan) == ["computed import"]


def test_a_conftest_reaching_a_computed_import_selects_its_subtree(tmp_path: Path) -> None:
    conftest = FILES["tests/sub/conftest.py"] + "\nfrom pkg.loader import load\n"
    project = planted_project(tmp_path, {"tests/sub/conftest.py": conftest, **LOADER})
    tests = by_file(plan_of(project, pkg__other_DOT_py="modified"))
    assert tests["tests/sub/test_sub.py"]["reasons"] == [
        {
            "rule": "computed import",
            "changed": "pkg/other.py",
            "detail": "computed import import_module(...) at pkg/loader.py:5 "
            "could import modules under pkg",
        }
    ]


def test_a_conftest_change_is_said_as_its_subtree_even_for_a_test_importing_it(
    tmp_path: Path,
) -> None:
    helper = "from tests.sub import conftest\n\n\ndef test_h() -> None:\n    assert conftest\n"
    project = planted_project(tmp_path, {"tests/sub/test_helper.py": helper})
    tests = by_file(plan_of(project, tests__sub__conftest_DOT_py="modified"))
    assert tests["tests/sub/test_helper.py"]["reasons"] == [
        {
            "rule": "conftest",
            "changed": "tests/sub/conftest.py",
            "detail": "applies to every test under tests/sub/",
        }
    ]


def test_gates_fire_for_their_inputs_one_reason_per_changed_path(tmp_path: Path) -> None:
    gates = (
        '\n[tool.lanes.affected.gates.lint]\ncommand = "nox -s lint"\ninputs = ["*.py", "pkg/*"]\n'
        '[tool.lanes.affected.gates.docs]\ncommand = "mkdocs build"\ninputs = ["docs/**"]\n'
    )
    project = planted_project(tmp_path, with_settings(gates))
    plan = plan_of(project, pkg__leaf_DOT_py="modified", tests__test_leaf_DOT_py="modified")
    assert plan["gates"] == [
        {
            "name": "lint",
            "command": "nox -s lint",
            "reasons": [
                {"rule": "gate", "changed": "pkg/leaf.py", "detail": "matches *.py"},
                {"rule": "gate", "changed": "tests/test_leaf.py", "detail": "matches *.py"},
            ],
        }
    ]
    # The full set fires every gate, naming the change that made it full.
    plan = plan_of(project, _DOT_github__ci_DOT_yml="modified")
    assert plan["gates"] == [
        {
            "name": "lint",
            "command": "nox -s lint",
            "reasons": [
                {
                    "rule": "full",
                    "changed": ".github/ci.yml",
                    "detail": "the full set includes every gate",
                }
            ],
        },
        {
            "name": "docs",
            "command": "mkdocs build",
            "reasons": [
                {
                    "rule": "full",
                    "changed": ".github/ci.yml",
                    "detail": "the full set includes every gate",
                }
            ],
        },
    ]


def test_a_noxfile_with_a_lint_session_gives_a_lint_gate_for_python_changes(tmp_path: Path) -> None:
    project = planted_project(
        tmp_path, {"noxfile.py": "import nox\n\n\n@nox.session\ndef lint(session):\n    pass\n"}
    )
    lint = {"name": "lint", "command": "nox -s lint"}
    assert plan_of(project, pkg__leaf_DOT_py="modified")["gates"] == [
        {**lint, "reasons": [{"rule": "gate", "changed": "pkg/leaf.py", "detail": "matches *.py"}]}
    ]
    for path, pattern in [("pkg/types.pyi", "*.pyi"), ("setup.cfg", "setup.cfg")]:
        gates = make_plan(project, Changes("main", None, {path: "added"})).to_dict()["gates"]
        assert [g["reasons"][0]["detail"] for g in gates] == [f"matches {pattern}"]
    assert plan_of(project, README_DOT_md="modified")["gates"] == []
    # No lint session, or no noxfile: no derived gate.
    project = planted_project(tmp_path / "other", {"noxfile.py": "def tests(session):\n    pass\n"})
    assert plan_of(project, pkg__leaf_DOT_py="modified")["gates"] == []
    (tmp_path / "other" / "noxfile.py").unlink()
    assert plan_of(project, pkg__leaf_DOT_py="modified")["gates"] == []


def test_a_derived_lint_gate_fires_for_the_project_configuration(tmp_path: Path) -> None:
    project = planted_project(tmp_path, {"noxfile.py": "def lint(session):\n    pass\n"})
    assert plan_of(project, pyproject_DOT_toml="modified")["gates"] == [
        {
            "name": "lint",
            "command": "nox -s lint",
            "reasons": [
                {"rule": "gate", "changed": "pyproject.toml", "detail": "matches pyproject.toml"}
            ],
        }
    ]
