"""The selection rules, the suite commands and the plan, in-process on real project files.

Each case writes a small project (the self-check's planted one, known answers:
``test_leaf`` imports ``pkg.leaf``, ``test_mid`` reaches it through
``pkg.mid``, ``tests/sub`` has its own conftest), scans it as ``lanes
affected`` does and asks the rules, the suite builder or :func:`make_plan`
for a set of changed paths: which rule claims each path and why, which test
files it selects, which commands run them and which gates fire.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from lanes.affected import testmap
from lanes.affected.changes import Changes
from lanes.affected.plan import Project, make_plan
from lanes.affected.rules import (
    graph_tests,
    import_chains,
    matches,
    rule_for,
    static_choice,
    under,
)
from lanes.affected.rules import test_dir_holding as dir_holding
from lanes.affected.selfcheck import FILES
from lanes.affected.suites import PARALLEL_FROM, RecordedTimes, runs_xdist, suite_runs
from lanes.config import load_config
from tests.support.git import git, make_repo

if TYPE_CHECKING:
    from pathlib import Path

    # Imported by name only for types: pytest would try to collect a class named Test*.
    from lanes.affected.testmap import TestMap

LEAF_CHAINS = {
    "tests/test_leaf.py": "imports it: tests/test_leaf.py -> pkg/leaf.py",
    "tests/test_mid.py": "imports it: tests/test_mid.py -> pkg/mid.py -> pkg/leaf.py",
}


def _project(
    root: Path, extra: dict[str, str] | None = None, *, drop: tuple[str, ...] = ()
) -> Project:
    """The planted project (plus ``extra``, without ``drop``) written under ``root`` and scanned."""
    files = {path: text for path, text in {**FILES, **(extra or {})}.items() if path not in drop}
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return Project.scan(load_config(root / "pyproject.toml"), sorted(files))


def _with_settings(settings: str) -> dict[str, str]:
    return {"pyproject.toml": FILES["pyproject.toml"] + settings}


def _plan(project: Project, test_map: TestMap | None = None, **changes: str) -> dict[str, Any]:
    paths = {path.replace("__", "/").replace("_DOT_", "."): how for path, how in changes.items()}
    plan = make_plan(project, Changes("main", "abc123", paths), test_map, "a map state")
    return dict(plan.to_dict())


@pytest.mark.parametrize(
    ("path", "rule", "detail"),
    [
        ("pyproject.toml", "full", "packaging and tool configuration"),
        ("setup.py", "full", "packaging"),
        ("setup.cfg", "full", "packaging and tool configuration"),
        ("tox.ini", "full", "test environment configuration"),
        ("noxfile.py", "full", "test session configuration"),
        ("pytest.ini", "full", "pytest configuration"),
        ("conftest.py", "full", "the root conftest.py applies to every test"),
        ("requirements-dev.txt", "full", "dependencies"),
        ("requirements/base.in", "full", "dependencies"),
        ("constraints.txt", "full", "dependencies"),
        ("uv.lock", "full", "dependencies"),
        ("poetry.lock", "full", "dependencies"),
        ("Makefile", "full", "build configuration"),
        (".github/workflows/ci.yml", "full", "CI configuration"),
        (".ci/run.sh", "full", "CI configuration"),
        # A name without a slash counts at the root only: this one is a module.
        ("tests/data/setup.py", "import graph", "tests that import it, directly or transitively"),
        ("tests/sub/conftest.py", "conftest", "applies to every test under tests/sub/"),
        ("tests/test_leaf.py", "test file", "a changed test runs itself"),
        ("tests/test_new.py", "test file", "a changed test runs itself"),
        (
            "README.md",
            "quiet",
            (
                "cannot change a test's outcome (*.md): outside every test directory, "
                "not a doctest file (test*.txt)"
            ),
        ),
        (
            "docs/guide/page.html",
            "quiet",
            (
                "cannot change a test's outcome (docs/**): outside every test directory, "
                "not a doctest file (test*.txt)"
            ),
        ),
        (
            "tests/sub/notes.md",
            "test data",
            (
                "under the test directory tests/ (*.md is quiet elsewhere): "
                "no rule proves no test there reads it, so its tests run"
            ),
        ),
        ("pkg/leaf.py", "import graph", "tests that import it, directly or transitively"),
        ("pkg/data.bin", "unknown", "no rule knows which tests read this file kind: fail open"),
    ],
)
def test_each_changed_path_is_claimed_by_the_first_rule_that_knows_it(
    tmp_path: Path, path: str, rule: str, detail: str
) -> None:
    assert rule_for(path, _project(tmp_path)) == (rule, detail)


def test_the_affected_settings_add_full_paths_owners_and_quiet_patterns(tmp_path: Path) -> None:
    project = _project(
        tmp_path,
        _with_settings(
            '\n[tool.lanes.affected]\nfull = ["scripts/*.sh", "pkg/leaf.py"]\nquiet = ["*.rst"]\n'
            '[tool.lanes.affected.owners]\n"pkg/data/*.json" = ["tests/test_other.py"]\n'
            '"pkg/data/a.*" = ["tests/test_leaf.py", "tests/test_other.py"]\n'
        ),
    )
    # The project's own full list comes first, even before the import graph.
    assert rule_for("scripts/run.sh", project) == (
        "full",
        "listed in [tool.lanes.affected] full (scripts/*.sh)",
    )
    assert rule_for("pkg/leaf.py", project) == (
        "full",
        "listed in [tool.lanes.affected] full (pkg/leaf.py)",
    )
    assert rule_for("pkg/data/a.json", project) == (
        "owners",
        "[tool.lanes.affected.owners] 'pkg/data/*.json'",
    )
    assert static_choice(project, "pkg/data/a.json", "modified", "owners", "d") == (
        ["tests/test_leaf.py", "tests/test_other.py"],
        "d",
    )
    assert static_choice(project, "pkg/data/b.json", "modified", "owners", "d") == (
        ["tests/test_other.py"],
        "d",
    )
    # quiet replaces the default list: a Markdown file is no longer quiet.
    assert rule_for("docs/page.rst", project)[0] == "quiet"
    assert rule_for("README.md", project)[0] == "unknown"


def test_a_pattern_with_a_slash_matches_the_whole_path_and_without_the_name() -> None:
    assert matches("docs/a/b.md", "docs/**")
    assert matches("docs/a/b.md", "*.md")
    assert matches("a/b/README.md", "README.md")
    assert not matches("a/docs/b.md", "docs/**")
    assert not matches("docs/a/b.md", "docs/*.txt")
    # Case counts: README.MD is not *.md.
    assert not matches("README.MD", "*.md")
    assert not matches("PKG/A.PY", "pkg/*")


def test_a_path_is_under_a_directory_only_at_a_slash() -> None:
    assert under("tests/a.py", "tests")
    assert under("tests/a.py", "tests/")
    assert under("tests", "tests")
    assert under("anything.py", "")
    assert under("anything.py", ".")
    assert not under("tests2/a.py", "tests")
    assert not under("test", "tests")


def test_test_data_belongs_to_the_outermost_test_directory(tmp_path: Path) -> None:
    project = _project(tmp_path)
    assert dir_holding(project, "tests/sub/deep/data.md") == "tests"
    assert dir_holding(project, "pkg/data.md") is None
    assert static_choice(project, "tests/sub/notes.md", "modified", "test data", "d") == (
        ["tests/sub/test_sub.py", "tests/test_leaf.py", "tests/test_mid.py", "tests/test_other.py"],
        "d",
    )
    # A rule that names no test directory selects nothing.
    assert static_choice(project, "pkg/notes.md", "modified", "test data", "d") == ([], "d")


def test_a_changed_test_file_selects_itself_and_a_deleted_one_nothing(tmp_path: Path) -> None:
    project = _project(tmp_path)
    assert static_choice(project, "tests/test_leaf.py", "modified", "test file", "d") == (
        ["tests/test_leaf.py"],
        "d",
    )
    assert static_choice(project, "tests/test_gone.py", "deleted", "test file", "d") == (
        [],
        "deleted: nothing left to run",
    )
    assert static_choice(project, "tests/sub/conftest.py", "modified", "conftest", "d") == (
        ["tests/sub/test_sub.py"],
        "d",
    )
    assert static_choice(project, "pkg/data.bin", "modified", "unknown", "d") == ([], "d")
    assert static_choice(project, "README.md", "modified", "quiet", "d") == ([], "d")


def test_the_import_graph_counts_direct_and_transitive_importers(tmp_path: Path) -> None:
    project = _project(tmp_path)
    assert graph_tests(project, "pkg/leaf.py") == (
        ["tests/test_leaf.py", "tests/test_mid.py"],
        "1 direct, 1 transitive",
    )
    assert graph_tests(project, "pkg/mid.py") == (["tests/test_mid.py"], "1 direct, 0 transitive")
    assert import_chains(project, "pkg/leaf.py", ["tests/test_leaf.py", "tests/test_mid.py"]) == (
        LEAF_CHAINS
    )
    assert import_chains(project, "pkg/leaf.py", ["tests/test_other.py"]) == {}


def test_a_conftest_importing_a_module_selects_every_test_below_it(tmp_path: Path) -> None:
    conftest = "from pkg.other import h\n\nimport pytest\n\n\n@pytest.fixture\ndef word() -> str:\n    return h()\n"
    project = _project(tmp_path, {"tests/sub/conftest.py": conftest})
    assert graph_tests(project, "pkg/other.py") == (
        ["tests/sub/test_sub.py", "tests/test_other.py"],
        "1 direct, 1 transitive",
    )
    assert import_chains(
        project, "pkg/other.py", ["tests/sub/test_sub.py", "tests/test_other.py"]
    ) == {
        "tests/sub/test_sub.py": "under a conftest that imports it: tests/sub/conftest.py -> pkg/other.py",
        "tests/test_other.py": "imports it: tests/test_other.py -> pkg/other.py",
    }


def test_a_plan_lists_each_change_with_its_rule_and_each_test_with_its_chain(
    tmp_path: Path,
) -> None:
    plan = _plan(_project(tmp_path), pkg__leaf_DOT_py="modified", README_DOT_md="modified")
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
    plan = _plan(
        _project(tmp_path), pkg__leaf_DOT_py="modified", tests__test_leaf_DOT_py="modified"
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
    plan = _plan(_project(tmp_path), pkg__mid_DOT_py="modified", tests__test_other_DOT_py="added")
    assert plan["counts"] == {"selected": 2, "total": 4, "share": 0.5}
    plan = _plan(_project(tmp_path), pkg__mid_DOT_py="modified")
    assert plan["counts"] == {"selected": 1, "total": 4, "share": 0.25}


def test_the_share_is_rounded_to_four_places(tmp_path: Path) -> None:
    project = _project(tmp_path, drop=("tests/test_other.py",))
    assert _plan(project, pkg__mid_DOT_py="modified")["counts"] == {
        "selected": 1,
        "total": 3,
        "share": 0.3333,
    }


def test_a_full_change_runs_every_test_and_every_suite_whole(tmp_path: Path) -> None:
    project = _project(tmp_path)
    plan = _plan(project, pyproject_DOT_toml="modified", pkg__leaf_DOT_py="modified")
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
    assert plan["suites"] == [
        {"name": "tests", "command": ["pytest", "tests"], "files": [], "full": True}
    ]
    assert plan["counts"] == {"selected": 4, "total": 4, "share": 1.0}


def test_an_unknown_file_kind_fails_open(tmp_path: Path) -> None:
    plan = _plan(_project(tmp_path), pkg__data_DOT_bin="added")
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
    plan = _plan(_project(tmp_path, drop=tests), pkg__leaf_DOT_py="modified")
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
    assert _plan(_project(tmp_path / "empty", drop=tests))["full"] is False


def test_a_file_that_does_not_parse_is_named_as_a_blind_spot(tmp_path: Path) -> None:
    project = _project(
        tmp_path, {"pkg/broken.py": "def f(:\n", "tests/test_broken.py": "import pkg.broken\n"}
    )
    plan = _plan(project, pkg__broken_DOT_py="modified")
    assert [(s["file"], s["line"]) for s in plan["blind_spots"]] == [("pkg/broken.py", 0)]
    assert plan["blind_spots"][0]["what"].startswith("unparsable: ")
    # Not involved in the change: not named.
    assert _plan(project, pkg__mid_DOT_py="modified")["blind_spots"] == []


def test_a_computed_import_that_could_load_a_changed_module_selects_its_tests(
    tmp_path: Path,
) -> None:
    loader = "import importlib\n\n\ndef load(name: str) -> object:\n    return importlib.import_module('pkg.' + name)\n"
    test = "from pkg.loader import load\n\n\ndef test_load() -> None:\n    assert load('other')\n"
    project = _project(tmp_path, {"pkg/loader.py": loader, "tests/test_loader.py": test})
    plan = _plan(project, pkg__other_DOT_py="modified")
    reasons = {t["file"]: t["reasons"] for t in plan["tests"]}
    assert reasons["tests/test_loader.py"][0]["rule"] == "computed import"
    assert reasons["tests/test_other.py"][0]["rule"] == "import graph"
    assert next(c for c in plan["changed"] if c["path"] == "pkg/other.py")["tests"] == 2
    assert [s["file"] for s in plan["blind_spots"]] == ["pkg/loader.py"]
    assert plan["blind_spots"][0]["what"].startswith("computed ")
    assert plan["blind_spots"][0]["what"].endswith(": could import modules under pkg")
    # Once the loader is involved itself, its own blind spot names it.
    plan = _plan(project, pkg__other_DOT_py="modified", pkg__loader_DOT_py="modified")
    assert [s["file"] for s in plan["blind_spots"]] == ["pkg/loader.py"]


SUITES = (
    '\n[tool.lanes.suites.unit]\npaths = ["tests/sub"]\ncommand = "pytest -q tests/sub/"\n'
    '[tool.lanes.suites.rest]\npaths = ["tests"]\ncommand = "pytest -x tests --tb=short"\n'
    '[tool.lanes.suites.make]\npaths = ["tests"]\nrunner = "command"\ncommand = "make check"\n'
)


def test_each_suite_runs_its_own_selected_files_with_its_own_options(tmp_path: Path) -> None:
    project = _project(tmp_path, _with_settings(SUITES))
    runs = [
        r.to_dict()
        for r in suite_runs(
            project, ["tests/sub/test_sub.py", "tests/test_leaf.py"], {}, full=False
        )
    ]
    assert runs == [
        # The suite's path selectors are replaced by the selected files.
        {
            "name": "unit",
            "command": ["pytest", "-q", "tests/sub/test_sub.py"],
            "files": ["tests/sub/test_sub.py"],
            "full": False,
        },
        {
            "name": "rest",
            "command": ["pytest", "-x", "--tb=short", "tests/test_leaf.py"],
            "files": ["tests/test_leaf.py"],
            "full": False,
        },
    ]
    # The full set: every suite whole, its own command, whatever its runner.
    assert [r.to_dict() for r in suite_runs(project, [], {}, full=True)] == [
        {"name": "unit", "command": ["pytest", "-q", "tests/sub/"], "files": [], "full": True},
        {
            "name": "rest",
            "command": ["pytest", "-x", "tests", "--tb=short"],
            "files": [],
            "full": True,
        },
        {"name": "make", "command": ["make", "check"], "files": [], "full": True},
    ]


def test_a_selected_file_no_suite_holds_runs_in_a_plain_pytest(tmp_path: Path) -> None:
    project = _project(
        tmp_path, _with_settings('\n[tool.lanes.suites.unit]\npaths = ["tests/sub"]\n')
    )
    runs = [
        r.to_dict()
        for r in suite_runs(project, ["extra/test_x.py", "tests/sub/test_sub.py"], {}, full=False)
    ]
    assert runs == [
        {
            "name": "unit",
            "command": ["pytest", "tests/sub/test_sub.py"],
            "files": ["tests/sub/test_sub.py"],
            "full": False,
        },
        {
            "name": "(no suite)",
            "command": ["pytest", "extra/test_x.py"],
            "files": ["extra/test_x.py"],
            "full": False,
        },
    ]
    assert suite_runs(project, [], {}, full=False) == []


def test_a_file_the_map_narrowed_is_named_by_its_test_ids(tmp_path: Path) -> None:
    project = _project(tmp_path)
    nodes = {"tests/test_leaf.py": ["tests/test_leaf.py::test_f", "tests/test_leaf.py::test_g"]}
    runs = [
        r.to_dict()
        for r in suite_runs(project, ["tests/test_leaf.py", "tests/test_mid.py"], nodes, full=False)
    ]
    assert runs == [
        {
            "name": "tests",
            "command": [
                "pytest",
                "tests/test_mid.py",
                "tests/test_leaf.py::test_f",
                "tests/test_leaf.py::test_g",
            ],
            "files": ["tests/test_leaf.py", "tests/test_mid.py"],
            "full": False,
            "nodes": ["tests/test_leaf.py::test_f", "tests/test_leaf.py::test_g"],
        }
    ]
    runs = [
        r.to_dict()
        for r in suite_runs(
            project, ["extra/test_x.py"], {"extra/test_x.py": ["extra/test_x.py::t"]}, full=False
        )
    ]
    assert runs == [
        {
            "name": "(no suite)",
            "command": ["pytest", "extra/test_x.py::t"],
            "files": ["extra/test_x.py"],
            "full": False,
            "nodes": ["extra/test_x.py::t"],
        }
    ]


def _many(count: int) -> list[str]:
    return [f"tests/test_many{i:02}.py" for i in range(count)]


@pytest.mark.parametrize(
    "source", ["pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", "noxfile.py"]
)
def test_a_large_selection_runs_under_xdist_when_the_project_does(
    tmp_path: Path, source: str
) -> None:
    project = _project(tmp_path, {source: FILES.get(source, "") + "\n# addopts = -p xdist\n"})
    assert runs_xdist(tmp_path)
    runs = suite_runs(project, _many(PARALLEL_FROM), {}, full=False)
    assert runs[0].command[:3] == ["pytest", "-n", "auto"]
    # One file fewer: a serial run is cheaper than starting the workers.
    assert (
        suite_runs(project, _many(PARALLEL_FROM - 1), {}, full=False)[0].command[1]
        == "tests/test_many00.py"
    )


def test_recorded_durations_size_a_selection_not_its_file_count(tmp_path: Path) -> None:
    # attrs (a 12 s suite, xdist in its test extra): 24 selected files under
    # -n auto cost twice the CPU of its serial full run, for no wall time.
    project = _project(tmp_path, {"tox.ini": "[testenv]\ndeps = pytest-xdist\n"})
    files = _many(20)

    def times(ms: int) -> RecordedTimes:
        return RecordedTimes({f"{f}::test_a": ms for f in files}, dict.fromkeys(files, ms))

    quick, slow = times(500), times(4000)  # 10 s and 80 s in all
    assert suite_runs(project, files, {}, full=False, times=quick)[0].command[1] == files[0]
    assert suite_runs(project, files, {}, full=False, times=slow)[0].command[:3] == [
        "pytest",
        "-n",
        "auto",
    ]
    # A file narrowed to one test counts that test's time only.
    narrowed = {f: [f"{f}::test_a"] for f in files}
    assert suite_runs(project, files, narrowed, full=False, times=slow)[0].command[1] == "-n"
    # A file the map never recorded has no time: the file count decides.
    unknown = [*files[: PARALLEL_FROM - 1], "tests/test_new.py"]
    assert suite_runs(project, unknown, {}, full=False, times=quick)[0].command[1] == "-n"


def test_numprocesses_in_the_config_is_running_under_xdist(tmp_path: Path) -> None:
    _project(tmp_path, {"setup.cfg": "[tool:pytest]\nnumprocesses = 2\n"})
    assert runs_xdist(tmp_path)


def test_a_project_that_never_names_xdist_runs_serially(tmp_path: Path) -> None:
    project = _project(tmp_path, {"tox.ini": "[tox]\n"})
    (tmp_path / "pytest.ini").mkdir()  # unreadable as a file: skipped
    (tmp_path / "setup.cfg").write_bytes(b"\xff xdist")  # not UTF-8: skipped
    assert not runs_xdist(tmp_path)
    assert suite_runs(project, _many(20), {}, full=False)[0].command[1] == "tests/test_many00.py"


@pytest.mark.parametrize("choice", ["-n 3", "-n3", "--numprocesses 3", "--numprocesses=3"])
def test_a_suite_that_chooses_its_workers_keeps_its_choice(tmp_path: Path, choice: str) -> None:
    suite = f'\n# xdist\n[tool.lanes.suites.unit]\npaths = ["tests"]\ncommand = "pytest {choice} tests"\n'
    project = _project(tmp_path, _with_settings(suite))
    command = suite_runs(project, _many(20), {}, full=False)[0].command
    assert command == ["pytest", *choice.split(), *_many(20)]


def test_gates_fire_for_their_inputs_one_reason_per_changed_path(tmp_path: Path) -> None:
    gates = (
        '\n[tool.lanes.affected.gates.lint]\ncommand = "nox -s lint"\ninputs = ["*.py", "pkg/*"]\n'
        '[tool.lanes.affected.gates.docs]\ncommand = "mkdocs build"\ninputs = ["docs/**"]\n'
    )
    project = _project(tmp_path, _with_settings(gates))
    plan = _plan(project, pkg__leaf_DOT_py="modified", tests__test_leaf_DOT_py="modified")
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
    plan = _plan(project, _DOT_github__ci_DOT_yml="modified")
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
    project = _project(
        tmp_path, {"noxfile.py": "import nox\n\n\n@nox.session\ndef lint(session):\n    pass\n"}
    )
    lint = {"name": "lint", "command": "nox -s lint"}
    assert _plan(project, pkg__leaf_DOT_py="modified")["gates"] == [
        {**lint, "reasons": [{"rule": "gate", "changed": "pkg/leaf.py", "detail": "matches *.py"}]}
    ]
    for path, pattern in [("pkg/types.pyi", "*.pyi"), ("setup.cfg", "setup.cfg")]:
        gates = make_plan(project, Changes("main", None, {path: "added"})).to_dict()["gates"]
        assert [g["reasons"][0]["detail"] for g in gates] == [f"matches {pattern}"]
    assert _plan(project, README_DOT_md="modified")["gates"] == []
    # No lint session, or no noxfile: no derived gate.
    project = _project(tmp_path / "other", {"noxfile.py": "def tests(session):\n    pass\n"})
    assert _plan(project, pkg__leaf_DOT_py="modified")["gates"] == []
    (tmp_path / "other" / "noxfile.py").unlink()
    assert _plan(project, pkg__leaf_DOT_py="modified")["gates"] == []


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
    project = _project(tmp_path, {"tests/data.md": "x\n"})
    test_map = _map(
        tmp_path,
        [
            ("tests/test_leaf.py::test_f", "tests/test_leaf.py", [0]),
            ("tests/test_mid.py::test_g", "tests/test_mid.py", []),
        ],
        ["tests/data.md"],
    )
    plan = _plan(project, test_map, tests__data_DOT_md="modified")
    assert plan["changed"] == [
        {
            "path": "tests/data.md",
            "change": "modified",
            "rule": "map",
            "detail": "read by 1 recorded test files",
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
    plan = _plan(project, _map(tmp_path, [], ["other.md"]), tests__data_DOT_md="modified")
    assert plan["changed"][0]["rule"] == "test data"
    assert plan["changed"][0]["tests"] == 4


LOADER = {
    "pkg/loader.py": "import importlib\n\n\ndef load(name: str) -> object:\n"
    "    return importlib.import_module('pkg.' + name)\n",
    "tests/test_loader.py": "from pkg.loader import load\n\n\ndef test_load() -> None:\n    assert load('leaf')\n",
}


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


def _by_file(plan: dict[str, Any]) -> dict[str, Any]:
    return {t["file"]: t for t in plan["tests"]}


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
    plan = _plan(project, test_map, pkg__leaf_DOT_py="modified")
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
    plan = _plan(project, test_map, pkg__leaf_DOT_py="modified")
    assert plan["changed"][0]["detail"] == (
        "map: 2 of 2 statically selected test files, and 1 the import graph does not reach "
        "(the recording saw them execute it) (2 test ids); changed f"
        # A map without the site watched (recorded before it existed) cannot narrow its net.
        "; computed import at pkg/loader.py:5: the recording did not watch it "
        "(a map older than the site)"
    )
    tests = _by_file(plan)
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
    tests = _by_file(_plan(project, test_map, pkg__leaf_DOT_py="modified"))
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
    plan = _plan(project, test_map, pkg__leaf_DOT_py="modified")
    tests = _by_file(plan)
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
    plan = _plan(project, test_map, pkg__leaf_DOT_py="modified", tests__test_mid_DOT_py="deleted")
    assert sorted(_by_file(plan)) == ["tests/test_leaf.py"]
    assert next(c for c in plan["changed"] if c["path"] == "tests/test_mid.py") == {
        "path": "tests/test_mid.py",
        "change": "deleted",
        "rule": "test file",
        "detail": "deleted: nothing left to run",
        "tests": 0,
    }


def _loader_net(plan: dict[str, Any]) -> list[str]:
    return [r["rule"] for r in _by_file(plan).get("tests/test_loader.py", {}).get("reasons", [])]


VOUCHED_LOADER = [
    _executed("tests/test_leaf.py::test_f", 0),
    _executed("tests/test_loader.py::test_load"),
]


def test_a_file_new_since_the_map_keeps_the_whole_computed_import_net(tmp_path: Path) -> None:
    project, test_map = _recorded(tmp_path, LOADER, VOUCHED_LOADER)
    (tmp_path / "pkg/new.py").write_text("def n() -> int:\n    return 1\n")
    project = Project.scan(project.config, sorted([*project.files, "pkg/new.py"]))
    assert _loader_net(_plan(project, test_map, pkg__new_DOT_py="added")) == ["computed import"]


def test_a_deleted_module_keeps_the_whole_computed_import_net(tmp_path: Path) -> None:
    project, test_map = _recorded(tmp_path, LOADER, VOUCHED_LOADER)
    (tmp_path / "pkg/other.py").unlink()
    plan = _plan(project, test_map, pkg__other_DOT_py="deleted")
    assert _loader_net(plan) == ["computed import"]
    assert plan["changed"][0]["detail"] == (
        "1 direct, 0 transitive; computed import at pkg/loader.py:5: the recording did not "
        "watch it (a map older than the site)"
    )
    assert plan["changed"][0]["rule"] == "import graph"


def test_a_changed_function_that_ran_outside_every_test_keeps_the_whole_net(tmp_path: Path) -> None:
    project, test_map = _recorded(tmp_path, LOADER, VOUCHED_LOADER)
    test_map.document["outside"] = [0]
    (tmp_path / "pkg/leaf.py").write_text("def f(x: int) -> int:\n    return x + 2\n")
    assert _loader_net(_plan(project, test_map, pkg__leaf_DOT_py="modified")) == ["computed import"]
    # Inside functions that ran in tests only: the vouched loader test is judged by the map.
    test_map.document["outside"] = []
    assert _loader_net(_plan(project, test_map, pkg__leaf_DOT_py="modified")) == []


def test_a_quiet_file_the_recording_saw_read_selects_its_readers(tmp_path: Path) -> None:
    project = _project(tmp_path)
    test_map = _map(
        tmp_path, [("tests/test_leaf.py::test_f", "tests/test_leaf.py", [0])], ["README.md"]
    )
    plan = _plan(project, test_map, README_DOT_md="modified")
    assert plan["changed"][0]["rule"] == "map"
    assert [t["file"] for t in plan["tests"]] == ["tests/test_leaf.py"]


def test_a_plan_made_without_a_map_state_says_none(tmp_path: Path) -> None:
    plan = make_plan(_project(tmp_path), Changes("main", None, {"pkg/mid.py": "modified"}))
    assert plan.to_dict()["map"] == ""


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
    tests = _by_file(_plan(project, test_map, pkg__leaf_DOT_py="modified"))
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
    plan = _plan(project, test_map, pkg__leaf_DOT_py="modified", pkg__mid_DOT_py="modified")
    assert "nodes" not in _by_file(plan)["tests/test_mid.py"]
    assert plan["suites"][0]["command"] == ["pytest", "tests/test_leaf.py", "tests/test_mid.py"]


def test_a_computed_import_reaching_only_another_package_is_not_a_blind_spot(
    tmp_path: Path,
) -> None:
    plugins = (
        "import importlib\n\n\ndef plugin(name: str) -> object:\n"
        "    return importlib.import_module('pkg.plugins.' + name)\n"
    )
    project = _project(tmp_path, {"pkg/aloader.py": plugins, **LOADER})
    plan = _plan(project, pkg__other_DOT_py="modified")
    assert [s["file"] for s in plan["blind_spots"]] == ["pkg/loader.py"]
    # The loader that cannot reach pkg.other comes first and is passed over.
    assert _loader_net(plan) == ["computed import"]


def test_a_conftest_reaching_a_computed_import_selects_its_subtree(tmp_path: Path) -> None:
    conftest = FILES["tests/sub/conftest.py"] + "\nfrom pkg.loader import load\n"
    project = _project(tmp_path, {"tests/sub/conftest.py": conftest, **LOADER})
    tests = _by_file(_plan(project, pkg__other_DOT_py="modified"))
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
    project = _project(tmp_path, {"tests/sub/test_helper.py": helper})
    tests = _by_file(_plan(project, tests__sub__conftest_DOT_py="modified"))
    assert tests["tests/sub/test_helper.py"]["reasons"] == [
        {
            "rule": "conftest",
            "changed": "tests/sub/conftest.py",
            "detail": "applies to every test under tests/sub/",
        }
    ]


def test_a_test_under_two_importing_conftests_names_the_shorter_chain(tmp_path: Path) -> None:
    extra = {
        "tests/conftest.py": "from pkg.mid import g\n",
        "tests/sub/conftest.py": FILES["tests/sub/conftest.py"] + "\nfrom pkg.leaf import f\n",
    }
    project = _project(tmp_path, extra)
    chains = import_chains(project, "pkg/leaf.py", ["tests/sub/test_sub.py", "tests/test_other.py"])
    assert chains == {
        "tests/sub/test_sub.py": "under a conftest that imports it: tests/sub/conftest.py -> pkg/leaf.py",
        "tests/test_other.py": "under a conftest that imports it: "
        "tests/conftest.py -> pkg/mid.py -> pkg/leaf.py",
    }


def test_a_derived_lint_gate_fires_for_the_project_configuration(tmp_path: Path) -> None:
    project = _project(tmp_path, {"noxfile.py": "def lint(session):\n    pass\n"})
    assert _plan(project, pyproject_DOT_toml="modified")["gates"] == [
        {
            "name": "lint",
            "command": "nox -s lint",
            "reasons": [
                {"rule": "gate", "changed": "pyproject.toml", "detail": "matches pyproject.toml"}
            ],
        }
    ]


def test_a_suite_holding_no_selected_file_is_skipped_and_the_next_one_runs(tmp_path: Path) -> None:
    project = _project(tmp_path, _with_settings(SUITES))
    runs = suite_runs(project, ["tests/test_leaf.py"], {}, full=False)
    assert [(r.name, r.command) for r in runs] == [
        ("rest", ["pytest", "-x", "--tb=short", "tests/test_leaf.py"])
    ]


def test_a_suite_path_written_with_a_trailing_slash_is_still_replaced(tmp_path: Path) -> None:
    suite = '\n[tool.lanes.suites.unit]\npaths = ["tests/sub/"]\ncommand = "pytest tests/sub -q"\n'
    project = _project(tmp_path, _with_settings(suite))
    runs = suite_runs(project, ["tests/sub/test_sub.py"], {}, full=False)
    assert [r.command for r in runs] == [["pytest", "-q", "tests/sub/test_sub.py"]]


def test_a_large_selection_outside_every_suite_runs_under_xdist_too(tmp_path: Path) -> None:
    project = _project(tmp_path, {"tox.ini": "[testenv]\ndeps = pytest-xdist\n"})
    outside = [f"extra/test_many{i:02}.py" for i in range(PARALLEL_FROM)]
    runs = suite_runs(project, outside, {}, full=False)
    assert [(r.name, r.command[:3]) for r in runs] == [("(no suite)", ["pytest", "-n", "auto"])]


def test_a_src_layout_resolves_modules_under_src(tmp_path: Path) -> None:
    files = {
        "pyproject.toml": FILES["pyproject.toml"],
        "src/pkg/__init__.py": "",
        "src/pkg/leaf.py": FILES["pkg/leaf.py"],
        "tests/test_leaf.py": FILES["tests/test_leaf.py"],
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    project = Project.scan(load_config(tmp_path / "pyproject.toml"), sorted(files))
    assert project.roots == ("src", "")
    assert graph_tests(project, "src/pkg/leaf.py") == (
        ["tests/test_leaf.py"],
        "1 direct, 0 transitive",
    )


def test_a_quiet_file_names_every_doctest_glob_it_is_not(tmp_path: Path) -> None:
    settings = {
        "pyproject.toml": FILES["pyproject.toml"].replace(
            'testpaths = ["tests"]\n',
            'testpaths = ["tests"]\naddopts = "--doctest-glob=test*.txt --doctest-glob=doc*.txt"\n',
        )
    }
    assert rule_for("README.md", _project(tmp_path, settings)) == (
        "quiet",
        (
            "cannot change a test's outcome (*.md): outside every test directory, "
            "not a doctest file (test*.txt doc*.txt)"
        ),
    )


SCRIPTS = '\n[project.scripts]\nplanted = "pkg.other:main"\n'


def test_a_test_running_a_console_script_depends_on_the_module_it_runs(tmp_path: Path) -> None:
    cli = "import subprocess\n\n\ndef test_cli() -> None:\n    subprocess.run(['planted'], check=False)\n"
    conftest = FILES["tests/sub/conftest.py"] + "\nCOMMAND = 'planted'\n"
    project = _project(
        tmp_path,
        {
            "pyproject.toml": FILES["pyproject.toml"] + SCRIPTS,
            "tests/test_cli.py": cli,
            "tests/sub/conftest.py": conftest,
            # In library code a string equal to a script name is no dependency.
            "pkg/mid.py": FILES["pkg/mid.py"] + "\nNAME = 'planted'\n",
        },
    )
    assert graph_tests(project, "pkg/other.py") == (
        ["tests/sub/test_sub.py", "tests/test_cli.py", "tests/test_other.py"],
        "2 direct, 1 transitive",
    )


def test_a_project_table_without_scripts_or_without_a_project_table_has_none(
    tmp_path: Path,
) -> None:
    cli = "import subprocess\n\n\ndef test_cli() -> None:\n    subprocess.run(['planted'], check=False)\n"
    pytest_only = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    for pyproject in (
        pytest_only,
        FILES["pyproject.toml"],
        pytest_only + '[project]\nscripts = "planted"\n',
    ):
        root = tmp_path / str(len(list(tmp_path.iterdir())))
        project = _project(root, {"pyproject.toml": pyproject, "tests/test_cli.py": cli})
        assert graph_tests(project, "pkg/other.py")[0] == ["tests/test_other.py"]


def test_a_suites_own_paths_are_where_pytest_collects_too(tmp_path: Path) -> None:
    suite = '\n[tool.lanes.suites.extra]\npaths = ["extra"]\n'
    project = _project(
        tmp_path,
        {**_with_settings(suite), "extra/test_x.py": "def test_x() -> None:\n    pass\n"},
    )
    assert "extra/test_x.py" in project.tests
