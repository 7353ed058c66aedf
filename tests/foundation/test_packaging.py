"""pyproject.toml, .ci/run, the README and the docs agree with what docs/architecture.md promises."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower()


def test_distribution_and_console_script(pyproject: dict[str, Any]) -> None:
    project = pyproject["project"]
    assert project["name"] == "lanekit"
    assert project["scripts"] == {"lanes": "lanes.cli:main"}
    assert project["requires-python"] == ">=3.11"


def test_the_bare_install_needs_nothing(pyproject: dict[str, Any]) -> None:
    # `pip install lanekit` is the governor: standard library only.
    assert pyproject["project"]["dependencies"] == []


def test_the_lanes_extra(pyproject: dict[str, Any]) -> None:
    extra = {_name(req) for req in pyproject["project"]["optional-dependencies"]["lanes"]}
    assert {"pytest", "pytest-xdist", "hypothesis", "jinja2", "jsonschema"} <= extra
    # mutmut's dependency tree only for those who run the mutation lane.
    assert "mutmut" not in extra


def test_mutmut_comes_with_the_mutation_extra(pyproject: dict[str, Any]) -> None:
    extra = {_name(req) for req in pyproject["project"]["optional-dependencies"]["mutation"]}
    assert extra == {"lanekit", "mutmut"}
    assert "lanekit[lanes]" in pyproject["project"]["optional-dependencies"]["mutation"]


def test_dev_tools_are_a_dependency_group_not_an_extra(pyproject: dict[str, Any]) -> None:
    assert set(pyproject["project"]["optional-dependencies"]) == {"lanes", "mutation"}
    dev = pyproject["dependency-groups"]["dev"]
    assert {"include-group": "test"} in dev
    assert {"ruff", "mypy", "nox", "types-jsonschema"} <= {
        _name(r) for r in dev if isinstance(r, str)
    }
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert 'dependency_groups(PYPROJECT, "dev")' in noxfile
    assert 'dependency_groups(PYPROJECT, "test")' in noxfile
    assert '".[lanes,mutation]"' in noxfile  # the unit suite covers the mutation lane


def test_the_setuptools_floor_reads_the_spdx_license(pyproject: dict[str, Any]) -> None:
    # setuptools 76 rejects `license = "MIT"` (a PEP 639 expression); 77 builds it.
    assert pyproject["build-system"]["requires"] == ["setuptools>=77"]
    assert pyproject["project"]["license"] == "MIT"
    assert pyproject["project"]["license-files"] == ["LICENSE"]
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License\n")


def test_the_version_has_one_source(pyproject: dict[str, Any]) -> None:
    assert "version" not in pyproject["project"]
    assert pyproject["project"]["dynamic"] == ["version"]
    attr = pyproject["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "lanes.__version__"
    init = ast.parse((ROOT / "lanes" / "__init__.py").read_text(encoding="utf-8"))
    literals = [
        node.value
        for node in init.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets)
    ]
    assert len(literals) == 1
    assert isinstance(literals[0], ast.Constant)  # setuptools reads it without importing


def test_platform_and_pythons_are_stated(pyproject: dict[str, Any]) -> None:
    classifiers = pyproject["project"]["classifiers"]
    assert "Operating System :: POSIX" in classifiers
    assert "Programming Language :: Python :: 3.14" in classifiers
    platforms = (ROOT / "docs" / "reference" / "platforms.md").read_text(encoding="utf-8")
    assert re.search(r"^## Platforms$", platforms, re.MULTILINE)


def test_the_pytest_plugins_are_entry_points(pyproject: dict[str, Any]) -> None:
    plugins = pyproject["project"]["entry-points"]["pytest11"]
    assert plugins == {
        "lanes.slow": "lanes.slow.plugin",
        "lanes.fuzz": "lanes.fuzz.plugin",
        "lanes.governor": "lanes.governor.runner.plugin",
    }


def test_templates_and_schema_ship_as_package_data(pyproject: dict[str, Any]) -> None:
    data = pyproject["tool"]["setuptools"]["package-data"]["lanes"]
    assert "*.json" in data
    assert "report/templates/*" in data
    assert "py.typed" in data
    # `lanes init` renders these in a user's project: a wheel without them cannot scaffold.
    assert "init/templates/*" in data
    templates = {p.name for p in (ROOT / "lanes" / "init" / "templates").iterdir()}
    assert {"noxfile.py.j2", "lanes-pr.yml.j2", "lanes-nightly.yml.j2"} <= templates


def test_ci_run_is_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(
        r"^(python3 -m pip install nox uv && nox -s tests)\b", readme, re.MULTILINE
    )
    assert commands, "the README must show the one-line test command"
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[0] in script.splitlines()
    assert script.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in script
    assert (ROOT / ".ci" / "run").stat().st_mode & 0o111, ".ci/run must be executable"


def test_readme_main_job_command_is_a_nox_session() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(r"^python3 -m pip install nox uv && nox -s lanes\b", readme, re.MULTILINE)
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    for session in ("tests", "lint", "lanes", "report"):
        assert re.search(rf"^def {session}\(session: nox.Session\)", noxfile, re.MULTILINE), session


def test_every_main_job_lane_is_a_session() -> None:
    # Parsed, not imported: the tests session does not install nox.
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    sessions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    annotated = {
        ast.unparse(node.target): node.value
        for node in tree.body
        if isinstance(node, ast.AnnAssign) and node.value is not None
    }
    names = ast.literal_eval(annotated["LANE_SESSIONS"])
    assert isinstance(names, tuple)
    assert set(names) <= sessions
    assert len(set(names)) == len(names)
    # The report runs after the lanes, never as one of them.
    assert "report" not in names
    assert "lanes" not in names
    # The main job's profile names only lanes it runs.
    profile = ast.literal_eval(annotated["MAIN_JOB_ARGS"])
    assert isinstance(profile, dict)
    assert set(profile) <= set(names)
    assert all(isinstance(args, tuple) and args for args in profile.values())


def test_ready_to_publish_classifiers(pyproject: dict[str, Any]) -> None:
    classifiers = pyproject["project"]["classifiers"]
    assert "Development Status :: 4 - Beta" in classifiers
    assert "Typing :: Typed" in classifiers
    assert (ROOT / "lanes" / "py.typed").is_file()


def test_the_sdist_carries_what_a_packager_tests_with(pyproject: dict[str, Any]) -> None:
    """MANIFEST.in adds the suite, noxfile, docs and baselines; `nox -s build` proves it.

    That session builds the sdist, runs check-sdist (every git-tracked file but
    [tool.check-sdist] git-only is in it) and this module from the unpacked sdist.
    """
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").splitlines()
    for line in ("graft tests", "graft docs", "graft baselines", "include noxfile.py"):
        assert line in manifest, line
    assert pyproject["tool"]["check-sdist"]["git-only"] == [".github/*", ".gitignore"]
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert re.search(r"^def build\(session: nox.Session\)", noxfile, re.MULTILINE)
    assert '"check-sdist", "--inject-junk"' in noxfile


def test_the_mutation_viewer_ships_with_its_licence(pyproject: dict[str, Any]) -> None:
    assert "mutation/viewer/*" in pyproject["tool"]["setuptools"]["package-data"]["lanes"]
    viewer = ROOT / "lanes" / "mutation" / "viewer"
    assert {"mutation-test-elements.js", "LICENSE", "README.md"} <= {
        path.name for path in viewer.iterdir()
    }
