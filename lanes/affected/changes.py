"""What changed: the committed diff ``base..HEAD`` and the working tree, renames on both sides.

The working tree counts (staged, unstaged and untracked files): an agent asks
"what must I run" before it commits. A rename contributes both paths — a test
that imported the old module must be selected, and so must the new file.

An untracked virtual environment inside the project (``.venv/`` not in
``.gitignore``) is left out, as pytest's collection leaves it out: thousands of
installed files are an environment, not changes, and would otherwise make
every plan fail open and every scan read them.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lanes.errors import UsageError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["Changes", "changed_files", "default_base", "tracked_files"]

# Tried in order for the default base: the merge base with the first that exists.
_DEFAULT_BRANCHES = ("origin/main", "origin/master", "main", "master")


@dataclass(frozen=True)
class Changes:
    base: str
    base_commit: str | None
    # path -> how it changed ("modified", "added", "deleted", "renamed from X", "untracked")
    paths: dict[str, str]
    # Untracked virtual environments left out of ``paths`` (directories).
    environments: tuple[str, ...] = ()
    # Every untracked file not ignored, outside those environments (None: not
    # listed): the project scan reuses it instead of walking the tree again.
    untracked: tuple[str, ...] | None = None


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        msg = f"git {' '.join(args)} could not run in {str(root)!r}: {exc}"
        raise UsageError(
            msg, hint="lanes affected needs git on PATH and a git repository"
        ) from None


def _ok(root: Path, *args: str) -> bytes:
    proc = _git(root, *args)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()
        msg = f"git {' '.join(args)} failed in {str(root)!r}: {err}"
        raise UsageError(msg, hint="run lanes affected inside a git repository with a valid --base")
    return proc.stdout


def default_base(root: Path) -> str:
    """The merge base with the default branch, or HEAD (working-tree changes only) without one."""
    for branch in _DEFAULT_BRANCHES:
        proc = _git(root, "merge-base", "HEAD", branch)
        if proc.returncode == 0 and proc.stdout.strip():
            return proc.stdout.decode().strip()
    return "HEAD"


def _name_status(raw: bytes, paths: dict[str, str]) -> None:
    # `git diff --name-status -z -M`: STATUS\0path\0 or R100\0old\0new\0.
    fields = raw.split(b"\0")
    i = 0
    while i < len(fields) and fields[i]:
        status = fields[i].decode()
        if status[:1] in "RC":
            old, new = fields[i + 1].decode(), fields[i + 2].decode()
            paths[old] = f"renamed to {new}" if status[0] == "R" else paths.get(old, "copied")
            paths[new] = f"renamed from {old}" if status[0] == "R" else f"copied from {old}"
            i += 3
            continue
        kind = {"A": "added", "D": "deleted", "M": "modified", "T": "type changed"}.get(
            status[:1], "modified"
        )
        paths.setdefault(fields[i + 1].decode(), kind)
        i += 2


def changed_files(root: Path, base: str | None) -> Changes:
    """Files changed between ``base`` (default: :func:`default_base`) and the working tree."""
    chosen = default_base(root) if base is None else base
    has_head = _git(root, "rev-parse", "--verify", "-q", "HEAD").returncode == 0
    paths: dict[str, str] = {}
    base_commit: str | None = None
    if has_head:
        # --end-of-options: a base is a ref, never an option.
        resolved = _git(
            root, "rev-parse", "--verify", "-q", "--end-of-options", f"{chosen}^{{commit}}"
        )
        if resolved.returncode != 0:
            msg = f"--base {chosen!r} is not a commit in this repository"
            raise UsageError(msg, hint="pass a branch, tag or commit, e.g. --base origin/main")
        base_commit = resolved.stdout.decode().strip()
        # One diff from the base to the working tree covers commits, staged and unstaged edits.
        _name_status(_ok(root, "diff", "--name-status", "-z", "-M", base_commit), paths)
    untracked, environments = _untracked(root)
    for path in untracked:
        paths.setdefault(path, "untracked")
    return Changes(
        base=chosen,
        base_commit=base_commit,
        paths=paths,
        environments=environments,
        untracked=tuple(untracked),
    )


def tracked_files(root: Path, untracked: tuple[str, ...] | None = None) -> list[str]:
    """Every file git knows of in the working tree, plus untracked ones not ignored
    (outside an untracked virtual environment; ``untracked``: as already listed)."""
    raw = _ok(root, "ls-files", "--cached", "-z")
    cached = {path.decode() for path in raw.split(b"\0") if path}
    return sorted(cached.union(_untracked(root)[0] if untracked is None else untracked))


def _is_environment(directory: Path) -> bool:
    """pytest's own test for a virtual environment it will not collect in
    (``_pytest.main._in_venv``): PEP 405's ``pyvenv.cfg``, or a conda environment."""
    try:
        return (directory / "pyvenv.cfg").is_file() or (
            directory / "conda-meta" / "history"
        ).is_file()
    except OSError:
        return False


def _untracked(root: Path) -> tuple[list[str], tuple[str, ...]]:
    """The untracked files git does not ignore, and the virtual environments
    among their directories, whose files are left out."""
    raw = _ok(root, "ls-files", "--others", "--exclude-standard", "-z")
    kept: list[str] = []
    # directory -> is it an environment's root; one check per directory, not per file.
    is_root: dict[str, bool] = {}

    def environment(directory: str) -> bool:
        if directory not in is_root:
            is_root[directory] = _is_environment(root / directory)
        return is_root[directory]

    for path in (item.decode() for item in raw.split(b"\0") if item):
        parts = path.split("/")[:-1]
        # From the top down: the outermost environment holds it; no look inside.
        if not any(environment("/".join(parts[:depth])) for depth in range(1, len(parts) + 1)):
            kept.append(path)
    environments = {directory for directory, found in is_root.items() if found}
    return kept, tuple(sorted(environments))
