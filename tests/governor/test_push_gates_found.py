"""What the economy's message names as this project's push gates and CI, read from files.

- ``core.hooksPath`` is read with git-config syntax: section and key in any
  case, ``#`` and ``;`` comments, quoted values, the last assignment winning,
  a relative path from the work tree's top and ``~`` expanded.
- Every gate tool found is named with where it lives; a git hook counts only
  when executable; one outside the project is shown by its full path.
- CI: up to five workflow files named, the rest counted; lanekit's own
  ``lanes-*`` workflows are not the project's CI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.governor.policy.push_gates import (
    _core_hooks_path,
    ci_systems,
    hooks_dir,
    local_gates,
    project_root,
)
from tests.support.git import git_repo

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return git_repo(tmp_path / "project")


def _config(project: Path, text: str) -> None:
    (project / ".git" / "config").write_text(text, encoding="utf-8")


def _hook(path: Path, *, executable: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexec make test\n", encoding="utf-8")
    path.chmod(0o755 if executable else 0o644)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[core]\n\thooksPath = .githooks\n", ".githooks"),
        ("[Core]\n\tHOOKSPATH=.githooks\n", ".githooks"),
        ("[core] hooksPath = inline\n", "inline"),
        ('[core]\n\thooksPath = "my hooks" # where they live\n', "my hooks"),
        ('[core]\n\thooksPath = "a#b;c"\n', "a#b;c"),
        ("[core]\n\thooksPath = hooks # a comment\n", "hooks"),
        ("[core]\n\thooksPath = hooks ; a comment\n", "hooks"),
        ("[core]\n\thooksPath = first\n\thooksPath = second\n", "second"),
        ("[user]\n\thooksPath = not-core\n", None),
        ("[core]\n\thooksPath = one\n[alias]\n\thooksPath = other\n", "one"),
        ("[core]\n\tbare = false\n\thooksPathX = no\n", None),
        ("[core]\n\thooksPath =\n", None),
        ('[core]\n\thooksPath = ""\n', None),
        ('[core]\n\thooksPath = "my hooks" # a "quoted" note\n', "my hooks"),
        ("[core]\n\thooksPath = hooks # one # two\n", "hooks"),
        ("[core]\n\thooksPath = a=b\n", "a=b"),
        ('[core]\n\thooksPath = a"b\n', 'a"b'),
        ("[core] # note [x]\n\thooksPath = h\n", "h"),
        ("[core] hooksPath = a]b\n", "a]b"),
        ("[core]hooksPath = x\n", "x"),
        ("hooksPath = before-any-section\n[core]\n", None),
    ],
)
def test_core_hooks_path_is_read_as_git_reads_it(
    tmp_path: Path, text: str, expected: str | None
) -> None:
    config = tmp_path / "config"
    config.write_text(text, encoding="utf-8")
    assert _core_hooks_path(str(config)) == expected


def test_a_config_that_is_not_utf8_is_still_read(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_bytes(b"[user]\n\tname = J\xf6rg\n[core]\n\thooksPath = .githooks\n")
    assert _core_hooks_path(str(config)) == ".githooks"


def test_a_config_is_read_only_to_its_first_mebibyte(tmp_path: Path) -> None:
    config = tmp_path / "config"
    padding = "# " + "x" * 1000 + "\n"
    config.write_text("[core]\n" + padding * 1100 + "\thooksPath = far\n", encoding="utf-8")
    assert _core_hooks_path(str(config)) is None


def test_no_config_file_means_no_hooks_path(tmp_path: Path) -> None:
    assert _core_hooks_path(str(tmp_path / "missing")) is None


def test_hooks_run_from_the_configured_dir_relative_to_the_top(project: Path) -> None:
    _config(project, "[core]\n\thooksPath = tools/../.githooks\n")
    assert hooks_dir(str(project)) == str(project / ".githooks")
    assert hooks_dir(str(project / "sub")) == str(project / ".githooks")


def test_a_hooks_path_under_home_is_expanded(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    _config(project, "[core]\n\thooksPath = ~/hooks\n")
    assert hooks_dir(str(project)) == str(tmp_path / "home" / "hooks")


def test_without_a_hooks_path_hooks_run_from_the_git_dir(project: Path, tmp_path: Path) -> None:
    assert hooks_dir(str(project)) == str(project / ".git" / "hooks")
    outside = tmp_path / "plain"
    outside.mkdir()
    assert hooks_dir(str(outside)) is None
    assert project_root(str(outside)) == str(outside)
    assert project_root(str(project)) == str(project)


def test_every_gate_found_is_named_where_it_lives(project: Path) -> None:
    for name in (".lefthook.yml", "lefthook.yaml", ".pre-commit-config.yml"):
        (project / name).write_text("{}\n", encoding="utf-8")
    _hook(project / ".husky" / "pre-push")
    _hook(project / ".husky" / "pre-commit")
    _hook(project / ".git" / "hooks" / "pre-commit")
    _hook(project / ".git" / "hooks" / "pre-push", executable=False)
    assert local_gates(str(project)) == [
        "lefthook (lefthook.yaml)",
        "pre-commit (.pre-commit-config.yml)",
        "husky (.husky/pre-commit, .husky/pre-push)",
        "git pre-commit hook (.git/hooks/pre-commit)",
    ]


def test_a_husky_dir_without_a_gate_hook_is_no_gate(project: Path) -> None:
    _hook(project / ".husky" / "commit-msg")
    assert local_gates(str(project)) == []


def test_a_hook_outside_the_project_is_shown_by_its_full_path(
    project: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "shared-hooks"
    _hook(shared / "pre-push")
    _config(project, f"[core]\n\thooksPath = {shared}\n")
    assert local_gates(str(project)) == [f"git pre-push hook ({shared / 'pre-push'})"]


def test_five_workflows_are_named_and_the_rest_counted(project: Path) -> None:
    workflows = project / ".github" / "workflows"
    workflows.mkdir(parents=True)
    for name in ("a.yml", "b.yaml", "c.yml", "d.yml", "e.yml", "f.yml", "g.yml"):
        (workflows / name).write_text("on: push\n", encoding="utf-8")
    (workflows / "lanes-mutation.yml").write_text("on: push\n", encoding="utf-8")
    (workflows / "notes.txt").write_text("x\n", encoding="utf-8")
    shown = ["a.yml", "b.yaml", "c.yml", "d.yml", "e.yml"]
    named = ", ".join(f".github/workflows/{name}" for name in shown)
    assert ci_systems(str(project)) == [f"GitHub Actions ({named} and 2 more)"]


@pytest.mark.parametrize(("count", "more"), [(5, ""), (6, " and 1 more")])
def test_up_to_five_workflows_are_all_named(project: Path, count: int, more: str) -> None:
    workflows = project / ".github" / "workflows"
    workflows.mkdir(parents=True)
    for index in range(count):
        (workflows / f"w{index}.yml").write_text("on: push\n", encoding="utf-8")
    named = ", ".join(f".github/workflows/w{index}.yml" for index in range(5))
    assert ci_systems(str(project)) == [f"GitHub Actions ({named}{more})"]


def test_only_lanekits_own_workflows_are_no_ci(project: Path) -> None:
    workflows = project / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "lanes-mutation.yml").write_text("on: push\n", encoding="utf-8")
    assert ci_systems(str(project)) == []


def test_every_other_ci_is_named_by_its_file(project: Path) -> None:
    files = {
        ".gitlab-ci.yml": "GitLab CI",
        ".circleci/config.yml": "CircleCI",
        "azure-pipelines.yml": "Azure Pipelines",
        "Jenkinsfile": "Jenkins",
        ".travis.yml": "Travis CI",
        "bitbucket-pipelines.yml": "Bitbucket Pipelines",
        ".buildkite/pipeline.yml": "Buildkite",
        ".woodpecker.yml": "Woodpecker CI",
        ".drone.yml": "Drone CI",
        "appveyor.yml": "AppVeyor",
    }
    for name in files:
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("x\n", encoding="utf-8")
    (project / ".woodpecker").mkdir()
    assert ci_systems(str(project)) == [
        *(f"{system} ({name})" for name, system in files.items()),
        "Woodpecker CI (.woodpecker/)",
    ]
