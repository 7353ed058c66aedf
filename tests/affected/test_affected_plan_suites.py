"""The suite commands a selection runs as, in-process on real project files.

:func:`lanes.affected.suites.suite_runs` on the planted project
(:mod:`tests.affected.plan_helpers`) and its ``[tool.lanes.suites]``: which
suite runs each selected file with its own options (or a plain pytest when no
suite holds it), how a suite's path selectors are replaced by the files or the
test ids the map narrowed them to, what the full set runs, and when a large
selection runs under xdist, sized by its files or its recorded durations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.affected.selfcheck import FILES
from lanes.affected.suites import PARALLEL_FROM, RecordedTimes, runs_xdist, suite_runs
from tests.affected.plan_helpers import planted_project, with_settings

if TYPE_CHECKING:
    from pathlib import Path


SUITES = (
    '\n[tool.lanes.suites.unit]\npaths = ["tests/sub"]\ncommand = "pytest -q tests/sub/"\n'
    '[tool.lanes.suites.rest]\npaths = ["tests"]\ncommand = "pytest -x tests --tb=short"\n'
    '[tool.lanes.suites.make]\npaths = ["tests"]\nrunner = "command"\ncommand = "make check"\n'
)


def test_each_suite_runs_its_own_selected_files_with_its_own_options(tmp_path: Path) -> None:
    project = planted_project(tmp_path, with_settings(SUITES))
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
    project = planted_project(
        tmp_path, with_settings('\n[tool.lanes.suites.unit]\npaths = ["tests/sub"]\n')
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


# Declared: a file outside its paths runs in a plain pytest of its own. (With no
# suite declared, the suite is pytest's own, which holds every test file.)
DECLARED = '\n[tool.lanes.suites.tests]\npaths = ["tests"]\n'


def test_a_file_the_map_narrowed_is_named_by_its_test_ids(tmp_path: Path) -> None:
    project = planted_project(tmp_path, with_settings(DECLARED))
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
    project = planted_project(
        tmp_path, {source: FILES.get(source, "") + "\n# addopts = -p xdist\n"}
    )
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
    project = planted_project(tmp_path, {"tox.ini": "[testenv]\ndeps = pytest-xdist\n"})
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
    planted_project(tmp_path, {"setup.cfg": "[tool:pytest]\nnumprocesses = 2\n"})
    assert runs_xdist(tmp_path)


def test_a_project_that_never_names_xdist_runs_serially(tmp_path: Path) -> None:
    project = planted_project(tmp_path, {"tox.ini": "[tox]\n"})
    (tmp_path / "pytest.ini").mkdir()  # unreadable as a file: skipped
    (tmp_path / "setup.cfg").write_bytes(b"\xff xdist")  # not UTF-8: skipped
    assert not runs_xdist(tmp_path)
    assert suite_runs(project, _many(20), {}, full=False)[0].command[1] == "tests/test_many00.py"


@pytest.mark.parametrize("choice", ["-n 3", "-n3", "--numprocesses 3", "--numprocesses=3"])
def test_a_suite_that_chooses_its_workers_keeps_its_choice(tmp_path: Path, choice: str) -> None:
    suite = f'\n# xdist\n[tool.lanes.suites.unit]\npaths = ["tests"]\ncommand = "pytest {choice} tests"\n'
    project = planted_project(tmp_path, with_settings(suite))
    command = suite_runs(project, _many(20), {}, full=False)[0].command
    assert command == ["pytest", *choice.split(), *_many(20)]


def test_a_suite_holding_no_selected_file_is_skipped_and_the_next_one_runs(tmp_path: Path) -> None:
    project = planted_project(tmp_path, with_settings(SUITES))
    runs = suite_runs(project, ["tests/test_leaf.py"], {}, full=False)
    assert [(r.name, r.command) for r in runs] == [
        ("rest", ["pytest", "-x", "--tb=short", "tests/test_leaf.py"])
    ]


def test_a_suite_path_written_with_a_trailing_slash_is_still_replaced(tmp_path: Path) -> None:
    suite = '\n[tool.lanes.suites.unit]\npaths = ["tests/sub/"]\ncommand = "pytest tests/sub -q"\n'
    project = planted_project(tmp_path, with_settings(suite))
    runs = suite_runs(project, ["tests/sub/test_sub.py"], {}, full=False)
    assert [r.command for r in runs] == [["pytest", "-q", "tests/sub/test_sub.py"]]


def test_a_large_selection_outside_every_suite_runs_under_xdist_too(tmp_path: Path) -> None:
    xdist = {"tox.ini": "[testenv]\ndeps = pytest-xdist\n"}
    project = planted_project(tmp_path, {**with_settings(DECLARED), **xdist})
    outside = [f"extra/test_many{i:02}.py" for i in range(PARALLEL_FROM)]
    runs = suite_runs(project, outside, {}, full=False)
    assert [(r.name, r.command[:3]) for r in runs] == [("(no suite)", ["pytest", "-n", "auto"])]


def test_a_suites_own_paths_are_where_pytest_collects_too(tmp_path: Path) -> None:
    suite = '\n[tool.lanes.suites.extra]\npaths = ["extra"]\n'
    project = planted_project(
        tmp_path,
        {**with_settings(suite), "extra/test_x.py": "def test_x() -> None:\n    pass\n"},
    )
    assert "extra/test_x.py" in project.tests
