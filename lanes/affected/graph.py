"""The project's static import graph: which Python file imports which.

Built from the source itself (``ast``), not from a hand-kept map and not from
coverage: a coverage-based selector (pytest-testmon) only knows the lines the
last run executed, so a change that makes new code reachable — a new branch,
a new call — selects nothing. An import edge is a superset of "may execute".

What the graph cannot see it says so instead of pretending:
``importlib.import_module(...)``, ``__import__(...)`` and pytest plugins named
in strings are recorded per file as *blind spots*; the plan reports them.

Modules are mapped to files the way Python finds them from the project's
import roots: the project root itself and ``src/`` when present (the two
layouts pytest's rootdir-relative imports and an editable install give), plus
the directories pytest itself puts on ``sys.path`` (:func:`pytest_sys_path`):
``tests/test_x.py`` doing ``import helpers`` imports ``tests/helpers.py``.
An absolute import in a test file, a conftest or a module next to them that
names neither a project file nor an installed or standard module is a blind
spot too (``unresolved``): the tests that reach it fail open.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from lanes._jsondoc import read_bytes

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from pathlib import Path

__all__ = [
    "MAX_SOURCE_BYTES",
    "BlindSpot",
    "ImportGraph",
    "build_graph",
    "module_name",
    "pytest_sys_path",
]

# Far past any hand-written module (a large one is ~500 KiB); a generated
# file past it is reported as unreadable, and the plan fails open for it.
MAX_SOURCE_BYTES: Final = 8 << 20

# Calls whose argument names a module the graph cannot follow statically.
_DYNAMIC_CALLS = frozenset(
    {"import_module", "__import__", "load_module", "spec_from_file_location"}
)


@dataclass(frozen=True)
class BlindSpot:
    """An edge the static graph cannot follow: ``file`` imports something at run time."""

    file: str
    line: int
    what: str


@dataclass
class ImportGraph:
    """Files (POSIX paths relative to the root) and their import edges, both ways."""

    files: frozenset[str]
    imports: dict[str, set[str]] = field(default_factory=dict)
    imported_by: dict[str, set[str]] = field(default_factory=dict)
    blind_spots: dict[str, list[BlindSpot]] = field(default_factory=dict)
    unparsable: dict[str, str] = field(default_factory=dict)
    # Files with an import no project file, installed or standard module answers.
    unresolved: dict[str, list[BlindSpot]] = field(default_factory=dict)

    def dependents(self, start: Iterable[str]) -> dict[str, int]:
        """Every file that imports one of ``start``, directly or transitively, with its distance."""
        distance: dict[str, int] = {}
        queue: deque[tuple[str, int]] = deque((path, 0) for path in start)
        seen = set(start)
        while queue:
            path, depth = queue.popleft()
            for importer in self.imported_by.get(path, ()):
                if importer not in seen:
                    seen.add(importer)
                    distance[importer] = depth + 1
                    queue.append((importer, depth + 1))
        return distance

    def chains(self, start: str) -> dict[str, list[str]]:
        """Every file that imports ``start``, with one shortest import chain from it to ``start``."""
        chain: dict[str, list[str]] = {start: [start]}
        queue: deque[str] = deque([start])
        while queue:
            path = queue.popleft()
            for importer in sorted(self.imported_by.get(path, ())):
                if importer not in chain:
                    chain[importer] = [importer, *chain[path]]
                    queue.append(importer)
        del chain[start]
        return chain


def module_name(path: str, roots: tuple[str, ...]) -> str | None:
    """``pkg/mod.py`` -> ``pkg.mod`` (``pkg/__init__.py`` -> ``pkg``) under the first root holding it."""
    for root in roots:
        prefix = f"{root}/" if root else ""
        if root and not path.startswith(prefix):
            continue
        relative = path[len(prefix) :]
        parts = relative[: -len(".py")].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts and all(part.isidentifier() for part in parts):
            return ".".join(parts)
    return None


def pytest_sys_path(
    python: frozenset[str], tested: Iterable[str], import_mode: str, pythonpath: tuple[str, ...]
) -> tuple[str, ...]:
    """The project directories pytest puts on ``sys.path`` during a run.

    The ``pythonpath`` ini option's entries (relative to the root), and, in the
    ``prepend`` and ``append`` import modes, the base directory of each test
    module and conftest in ``tested``: the first directory upward without an
    ``__init__.py`` (``tests/`` for ``tests/test_x.py``). ``importlib`` mode
    inserts none: a sibling import there resolves only through ``pythonpath``.
    """
    found: dict[str, None] = {}
    for entry in pythonpath:
        directory = entry.replace("\\", "/").strip("/")
        directory = directory.removeprefix("./")
        if directory not in ("", ".") and not directory.startswith("../"):
            found[directory] = None
    if import_mode in ("prepend", "append"):
        for path in tested:
            parts = path.split("/")[:-1]
            while parts and "/".join([*parts, "__init__.py"]) in python:
                parts.pop()
            if parts:
                found["/".join(parts)] = None
    return tuple(found)


def _resolve_relative(importer: str, level: int, module: str | None, *, is_package: bool) -> str:
    # `from . import x` in pkg/mod.py is relative to pkg; in pkg/__init__.py too.
    parts = importer.split(".")
    base = parts if is_package else parts[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, module] if module else base)


@dataclass
class _FileFacts:
    """What one walk over a file's syntax tree finds."""

    imports: list[str] = field(default_factory=list)
    # Absolute imports (name, line) not guarded by `try: ... except ImportError`
    # nor under `if TYPE_CHECKING:`: each must name something that exists.
    required: list[tuple[str, int]] = field(default_factory=list)
    strings: list[str] = field(default_factory=list)
    blind_spots: list[BlindSpot] = field(default_factory=list)


