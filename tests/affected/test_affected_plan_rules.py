"""The selection rules, in-process on real project files: which rule claims each changed path and what it selects.

Each case writes the planted project (:mod:`tests.affected.plan_helpers`),
scans it as ``lanes affected`` does and asks the rules about a changed path:
which rule claims it and why, how its patterns and directories match, and
which test files it selects, with the import graph's chains through modules,
conftests, a src layout and console scripts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.affected.plan import Project
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
from lanes.config import load_config
from tests.affected.plan_helpers import LEAF_CHAINS, planted_project, with_settings

if TYPE_CHECKING:
    from pathlib import Path


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
    assert rule_for(path, planted_project(tmp_path)) == (rule, detail)


def test_the_affected_settings_add_full_paths_owners_and_quiet_patterns(tmp_path: Path) -> None:
    project = planted_project(
        tmp_path,
        with_settings(
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
    project = planted_project(tmp_path)
    assert dir_holding(project, "tests/sub/deep/data.md") == "tests"
    assert dir_holding(project, "pkg/data.md") is None
    assert static_choice(project, "tests/sub/notes.md", "modified", "test data", "d") == (
        ["tests/sub/test_sub.py", "tests/test_leaf.py", "tests/test_mid.py", "tests/test_other.py"],
        "d",
    )
    # A rule that names no test directory selects nothing.
    assert static_choice(project, "pkg/notes.md", "modified", "test data", "d") == ([], "d")


def test_a_changed_test_file_selects_itself_and_a_deleted_one_nothing(tmp_path: Path) -> None:
    project = planted_project(tmp_path)
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
    project = planted_project(tmp_path)
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
    project = planted_project(tmp_path, {"tests/sub/conftest.py": conftest})
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


def test_a_test_under_two_importing_conftests_names_the_shorter_chain(tmp_path: Path) -> None:
    extra = {
        "tests/conftest.py": "from pkg.mid import g\n",
        "tests/sub/conftest.py": FILES["tests/sub/conftest.py"] + "\nfrom pkg.leaf import f\n",
    }
    project = planted_project(tmp_path, extra)
    chains = import_chains(project, "pkg/leaf.py", ["tests/sub/test_sub.py", "tests/test_other.py"])
    assert chains == {
        "tests/sub/test_sub.py": "under a conftest that imports it: tests/sub/conftest.py -> pkg/leaf.py",
        "tests/test_other.py": "under a conftest that imports it: "
        "tests/conftest.py -> pkg/mid.py -> pkg/leaf.py",
    }


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
    assert rule_for("README.md", planted_project(tmp_path, settings)) == (
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
    project = planted_project(
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
        project = planted_project(root, {"pyproject.toml": pyproject, "tests/test_cli.py": cli})
        assert graph_tests(project, "pkg/other.py")[0] == ["tests/test_other.py"]
