"""The plan narrowed by a recorded map: the test ids that executed a changed function or read a changed file.

:func:`lanes.affected.plan.make_plan` in-process on the planted project
(:mod:`tests.affected.plan_helpers`) committed in git, with a map written as
if recorded on that commit: which files it narrows to test ids and why, what
it keeps whole (files it never recorded, a module-level change the name flow
cannot follow, the tests of a computed import's net it cannot vouch for) and
the suite commands that name the ids.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lanes.affected import testmap
from lanes.affected.plan import Project
from lanes.affected.selfcheck import FILES
from lanes.config import load_config
from tests.affected.plan_helpers import LOADER, by_file, loader_net, plan_of, planted_project
from tests.support.git import git, make_repo

if TYPE_CHECKING:
    from pathlib import Path

    # Imported by name only for types: pytest would try to collect a class named Test*.
    from lanes.affected.testmap import TestMap


def _map(root: Path, tests: list[tuple[str, str, list[int]]], data: list[str]) -> TestMap:
    """A recorded map: (test id, its file, the data files it read, by index)."""
    return testmap.TestMap(
        root / "envelopes/affected-map.json",
        {
            "kind": testmap.MAP_KIND,
            "version": testmap.MAP_VERSION,
            "commit": "abc",
            "config_digest": "sha256:0",
            "python": "3.11",
            "hypothesis_seed": None,
            "outside_callers": None,
            "data_outside": [],
            "nodes": [],
            "data": data,
            "tests": [{"id": i, "file": f, "nodes": [], "data": d} for i, f, d in tests],
            "outside": [],
            "collected": {},
            "sites": [],
            "outside_sites": [],
            "site_imports": [],
        },
    )


def test_a_data_file_the_map_saw_read_selects_its_readers_by_id(tmp_path: Path) -> None:
    project = planted_project(tmp_path, {"tests/data.md": "x\n"})
    test_map = _map(
        tmp_path,
        [
            ("tests/test_leaf.py::test_f", "tests/test_leaf.py", [0]),
            ("tests/test_mid.py::test_g", "tests/test_mid.py", []),
        ],
        ["tests/data.md"],
    )
    plan = plan_of(project, test_map, tests__data_DOT_md="modified")
    assert plan["changed"] == [
        {
            "path": "tests/data.md",
            "change": "modified",
            "rule": "map",
            "detail": "read when the map was recorded",
            "tests": 3,
        }
    ]
    reasons = {t["file"]: t for t in plan["tests"]}
    assert reasons["tests/test_leaf.py"]["nodes"] == [
        {
            "id": "tests/test_leaf.py::test_f",
            "reasons": [
                {
                    "rule": "map",
                    "changed": "tests/data.md",
                    "detail": "read tests/data.md when the map was recorded",
                }
            ],
        }
    ]
    # Files the map never recorded run whole, as the static rule says.
    assert reasons["tests/test_other.py"] == {
        "file": "tests/test_other.py",
        "reasons": [
            {
                "rule": "test data",
                "changed": "tests/data.md",
                "detail": "static: not in the map (no test of it was recorded)",
            }
        ],
    }
    assert "tests/test_mid.py" not in reasons
    assert plan["counts"] == {
        "selected": 3,
        "total": 4,
        "share": 0.75,
        "narrowed_files": 1,
        "node_ids": 1,
    }
    assert plan["suites"][0]["nodes"] == ["tests/test_leaf.py::test_f"]
    # A data file no recorded test read: the static rule stands.
    plan = plan_of(project, _map(tmp_path, [], ["other.md"]), tests__data_DOT_md="modified")
    assert plan["changed"][0]["rule"] == "test data"
    assert plan["changed"][0]["tests"] == 4


def test_a_quiet_file_the_recording_saw_read_selects_its_readers(tmp_path: Path) -> None:
    project = planted_project(tmp_path)
    test_map = _map(
        tmp_path, [("tests/test_leaf.py::test_f", "tests/test_leaf.py", [0])], ["README.md"]
    )
    plan = plan_of(project, test_map, README_DOT_md="modified")
    assert plan["changed"][0]["rule"] == "map"
    assert [t["file"] for t in plan["tests"]] == ["tests/test_leaf.py"]


def _recorded(
    root: Path, extra: dict[str, str], tests: list[dict[str, Any]]
) -> tuple[Project, TestMap]:
    """The planted project committed in git, and a map recorded on that commit in which
    ``tests`` executed ``pkg/leaf.py::f`` (node 0) or ``pkg/mid.py::g`` (node 1)."""
    files = {**FILES, **extra}
    make_repo(root, files, "base")
    document: Any = {
        "kind": testmap.MAP_KIND,
        "version": testmap.MAP_VERSION,
        "commit": git(root, "rev-parse", "HEAD").strip(),
        "config_digest": "sha256:0",
        "python": "3.11",
        "nodes": [["pkg/leaf.py", "f", 1, 2], ["pkg/mid.py", "g", 4, 5]],
        "data": [],
        "tests": [{"data": [], **test} for test in tests],
        "outside": [],
        "collected": {},
        "sites": [],
        "outside_sites": [],
        "site_imports": [],
    }
    project = Project.scan(load_config(root / "pyproject.toml"), sorted(files))
    return project, testmap.TestMap(root / "envelopes/affected-map.json", document)


def _executed(test_id: str, *nodes: int, **more: str) -> dict[str, Any]:
    return {"id": test_id, "file": test_id.split("::", maxsplit=1)[0], "nodes": list(nodes), **more}


MAP_F = {"rule": "map", "changed": "pkg/leaf.py", "detail": "executed pkg/leaf.py::f"}


def test_a_function_change_selects_the_recorded_tests_that_executed_it_by_id(
    tmp_path: Path,
) -> None:
    project, test_map = _recorded(
        tmp_path,
        {},
        [
            _executed("tests/test_leaf.py::test_f", 0),
            _executed("tests/test_mid.py::test_g", 0, 1),
            _executed("tests/test_other.py::test_h"),
        ],
    )
    (tmp_path / "pkg/leaf.py").write_text("def f(x: int) -> int:\n    return x + 2\n")
    plan = plan_of(project, test_map, pkg__leaf_DOT_py="modified")
    assert plan["changed"] == [
        {
            "path": "pkg/leaf.py",
            "change": "modified",
            "rule": "import graph",
            "detail": "map: 2 of 2 statically selected test files (2 test ids); changed f",
            "tests": 2,
        }
    ]
    assert plan["tests"] == [
        {
            "file": "tests/test_leaf.py",
            "reasons": [MAP_F],
            "nodes": [{"id": "tests/test_leaf.py::test_f", "reasons": [MAP_F]}],
        },
        {
            "file": "tests/test_mid.py",
            "reasons": [MAP_F],
            "nodes": [{"id": "tests/test_mid.py::test_g", "reasons": [MAP_F]}],
        },
    ]
    assert plan["suites"][0]["command"] == [
        "pytest",
        "tests/test_leaf.py::test_f",
        "tests/test_mid.py::test_g",
    ]
    assert plan["counts"] == {
        "selected": 2,
        "total": 4,
        "share": 0.5,
        "narrowed_files": 2,
        "node_ids": 2,
    }


def test_the_map_reaches_beyond_the_graph_and_keeps_what_it_never_recorded(tmp_path: Path) -> None:
    project, test_map = _recorded(
        tmp_path,
        LOADER,
        [
            _executed("tests/test_leaf.py::test_f", 0),
            # Loaded through a computed import the graph cannot follow.
            _executed("tests/test_loader.py::test_load", 0),
        ],
    )
    (tmp_path / "pkg/leaf.py").write_text("def f(x: int) -> int:\n    return x + 2\n")
    plan = plan_of(project, test_map, pkg__leaf_DOT_py="modified")
    assert plan["changed"][0]["detail"] == (
        "map: 2 of 2 statically selected test files, and 1 the import graph does not reach "
        "(the recording saw them execute it) (2 test ids); changed f"
        # A map without the site watched (recorded before it existed) cannot narrow its net.
        "; computed import at pkg/loader.py:5: the recording did not watch it "
        "(a map older than the site)"
    )
    tests = by_file(plan)
    assert tests["tests/test_mid.py"] == {
        "file": "tests/test_mid.py",
        "reasons": [
            {
                "rule": "import graph",
                "changed": "pkg/leaf.py",
                "detail": "static: not in the map (no test of it was recorded); "
                "imports it: tests/test_mid.py -> pkg/mid.py -> pkg/leaf.py",
            }
        ],
    }
    # The computed import's net is for tests the map cannot vouch for: test_loader is vouched.
    assert tests["tests/test_loader.py"]["reasons"] == [MAP_F]
    assert plan["counts"]["narrowed_files"] == 2
    # Narrowed to ids, but test_mid runs whole: its file is a whole selection.
    assert plan["suites"][0]["command"] == [
        "pytest",
        "tests/test_mid.py",
        "tests/test_leaf.py::test_f",
        "tests/test_loader.py::test_load",
    ]


def test_a_file_narrowed_to_several_ids_gives_one_reason_per_changed_path(tmp_path: Path) -> None:
    test_leaf = FILES["tests/test_leaf.py"] + "\n\ndef test_f2() -> None:\n    assert f(2) == 3\n"
    project, test_map = _recorded(
        tmp_path,
        {"tests/test_leaf.py": test_leaf},
        [
            _executed("tests/test_leaf.py::test_f", 0),
            _executed("tests/test_leaf.py::test_f2", 0),
            # Failed when recorded: the map cannot vouch for this id.
            _executed("tests/test_mid.py::test_g", 1, unvouched="it failed"),
        ],
    )
    (tmp_path / "pkg/leaf.py").write_text("def f(x: int) -> int:\n    return x + 2\n")
    tests = by_file(plan_of(project, test_map, pkg__leaf_DOT_py="modified"))
    assert tests["tests/test_leaf.py"]["reasons"] == [MAP_F]
    assert [n["id"] for n in tests["tests/test_leaf.py"]["nodes"]] == [
        "tests/test_leaf.py::test_f",
        "tests/test_leaf.py::test_f2",
    ]
    # The unvouched id runs beside the map's, said as the map's judgement, no import chain.
    assert tests["tests/test_mid.py"]["nodes"] == [
        {
            "id": "tests/test_mid.py::test_g",
            "reasons": [
                {
                    "rule": "import graph",
                    "changed": "pkg/leaf.py",
                    "detail": "static, the map does not vouch: it failed",
                }
            ],
        }
    ]


def test_a_file_one_change_runs_whole_is_not_narrowed_by_another(tmp_path: Path) -> None:
    project, test_map = _recorded(
        tmp_path,
        {},
        [_executed("tests/test_leaf.py::test_f", 0), _executed("tests/test_mid.py::test_g", 0, 1)],
    )
    # leaf: a module-level call (every importer whole); mid: inside g (test_g by id).
    (tmp_path / "pkg/leaf.py").write_text("print(1)\n\n\ndef f(x: int) -> int:\n    return x + 1\n")
    mid = FILES["pkg/mid.py"].replace("* 2", "* 3")
    (tmp_path / "pkg/mid.py").write_text(mid)
    plan = plan_of(project, test_map, pkg__leaf_DOT_py="modified", pkg__mid_DOT_py="modified")
    assert "nodes" not in by_file(plan)["tests/test_mid.py"]
    assert plan["suites"][0]["command"] == ["pytest", "tests/test_leaf.py", "tests/test_mid.py"]


def test_a_module_level_change_the_flow_cannot_follow_keeps_every_importer_with_its_chain(
    tmp_path: Path,
) -> None:
    project, test_map = _recorded(
        tmp_path,
        LOADER,
        [
            _executed("tests/test_leaf.py::test_f", 0),
            _executed("tests/test_mid.py::test_g", 0),
            # Vouched for, and it never executed leaf: still in the computed-import net.
            _executed("tests/test_loader.py::test_load"),
        ],
    )
    (tmp_path / "pkg/leaf.py").write_text("print(1)\n\n\ndef f(x: int) -> int:\n    return x + 1\n")
    plan = plan_of(project, test_map, pkg__leaf_DOT_py="modified")
    tests = by_file(plan)
    assert sorted(tests) == ["tests/test_leaf.py", "tests/test_loader.py", "tests/test_mid.py"]
    assert "nodes" not in tests["tests/test_leaf.py"]
    assert tests["tests/test_leaf.py"]["reasons"][0]["detail"].endswith(
        "a module-level call changed at line 1: what it changes cannot be followed; "
        "every test that imports it; imports it: tests/test_leaf.py -> pkg/leaf.py"
    )
    # A module-level change keeps the computed-import net whole, vouched or not.
    assert tests["tests/test_loader.py"]["reasons"][0]["rule"] == "computed import"
    assert plan["counts"] == {"selected": 3, "total": 5, "share": 0.6}


def test_a_recorded_test_file_deleted_since_has_nothing_left_to_run(tmp_path: Path) -> None:
    project, test_map = _recorded(
        tmp_path,
        {},
        [_executed("tests/test_leaf.py::test_f", 0), _executed("tests/test_mid.py::test_g", 0)],
    )
    (tmp_path / "pkg/leaf.py").write_text("def f(x: int) -> int:\n    return x + 2\n")
    (tmp_path / "tests/test_mid.py").unlink()
    project = Project.scan(project.config, [f for f in project.files if f != "tests/test_mid.py"])
    plan = plan_of(project, test_map, pkg__leaf_DOT_py="modified", tests__test_mid_DOT_py="deleted")
    assert sorted(by_file(plan)) == ["tests/test_leaf.py"]
    assert next(c for c in plan["changed"] if c["path"] == "tests/test_mid.py") == {
        "path": "tests/test_mid.py",
        "change": "deleted",
        "rule": "test file",
        "detail": "deleted: nothing left to run",
        "tests": 0,
    }


def test_a_computed_import_keeps_the_tests_the_map_cannot_vouch_for(tmp_path: Path) -> None:
    loader2 = (
        "from pkg.loader import load\n\n\ndef test_load2() -> None:\n    assert load('leaf')\n"
    )
    project, test_map = _recorded(
        tmp_path,
        {**LOADER, "tests/test_loader2.py": loader2},
        [
            _executed("tests/test_leaf.py::test_f", 0),
            _executed("tests/test_mid.py::test_g", 0),
            _executed("tests/test_loader.py::test_load"),
            _executed("tests/test_loader2.py::test_load2", unvouched="it failed"),
        ],
    )
    (tmp_path / "pkg/leaf.py").write_text("def f(x: int) -> int:\n    return x + 2\n")
    tests = by_file(plan_of(project, test_map, pkg__leaf_DOT_py="modified"))
    assert sorted(tests) == ["tests/test_leaf.py", "tests/test_loader2.py", "tests/test_mid.py"]
    assert tests["tests/test_loader2.py"]["reasons"] == [
        {
            "rule": "computed import",
            "changed": "pkg/leaf.py",
            "detail": "computed import import_module(...) at pkg/loader.py:5 could import "
            "modules under pkg; computed import at pkg/loader.py:5: the recording did not "
            "watch it (a map older than the site); the map does not vouch: it failed",
        }
    ]
    # By id: a test the map vouches for in that file would stay out.
    assert [n["id"] for n in tests["tests/test_loader2.py"]["nodes"]] == [
        "tests/test_loader2.py::test_load2"
    ]


VOUCHED_LOADER = [
    _executed("tests/test_leaf.py::test_f", 0),
    _executed("tests/test_loader.py::test_load"),
]


def test_a_file_new_since_the_map_keeps_the_whole_computed_import_net(tmp_path: Path) -> None:
    project, test_map = _recorded(tmp_path, LOADER, VOUCHED_LOADER)
    (tmp_path / "pkg/new.py").write_text("def n() -> int:\n    return 1\n")
    project = Project.scan(project.config, sorted([*project.files, "pkg/new.py"]))
    assert loader_net(plan_of(project, test_map, pkg__new_DOT_py="added")) == ["computed import"]


def test_a_deleted_module_keeps_the_whole_computed_import_net(tmp_path: Path) -> None:
    project, test_map = _recorded(tmp_path, LOADER, VOUCHED_LOADER)
    (tmp_path / "pkg/other.py").unlink()
    plan = plan_of(project, test_map, pkg__other_DOT_py="deleted")
    assert loader_net(plan) == ["computed import"]
    assert plan["changed"][0]["detail"] == (
        "1 direct, 0 transitive; computed import at pkg/loader.py:5: the recording did not "
        "watch it (a map older than the site)"
    )
    assert plan["changed"][0]["rule"] == "import graph"


def test_a_changed_function_that_ran_outside_every_test_keeps_the_whole_net(tmp_path: Path) -> None:
    project, test_map = _recorded(tmp_path, LOADER, VOUCHED_LOADER)
    test_map.document["outside"] = [0]
    (tmp_path / "pkg/leaf.py").write_text("def f(x: int) -> int:\n    return x + 2\n")
    assert loader_net(plan_of(project, test_map, pkg__leaf_DOT_py="modified")) == [
        "computed import"
    ]
    # Inside functions that ran in tests only: the vouched loader test is judged by the map.
    test_map.document["outside"] = []
    assert loader_net(plan_of(project, test_map, pkg__leaf_DOT_py="modified")) == []
