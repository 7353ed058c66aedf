"""The planted project the rule, suite and plan tests scan, and the plan they ask of it.

The self-check's planted project (known answers: ``test_leaf`` imports
``pkg.leaf``, ``test_mid`` reaches it through ``pkg.mid``, ``tests/sub`` has
its own conftest) is written under a test's own directory and scanned as
``lanes affected`` does; :func:`plan_of` asks :func:`make_plan` for a set of
changed paths and gives the plan as ``lanes affected`` writes it. The import
chains of a change to ``pkg/leaf.py`` and a loader whose computed import could
load any module of ``pkg`` are shared by the files that check them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lanes.affected.changes import Changes
from lanes.affected.plan import Project, make_plan
from lanes.affected.selfcheck import FILES
from lanes.config import load_config

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.affected.testmap import TestMap

# The import chain by which each planted test reaches ``pkg/leaf.py``.
LEAF_CHAINS = {
    "tests/test_leaf.py": "imports it: tests/test_leaf.py -> pkg/leaf.py",
    "tests/test_mid.py": "imports it: tests/test_mid.py -> pkg/mid.py -> pkg/leaf.py",
}


def planted_project(
    root: Path, extra: dict[str, str] | None = None, *, drop: tuple[str, ...] = ()
) -> Project:
    """The planted project (plus ``extra``, without ``drop``) written under ``root`` and scanned."""
    files = {path: text for path, text in {**FILES, **(extra or {})}.items() if path not in drop}
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return Project.scan(load_config(root / "pyproject.toml"), sorted(files))


def with_settings(settings: str) -> dict[str, str]:
    """The planted ``pyproject.toml`` with ``settings`` appended, as an ``extra`` file."""
    return {"pyproject.toml": FILES["pyproject.toml"] + settings}


def plan_of(project: Project, test_map: TestMap | None = None, **changes: str) -> dict[str, Any]:
    """The plan, as written, for ``changes`` given as ``pkg__leaf_DOT_py="modified"``."""
    paths = {path.replace("__", "/").replace("_DOT_", "."): how for path, how in changes.items()}
    plan = make_plan(project, Changes("main", "abc123", paths), test_map, "a map state")
    return dict(plan.to_dict())


LOADER = {
    "pkg/loader.py": "import importlib\n\n\ndef load(name: str) -> object:\n"
    "    return importlib.import_module('pkg.' + name)\n",
    "tests/test_loader.py": "from pkg.loader import load\n\n\ndef test_load() -> None:\n    assert load('leaf')\n",
}


def by_file(plan: dict[str, Any]) -> dict[str, Any]:
    """The plan's selected tests by file."""
    return {t["file"]: t for t in plan["tests"]}


def loader_net(plan: dict[str, Any]) -> list[str]:
    """The rules that select ``tests/test_loader.py`` in the plan (none: not selected)."""
    return [r["rule"] for r in by_file(plan).get("tests/test_loader.py", {}).get("reasons", [])]