def _scan(tree: ast.AST, path: str, importer: str, *, is_package: bool) -> _FileFacts:
    """One walk over the tree (parsing and walking is the selector's whole cost)."""
    facts = _FileFacts()
    optional: set[int] = set()
    for node in ast.walk(tree):
        if id(node) in optional:
            pass
        elif isinstance(node, ast.Try | ast.If) and _guards(node):
            # An optional import handles its own absence: not a blind spot.
            optional.update(id(n) for child in node.body for n in ast.walk(child))
        elif isinstance(node, ast.Import):
            facts.required.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            facts.required.append((node.module, node.lineno))
        if isinstance(node, ast.Import):
            facts.imports.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _resolve_relative(importer, node.level, node.module, is_package=is_package)
            else:
                base = node.module or ""
            if base:
                facts.imports.append(base)
            # `from pkg import mod` imports the submodule pkg.mod when there is one.
            facts.imports.extend(f"{base}.{a.name}" if base else a.name for a in node.names)
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, str) and len(node.value) < 200:
                facts.strings.append(node.value)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _DYNAMIC_CALLS:
                facts.blind_spots.append(BlindSpot(path, node.lineno, f"{name}(...)"))
        elif isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytest_plugins"
            for target in node.targets
        ):
            # `pytest_plugins = [...]` loads modules by string: a conftest's plugins.
            facts.blind_spots.append(BlindSpot(path, node.lineno, "pytest_plugins"))
    return facts


def _guards(node: ast.Try | ast.If) -> bool:
    """``try:`` catching an import error, or ``if TYPE_CHECKING:``."""
    if isinstance(node, ast.If):
        test = node.test
        name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", "")
        return name == "TYPE_CHECKING"
    for handler in node.handlers:
        caught = handler.type
        names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
        for item in names:
            if item is None or getattr(item, "id", "") in (
                "ImportError",
                "ModuleNotFoundError",
                "Exception",
                "BaseException",
            ):
                return True
    return False


def _exists_elsewhere(top: str, cache: dict[str, bool]) -> bool:
    """``top`` is a standard or installed module (in the selector's environment)."""
    known = cache.get(top)
    if known is None:
        if top in sys.stdlib_module_names or top in sys.builtin_module_names:
            known = True
        else:
            try:
                known = importlib.util.find_spec(top) is not None
            except (ImportError, ValueError):
                known = False
        cache[top] = known
    return known


def _string_references(strings: list[str], scripts: Mapping[str, str]) -> list[str]:
    """Module names a file names in strings: tables of lazily imported modules
    (``("affected", "lanes.affected._cli")``), ``"pkg.mod:attr"`` references, and
    console-script names a test runs as a subprocess (``["lanes", "report"]``).
    Following them costs a few extra selections and closes the commonest blind spot.
    (Bare leaf names next to a module of that name are followed in :func:`build_graph`.)"""
    names: list[str] = []
    for text in strings:
        if text in scripts:
            names.append(scripts[text])
        elif "." in text and " " not in text:
            names.append(text.split(":", 1)[0])
    return names


