"""``git_subject`` against real git repositories in tmp_path."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.envelope import Subject, git_subject
from tests.support.git import git, head, make_repo

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The detached-HEAD fallback reads these; the test machine may be CI.
    monkeypatch.delenv("GITHUB_HEAD_REF", raising=False)
    monkeypatch.delenv("GITHUB_REF_NAME", raising=False)
    return make_repo(tmp_path / "repo", {"a.txt": "a\n"}, "one", branch="trunk")


def test_clean_checkout(repo: Path) -> None:
    commit = head(repo)
    assert git_subject(repo) == Subject(commit=commit, dirty=False, branch="trunk")


def test_modified_and_untracked_files_are_dirty(repo: Path) -> None:
    (repo / "a.txt").write_text("changed\n", encoding="utf-8")
    assert git_subject(repo).dirty
    git(repo, "checkout", "-q", "--", "a.txt")
    (repo / "new.txt").write_text("new\n", encoding="utf-8")
    assert git_subject(repo).dirty


def test_subdirectory_reports_the_repository(repo: Path) -> None:
    sub = repo / "pkg"
    sub.mkdir()
    assert git_subject(sub).commit == head(repo)


def test_detached_head(repo: Path) -> None:
    commit = head(repo)
    git(repo, "checkout", "-q", "--detach")
    assert git_subject(repo) == Subject(commit=commit, dirty=False, branch=None)


def test_detached_head_in_github_actions(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git(repo, "checkout", "-q", "--detach")
    monkeypatch.setenv("GITHUB_HEAD_REF", "feature/x")
    assert git_subject(repo).branch == "feature/x"


def test_repository_without_commits(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    assert git_subject(tmp_path) == Subject(commit=None, dirty=False, branch=None)


def test_outsidegit(tmp_path: Path) -> None:
    assert git_subject(tmp_path) == Subject(commit=None, dirty=False, branch=None)


def test_without_git_installed(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(repo / "no-such-bin"))
    assert git_subject(repo) == Subject(commit=None, dirty=False, branch=None)


def test_missing_directory(tmp_path: Path) -> None:
    assert git_subject(tmp_path / "gone") == Subject(commit=None, dirty=False, branch=None)
