"""What proves a push in this project: the local gates wired and the CI present.

The economy's message must be actionable on the spot, so it names what this
repository actually has. Everything is read from files — no git subprocess —
because the hook runs inside an agent's tool call:

- local gates: lefthook, pre-commit, husky, and a real git ``pre-push`` hook
  in the hooks directory git would use (``core.hooksPath`` from the
  repository's config, else ``<git dir>/hooks``); ``*.sample`` files are what
  ``git init`` leaves behind and are never a gate;
- CI: GitHub Actions workflow files and the other common CI configurations.
"""

from __future__ import annotations

import os

from lanes.governor.state.tree import find_repo

__all__ = ["ci_systems", "hooks_dir", "local_gates", "project_root"]

_LEFTHOOK = ("lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lefthook.yaml")
_PRE_COMMIT = (".pre-commit-config.yaml", ".pre-commit-config.yml")
# Hooks that gate a push or a commit; pre-push is the one that usually runs
# the suite, pre-commit often does too.
_GIT_HOOKS = ("pre-push", "pre-commit")
_CI_FILES = (
    (".gitlab-ci.yml", "GitLab CI"),
    (".circleci/config.yml", "CircleCI"),
    ("azure-pipelines.yml", "Azure Pipelines"),
    ("Jenkinsfile", "Jenkins"),
    (".travis.yml", "Travis CI"),
    ("bitbucket-pipelines.yml", "Bitbucket Pipelines"),
    (".buildkite/pipeline.yml", "Buildkite"),
    (".woodpecker.yml", "Woodpecker CI"),
    (".drone.yml", "Drone CI"),
    ("appveyor.yml", "AppVeyor"),
)


def project_root(cwd: str) -> str:
    """The git top level containing ``cwd``, else ``cwd`` itself."""
    repo = find_repo(cwd)
    return os.path.abspath(cwd) if repo is None else repo.top


def _core_hooks_path(config_path: str) -> str | None:
    """``core.hooksPath`` from a git config file, read by hand (git-config syntax:
    case-insensitive section and key, ``#``/``;`` comments, optional quotes)."""
    try:
        with open(config_path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read(1 << 20).splitlines()
    except OSError:
        return None
    section = ""
    value: str | None = None
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped[1 : stripped.find("]")].strip().lower()
            stripped = stripped[stripped.find("]") + 1 :].strip()
        if section != "core" or "=" not in stripped:
            continue
        key, _, raw = stripped.partition("=")
        if key.strip().lower() != "hookspath":
            continue
        raw = raw.strip()
        if raw.startswith('"') and '"' in raw[1:]:
            raw = raw[1 : raw.index('"', 1)]
        else:
            for mark in ("#", ";"):
                raw = raw.split(mark, 1)[0]
        value = raw.strip()  # the last assignment wins, as in git
    return value or None


def hooks_dir(root: str) -> str | None:
    """The directory git runs hooks from for the work tree at ``root``."""
    repo = find_repo(root)
    if repo is None:
        return None
    configured = _core_hooks_path(os.path.join(repo.common_dir, "config"))
    if configured:
        configured = os.path.expanduser(configured)
        # A relative hooksPath is relative to where hooks run: the work tree top.
        return os.path.normpath(os.path.join(repo.top, configured))
    return os.path.join(repo.common_dir, "hooks")


def _is_real_hook(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def local_gates(root: str) -> list[str]:
    """The local gates wired in ``root``, each as ``"name (where)"``."""
    gates: list[str] = []
    for name in _LEFTHOOK:
        if os.path.isfile(os.path.join(root, name)):
            gates.append(f"lefthook ({name})")
            break
    for name in _PRE_COMMIT:
        if os.path.isfile(os.path.join(root, name)):
            gates.append(f"pre-commit ({name})")
            break
    husky = os.path.join(root, ".husky")
    if os.path.isdir(husky):
        wired = sorted(name for name in _GIT_HOOKS if os.path.isfile(os.path.join(husky, name)))
        if wired:
            gates.append(f"husky (.husky/{', .husky/'.join(wired)})")
    directory = hooks_dir(root)
    if directory is not None:
        for name in _GIT_HOOKS:
            # Only the exact hook name runs; pre-push.sample is inert.
            path = os.path.join(directory, name)
            if _is_real_hook(path):
                shown = os.path.relpath(path, root) if path.startswith(root + os.sep) else path
                gates.append(f"git {name} hook ({shown})")
    return gates


def ci_systems(root: str) -> list[str]:
    """The CI configurations in ``root``, each as ``"name (files)"``."""
    found: list[str] = []
    workflows = os.path.join(root, ".github", "workflows")
    try:
        # lanes-*.yml are the workflows `lanes init` writes: they measure the
        # suite (timing, slow, mutation); the nudge named them as the
        # project's CI, whose verdict an agent should trust instead of a run.
        names = sorted(
            name
            for name in os.listdir(workflows)
            if name.endswith((".yml", ".yaml")) and not name.startswith("lanes-")
        )
    except OSError:
        names = []
    if names:
        shown = ", ".join(f".github/workflows/{name}" for name in names[:5])
        more = f" and {len(names) - 5} more" if len(names) > 5 else ""
        found.append(f"GitHub Actions ({shown}{more})")
    for name, system in _CI_FILES:
        if os.path.exists(os.path.join(root, name)):
            found.append(f"{system} ({name})")
    if os.path.isdir(os.path.join(root, ".woodpecker")):
        found.append("Woodpecker CI (.woodpecker/)")
    return found