def build_graph(
    root: Path,
    files: Iterable[str],
    roots: tuple[str, ...],
    scripts: Mapping[str, str] | None = None,
    runs_scripts: Callable[[str], bool] | None = None,
    *,
    sys_path: tuple[str, ...] = (),
) -> ImportGraph:
    """Parse ``files`` (``.py`` paths relative to ``root``) into an import graph.

    ``scripts`` maps console-script names to the module they run
    (``[project.scripts]``): a test that runs ``lanes`` in a subprocess depends on
    ``lanes.cli``. Only files for which ``runs_scripts(path)`` is true (the test
    files and conftests) are read that way: in library code a string equal to a
    script name is usually the program's own name, not a subprocess.
    """
    python = frozenset(path for path in files if path.endswith(".py"))
    by_module: dict[str, str] = {}
    for path in sorted(python):
        name = module_name(path, roots)
        if name is not None:
            by_module.setdefault(name, path)
    # Modules only pytest's sys.path finds (`helpers` for tests/helpers.py).
    beside: dict[str, set[str]] = {}
    for directory in sys_path:
        for path in python:
            if path.startswith(f"{directory}/"):
                name = module_name(path, (directory,))
                if name is not None:
                    beside.setdefault(name, set()).add(path)
    tops = {name.partition(".")[0] for name in [*by_module, *beside]}
    elsewhere: dict[str, bool] = {}
    graph = ImportGraph(files=python)
    for path in sorted(python):
        try:
            # Tracked files are someone else's: a regular file, bounded (a test
            # file linked to /dev/zero was read until the OOM killer came).
            # A tracked symlink to a real module is followed, as Python would.
            source = read_bytes(root / path, max_bytes=MAX_SOURCE_BYTES, follow_symlinks=True)
        except OSError as exc:
            graph.unparsable[path] = f"cannot be read: {exc}"
            continue
        if source is None:
            continue  # a deleted file: kept in the module map, nothing to parse
        importer = module_name(path, roots) or ""
        is_package = path.endswith("__init__.py")
        try:
            tree = ast.parse(source, filename=path)
            facts = _scan(tree, path, importer, is_package=is_package)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            # A file that does not parse imports nothing we can see: say so.
            # Nesting deep enough to exhaust the parser's (or our walk's)
            # stack is one more such file, not a crash of the plan.
            graph.unparsable[path] = f"{type(exc).__name__}: {str(exc)[:200]}"
            continue
        targets: set[str] = set()
        script_names = scripts if scripts and runs_scripts and runs_scripts(path) else {}
        referenced = _string_references(facts.strings, script_names)
        # A bare module name in a string, next to a module of that name, is a
        # lazy import by leaf name (`__import__(f"{package}.{name}")` over a
        # table of names): the runner table's "jvm" -> runners/jvm.py.
        package = importer if is_package else importer.rpartition(".")[0]
        siblings = [
            f"{package}.{text}" if package else text
            for text in facts.strings
            if text.isidentifier() and (f"{package}.{text}" if package else text) in by_module
        ]
        for name in [*facts.imports, *referenced, *siblings]:
            # `import a.b.c` also runs a/__init__.py and a/b/__init__.py.
            parts = name.split(".")
            for end in range(1, len(parts) + 1):
                prefix = ".".join(parts[:end])
                target = by_module.get(prefix)
                if target is not None and target != path:
                    targets.add(target)
                targets.update(beside.get(prefix, set()) - {path})
        if (runs_scripts is not None and runs_scripts(path)) or any(
            path.startswith(f"{directory}/") for directory in sys_path
        ):
            unresolved = [
                BlindSpot(path, line, f"unresolved import {name}: no project file, not installed")
                for name, line in facts.required
                if name.partition(".")[0] not in tops
                and not _exists_elsewhere(name.partition(".")[0], elsewhere)
            ]
            if unresolved:
                graph.unresolved[path] = unresolved
                facts.blind_spots.extend(unresolved)
        graph.imports[path] = targets
        for target in targets:
            graph.imported_by.setdefault(target, set()).add(path)
        if facts.blind_spots:
            graph.blind_spots[path] = facts.blind_spots
    return graph
