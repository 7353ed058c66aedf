"""Computed imports: ``importlib.import_module(name)`` / ``__import__(name)`` with a name built at run time.

The static graph follows an import whose name is written in the file (a
literal, or a string in a table next to the call); a name computed from
anything else can reach any module, and a test that imports the changed
module that way was silently left out. Each computed import is a *named
blind spot*: the modules it could reach are those under its literal prefix
(``f"pkg.plugins.{name}"`` reaches ``pkg.plugins.*``), else the modules the
same file names in strings (a table of names) and their submodules, else every
module. A change to
a module in that reach selects the tests that reach the importing file —
fail open, with the blind spot in the reason.

Only the files the graph already flagged are parsed again, so the cost is a
handful of files, not the project.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lanes.affected.graph import module_name

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.affected.graph import ImportGraph

__all__ = ["ComputedImport", "computed_imports"]

_IMPORT_CALLS = frozenset({"import_module", "__import__"})


@dataclass(frozen=True)
class ComputedImport:
    file: str
    line: int
    what: str
    # The call's last line: a recording notes a site ran when a line of it ran.
    end: int
    # Module names it could reach: a prefix ("pkg.plugins.") or names; None: any module.
    prefix: str | None
    names: frozenset[str] | None

    def reaches(self, module: str) -> bool:
        if self.prefix is not None:
            return module.startswith(self.prefix) or module == self.prefix.rstrip(".")
        if self.names is not None:
            # A named package reaches its submodules: '.'.join(["pkg", leaf]).
            return any(module == name or module.startswith(f"{name}.") for name in self.names)
        return True

    def reach(self) -> str:
        if self.prefix is not None:
            return f"modules under {self.prefix.rstrip('.')}"
        if self.names is not None:
            return f"the modules named in {self.file} ({len(self.names)}) and below"
        return "any module"

    def describe(self) -> str:
        return f"computed import {self.what} at {self.file}:{self.line} could import {self.reach()}"


def _literal_prefix(arg: ast.expr) -> str | None:
    """The constant start of a built name: f"pkg.{x}" and "pkg." + x give "pkg."."""
    if isinstance(arg, ast.JoinedStr) and arg.values:
        first = arg.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value:
            return first.value
    if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add):
        left = arg.left
        if isinstance(left, ast.Constant) and isinstance(left.value, str) and left.value:
            return left.value
    return None


def _calls(tree: ast.AST) -> list[tuple[ast.Call, str]]:
    found: list[tuple[ast.Call, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _IMPORT_CALLS:
                found.append((node, name))
    return found


def computed_imports(
    root: Path, graph: ImportGraph, roots: tuple[str, ...]
) -> list[ComputedImport]:
    """Every import call in the project whose module name is not a literal."""
    modules = {
        name: path for path in sorted(graph.files) if (name := module_name(path, roots)) is not None
    }
    found: list[ComputedImport] = []
    for path in sorted(graph.blind_spots):
        try:
            tree = ast.parse((root / path).read_bytes(), filename=path)
        except (OSError, SyntaxError, ValueError):
            continue  # the graph already reports an unparsable file
        strings = {
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        }
        # The file's own table of module names (dotted, "mod:attr", or a sibling leaf).
        package = (module_name(path, roots) or "").rpartition(".")[0]
        named = frozenset(
            candidate
            for text in strings
            for candidate in (text.split(":", 1)[0], f"{package}.{text}" if package else text)
            if candidate in modules
        )
        for call, name in _calls(tree):
            arg = call.args[0]
            if isinstance(arg, ast.Constant):
                continue  # a literal name: the graph follows it
            prefix = _literal_prefix(arg)
            found.append(
                ComputedImport(
                    file=path,
                    line=call.lineno,
                    what=f"{name}(...)",
                    end=call.end_lineno or call.lineno,
                    prefix=prefix,
                    names=None if prefix is not None or not named else named,
                )
            )
    return found
