"""Which configured suites a command runs: paths normalised against the
project root, each suite once in command order, command suites by their argv,
and what a suite selects as the pytest plugin reads it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.config import load_config
from lanes.governor.classify.classifier import classify
from lanes.governor.policy.suites import normalise_path, resolve, suite_selection
from tests.support.git import make_repo

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize(
    ("path", "cwd", "root", "normal"),
    [
        ("./tests/unit/", None, None, "tests/unit"),
        ("tests//unit/../unit", None, None, "tests/unit"),
        ("", None, None, "."),
        ("/", None, None, "/"),
        ("//", None, None, "/"),
        # Only slashes are trimmed: the rest of a name is kept as written.
        ("tests/unit ", None, None, "tests/unit "),
        ("tests/UNIT_X", None, None, "tests/UNIT_X"),
        # Run from a subdirectory: relative to the project root.
        ("unit", "/r/tests", "/r", "tests/unit"),
        ("/r/tests/unit/", "/elsewhere", "/r", "tests/unit"),
        (".", "/r", "/r", "."),
        # Outside the root: left as written (normalised), never made relative.
        ("../other/", "/r", "/r", "../other"),
        ("/other/tests", "/r", "/r", "/other/tests"),
        # Without both a cwd and a root there is nothing to be relative to.
        ("unit", "/r/tests", None, "unit"),
        ("unit", None, "/r", "unit"),
    ],
)
def test_paths_are_normalised_against_the_project_root(
    path: str, cwd: str | None, root: str | None, normal: str
) -> None:
    assert normalise_path(path, cwd=cwd, root=root) == normal


PYPROJECT = """\
[tool.lanes.suites.unit]
paths = ["tests/unit"]
command = "pytest tests/unit -q"

[tool.lanes.suites.marked]
command = "pytest tests/unit -m 'not slow'"

[tool.lanes.suites.everything]
command = "pytest tests"

[tool.lanes.suites.verify]
runner = "command"
command = "make verify"

[tool.lanes.suites.lint]
runner = "command"
command = "make lint"
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    files = {"pyproject.toml": PYPROJECT}
    for sub in ("tests/unit", "tests/integ"):
        files[f"{sub}/test_a.py"] = "def test_a():\n    pass\n"
    return make_repo(tmp_path / "repo", files)


def _names(root: Path, command: str, *, cwd: Path | None = None) -> list[str]:
    config = load_config(cwd=root)
    classification = classify(command, cwd or root)
    return [m.name for m in resolve(classification, config, cwd=None if cwd is None else str(cwd))]


def test_each_suite_once_in_command_order(root: Path) -> None:
    assert _names(root, "make lint && pytest tests/unit && make verify && make lint") == [
        "unit",
        "lint",
        "verify",
    ]
    assert _names(root, "pytest tests/unit; pytest tests/unit -x") == ["unit"]


def test_a_suite_is_its_paths_its_markers_and_nothing_less(root: Path) -> None:
    assert _names(root, "pytest tests/unit -m 'not slow'") == ["marked"]
    assert _names(root, "pytest tests/unit -m slow") == []
    assert _names(root, "pytest tests/unit -k smoke") == []
    assert _names(root, "pytest tests/unit tests/integ") == []
    assert _names(root, "pytest tests") == ["everything"]
    assert _names(root, "pytest") == ["everything"]


def test_a_run_from_a_subdirectory_is_read_against_the_root(root: Path) -> None:
    assert _names(root, "pytest unit", cwd=root / "tests") == ["unit"]
    assert _names(root, "pytest unit") == []


def test_a_command_suite_is_its_exact_argv(root: Path) -> None:
    assert _names(root, "env FOO=1 make verify") == ["verify"]
    assert _names(root, "make verify V=1") == []
    assert _names(root, "echo make verify") == []


def test_what_a_suite_selects_as_the_plugin_reads_it(root: Path) -> None:
    config = load_config(cwd=root)
    suites = config.suites
    assert suite_selection(suites["unit"], str(root)) == (frozenset({"tests/unit"}), None, False)
    assert suite_selection(suites["marked"], str(root)) == (
        frozenset({"tests/unit"}),
        "not slow",
        False,
    )
    # `pytest tests` runs the whole test root: a full run, no paths to compare.
    assert suite_selection(suites["everything"], str(root)) == (frozenset(), None, True)


def test_a_match_carries_the_invocation_that_ran_the_suite(root: Path) -> None:
    config = load_config(cwd=root)
    classification = classify("pytest tests/unit -q && make verify", root)
    unit, verify = resolve(classification, config, cwd=None)
    assert unit.invocation is not None
    assert (unit.invocation.runner, unit.invocation.paths) == ("pytest", ("tests/unit",))
    assert verify.invocation is None


def test_a_suite_of_the_whole_test_root_is_read_against_the_project(tmp_path: Path) -> None:
    # `pytest spec` runs everything when spec/ is the configured test root,
    # which only the project's own configuration says: a bare `pytest` is
    # then that suite, even though the suite lists its path.
    pyproject = (
        '[tool.pytest.ini_options]\ntestpaths = ["spec"]\n'
        '[tool.lanes.suites.all]\npaths = ["spec"]\ncommand = "pytest spec"\n'
    )
    root = make_repo(tmp_path / "spec-root", {"pyproject.toml": pyproject, "spec/test_a.py": ""})
    config = load_config(cwd=root)
    assert suite_selection(config.suites["all"], str(root)) == (frozenset({"spec"}), None, True)
    assert _names(root, "pytest") == ["all"]


def test_a_command_suite_match_carries_the_segment_that_ran_it(root: Path) -> None:
    # The segment is where a LANES_TEST_FORCE=1 prefix is looked for.
    config = load_config(cwd=root)
    [verify] = resolve(classify("echo start; make verify", root), config, cwd=None)
    assert verify.segment.argv == ("make", "verify")


SCRIPTED = """\
[tool.lanes.suites.scripted]
runner = "pytest"
paths = ["tests/unit"]
command = "./run-tests.sh"

[tool.lanes.suites.nothing]
command = "# runs nothing"
"""


def test_a_suite_behind_a_script_is_its_runner_on_its_paths(tmp_path: Path) -> None:
    # The script's own text says nothing about pytest: the suite is pytest on
    # its listed paths, with no -m expression, never a bare full run.
    root = make_repo(tmp_path / "scripted", {"pyproject.toml": SCRIPTED, "tests/unit/t.py": ""})
    config = load_config(cwd=root)
    assert suite_selection(config.suites["scripted"], str(root)) == (
        frozenset({"tests/unit"}),
        None,
        False,
    )
    assert _names(root, "pytest tests/unit") == ["scripted"]
    assert _names(root, "pytest") == []


def test_a_suite_whose_command_runs_nothing_matches_nothing(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "idle", {"pyproject.toml": SCRIPTED, "tests/unit/t.py": ""})
    config = load_config(cwd=root)
    assert suite_selection(config.suites["nothing"], str(root)) == (frozenset(), None, False)
    assert _names(root, "# runs nothing") == []
