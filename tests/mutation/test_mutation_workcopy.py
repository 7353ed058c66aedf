"""The private working copy: what git would commit, mutmut's settings in it, the user's tree untouched."""

from __future__ import annotations

import tomllib
from typing import TYPE_CHECKING

import pytest

from lanes.errors import ConfigError
from lanes.mutation.settings import MutationModule
from lanes.mutation.workcopy import copy_tree, mutmut_settings, write_mutmut_settings
from tests.support.git import git

if TYPE_CHECKING:
    from pathlib import Path

MODULE = MutationModule(name="core", paths=("src/pkg/core.py",), tests=("tests/test_core.py",))
USER = """\
[project]
name = "demo"

[tool.mutmut]
pytest_add_cli_args = ["-n", "4", "-q", "--dist=load"]
only_mutate = ["src/pkg/other.py"]
debug = true

[tool.pytest.ini_options]
addopts = "-q"
"""


def test_copy_is_what_git_would_commit_and_leaves_the_tree_clean(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src" / "pkg").mkdir(parents=True)
    (repo / "src" / "pkg" / "core.py").write_text("X = 1\n", encoding="utf-8")
    (repo / ".gitignore").write_text("build/\n", encoding="utf-8")
    (repo / "build").mkdir()
    (repo / "build" / "junk.py").write_text("", encoding="utf-8")
    (repo / "mutants").mkdir()
    (repo / "mutants" / "stale.py").write_text("", encoding="utf-8")
    git(repo, "init", "-q")
    git(repo, "add", "src", ".gitignore")
    git(repo, "commit", "-q", "-m", "init")
    (repo / "src" / "pkg" / "new.py").write_text(
        "Y = 2\n", encoding="utf-8"
    )  # untracked, not ignored
    status_before = git(repo, "status", "--porcelain", "--ignored")
    copy = tmp_path / "copy"
    copy.mkdir()
    copy_tree(repo, copy)
    copied = sorted(str(p.relative_to(copy)) for p in copy.rglob("*") if p.is_file())
    assert copied == [".gitignore", "src/pkg/core.py", "src/pkg/new.py"]
    assert git(repo, "status", "--porcelain", "--ignored") == status_before


def test_settings_keep_the_users_keys_take_the_lanes_and_drop_xdist(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(USER, encoding="utf-8")
    settings = mutmut_settings(tmp_path, MODULE, timeout_multiplier=3.0, xdist=True)
    assert settings == {
        "debug": True,
        "only_mutate": ["src/pkg/core.py"],
        "source_paths": ["src/pkg"],
        "pytest_add_cli_args": ["-q", "-n", "0"],
        "pytest_add_cli_args_test_selection": ["tests/test_core.py"],
        "timeout_multiplier": 3.0,
    }
    write_mutmut_settings(tmp_path, settings)
    written = tomllib.loads((tmp_path / "pyproject.toml").read_text(encoding="utf-8"))
    assert written["tool"]["mutmut"] == settings
    assert written["tool"]["pytest"]["ini_options"] == {"addopts": "-q"}  # the rest is untouched


def test_settings_it_cannot_replace_are_an_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("tool.mutmut.debug = true\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot replace") as excinfo:
        write_mutmut_settings(tmp_path, {"debug": False})
    assert "[tool.mutmut]" in excinfo.value.hint


@pytest.mark.timeout(60)
def test_a_fifo_pyproject_is_refused_not_waited_on(tmp_path: Path) -> None:
    # one strict reader for every file someone else wrote.
    import os  # noqa: PLC0415  # this test only

    os.mkfifo(tmp_path / "pyproject.toml")
    with pytest.raises(ConfigError, match="not a regular file") as caught:
        mutmut_settings(tmp_path, MODULE, timeout_multiplier=3.0, xdist=False)
    assert "mutmut reads its settings" in caught.value.hint
