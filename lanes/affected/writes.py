"""Which functions write what outlives a call: a global, a registry.

The name flow follows what a function run at import returns into the
module-level statement that called it; what it *writes* elsewhere (a
module-level registry it appends to, a global it sets) reaches code that
never reads the changed name. A function whose own code does that, by its
syntax, is a writer, and the flow does not follow through it.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["writes_shared"]

# Methods that change the object they are called on (a list, dict, set, deque, registry).
_MUTATORS: Final = frozenset(
    {
        "append",
        "appendleft",
        "extend",
        "insert",
        "add",
        "update",
        "setdefault",
        "pop",
        "popitem",
        "remove",
        "discard",
        "clear",
        "register",
        "__setitem__",
    }
)


def writes_shared(
    function: ast.FunctionDef | ast.AsyncFunctionDef, local: frozenset[str], project: set[str]
) -> bool:
    """The function's own code (not its nested functions') writes what outlives
    the call: ``global``, a store into (a mutating call on, ``setattr`` of) an
    object the project's module-level names hold (``project``: the module's
    own, those imported from the project's modules, and those modules), or a
    ``.register(...)`` on anything it does not bind itself. ``local``: what
    it and the functions around it bind (a closure's list is the call's). A
    write into a library's state (``linecache.cache[k] = v``) is like a call
    into the library: not seen."""

    def root(node: ast.expr) -> str:
        while isinstance(node, ast.Attribute | ast.Subscript):
            node = node.value
        return node.id if isinstance(node, ast.Name) else ""

    def shared(node: ast.expr) -> bool:
        name = root(node)
        return name not in local and name in project

    def writes(node: ast.AST) -> bool:
        for child in ast.iter_child_nodes(node):
            # A comprehension runs within the call: its writes are the function's.
            if isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
            ):
                continue
            if isinstance(child, ast.Global):
                return True
            if (
                isinstance(child, ast.Attribute | ast.Subscript)
                and isinstance(child.ctx, ast.Store | ast.Del)
                and shared(child.value)
            ):
                return True
            if isinstance(child, ast.Call) and _mutating_call(child, shared, local, root):
                return True
            if writes(child):
                return True
        return False

    return any(writes(ast.Module(body=[statement], type_ignores=[])) for statement in function.body)


def _mutating_call(
    call: ast.Call,
    shared: Callable[[ast.expr], bool],
    local: frozenset[str],
    root: Callable[[ast.expr], str],
) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _MUTATORS:
        if func.attr == "register":
            return bool(root(func.value)) and root(func.value) not in local
        return shared(func.value)
    return (
        isinstance(func, ast.Name)
        and func.id in ("setattr", "delattr")
        and bool(call.args)
        and shared(call.args[0])
    )
