"""Scratch git repositories for tests: one ``git()`` with a fixed identity and
no user or system configuration, so a test machine's git setup cannot leak in."""

from __future__ import annotations

import os
import subprocess
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    """Run ``git *args`` in ``repo``; its stdout (a failure raises)."""
    return subprocess.run(
        ["git", *args],
        cwd=repo,
        env={**os.environ, **GIT_ENV},
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def git_repo(path: Path, *, branch: str = "main") -> Path:
    """An empty git work tree on ``branch`` (``git init`` leaves its
    ``*.sample`` hooks)."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", branch)
    return path


def head(repo: Path) -> str:
    """The sha of ``repo``'s HEAD commit."""
    return git(repo, "rev-parse", "HEAD").strip()


def commit_all(repo: Path, message: str = "init") -> str:
    """Stage everything in ``repo`` and commit it; the new commit's sha."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return head(repo)


def make_repo(
    path: Path, files: dict[str, str], message: str = "init", *, branch: str = "main"
) -> Path:
    """A repository at ``path`` on ``branch`` with ``files`` (relative path →
    text) committed."""
    git_repo(path, branch=branch)
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text, encoding="utf-8")
    commit_all(path, message)
    return path
