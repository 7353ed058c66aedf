"""What to mutate in CI: the shard matrix, and the modules a diff touches.

``matrix`` is the GitHub Actions ``strategy.matrix`` value, one entry per
(module, shard): ``{"include": [{"module": "lock", "shard": "1/2"}, ...]}``,
with the registry's shard counts or a plan's (:mod:`lanes.mutation.planned`).
``affected`` reads ``git diff --name-only BASE`` and keeps the modules whose
``paths`` or ``tests`` the diff touches; when nothing of a module changed but
the lane's own inputs did (pyproject.toml, where the registry lives, the
noxfile, the baseline, the workflow), it answers with the canary module, so a
change to the tooling is still exercised once.
"""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING, Any, Final

from lanes.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path

    from lanes.config import Config
    from lanes.mutation.settings import MutationConfig, MutationModule

__all__ = ["affected_modules", "canary_of", "changed_files", "matrix", "select_modules"]

# The lane's own inputs: a change here alone runs the canary.
_TOOLING: Final = (
    "pyproject.toml",
    "noxfile.py",
    "baselines/mutation.json",
    ".github/workflows/weekly-mutation.yml",
)


def select_modules(settings: MutationConfig, names: Iterable[str]) -> list[MutationModule]:
    """The registry's modules named (all of them when ``names`` is empty), in registry order."""
    wanted = list(names)
    if not settings.modules:
        msg = "[tool.lanes.mutation.modules] is empty: there is nothing to mutate"
        raise UsageError(
            msg,
            hint='add a module, e.g. [tool.lanes.mutation.modules.core] with paths = ["src/pkg/core.py"]',
        )
    unknown = [name for name in wanted if name not in settings.modules]
    if unknown:
        msg = f"--module {unknown[0]!r} is not in the registry (modules: {', '.join(settings.modules)})"
        raise UsageError(
            msg, hint="pass one of the module names under [tool.lanes.mutation.modules]"
        )
    return [m for name, m in settings.modules.items() if not wanted or name in wanted]


def canary_of(settings: MutationConfig) -> str:
    return settings.canary or next(iter(settings.modules))


def matrix(
    modules: Iterable[MutationModule],
    *,
    whole: bool = False,
    planned: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """One entry per (module, shard); ``whole`` runs each module as one shard.

    ``planned`` (module name -> shards, from a plan) overrides the registry's
    count: a plan knows how many mutants a module has, and runs one below
    ``shard_threshold`` as one shard.
    """
    include: list[dict[str, str]] = []
    for module in modules:
        count = module.shards if planned is None else planned[module.name]
        count = 1 if whole else count
        include.extend(
            {"module": module.name, "shard": f"{index}/{count}"} for index in range(1, count + 1)
        )
    return {"include": include}


def changed_files(root: Path, base: str) -> list[str]:
    """Files that differ between ``base`` and the working tree (committed or not)."""
    try:
        done = subprocess.run(
            # --end-of-options: a base is a ref, never an option
            # (--base=--output=FILE made git write FILE and answer "no changes").
            ["git", "diff", "--name-only", "--no-renames", "--end-of-options", base, "--"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:
        msg = f"git could not be run in {root}: {exc}"
        raise UsageError(
            msg, hint="install git; `lanes mutation affected` reads the diff"
        ) from None
    if done.returncode != 0:
        msg = f"git diff against --base {base!r} failed: {done.stderr.strip()}"
        raise UsageError(
            msg,
            hint="pass a ref that exists locally (in CI: fetch it, e.g. actions/checkout with fetch-depth: 0)",
        )
    return [line for line in done.stdout.splitlines() if line]


def _touches(selector: str, changed: str) -> bool:
    path = selector.split("::", 1)[0].rstrip("/")
    return changed == path or changed.startswith(path + "/")


def affected_modules(
    config: Config, changed: Iterable[str]
) -> tuple[list[str], dict[str, list[str]]]:
    """The affected module names and, for each, the changed files that made it so."""
    settings = config.mutation
    changed = list(changed)
    suite_paths = [path for suite in config.suites.values() for path in suite.paths]
    why: dict[str, list[str]] = {}
    for name, module in settings.modules.items():
        # Test selectors are pytest arguments: only the path-like ones name files.
        selectors = [arg for arg in module.tests if not arg.startswith("-")] or suite_paths
        hits = [
            path
            for path in changed
            if path in module.paths or any(_touches(sel, path) for sel in selectors)
        ]
        if hits:
            why[name] = hits
    if not why and settings.modules:
        tooling = [path for path in changed if path in _TOOLING]
        if tooling:
            why[canary_of(settings)] = tooling
    return [name for name in settings.modules if name in why], why
