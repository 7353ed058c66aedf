"""One module's names, as the name flow needs them: what each module-level
statement binds and reads, and what each function's code reads.

References resolve to ``(file, name)``: a name of this module, or through an
imported project module (``import a.b as m``; ``m.X``; ``from a import X``) a
name of that one; a module used whole (``vars(m)``, ``getattr(m, name)``)
reads :data:`ALL` of it. Statements are sorted into kinds the flow treats
differently: imports, ``import *``, definitions (what runs when defined vs.
when called), names bound by code (``locals().update``), calls whose effects
cannot be followed, docstrings. Used by :mod:`lanes.affected.nameflow`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from lanes.affected.graph import module_name
from lanes.affected.writes import writes_shared

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["ALL", "Module", "Ref", "Resolver", "Stmt", "parse_module"]

# A reference to every name of a module: `vars(m)`, `getattr(m, name)`, `m` passed on.
ALL: Final = "*"

# Decorators that only wrap (no registration elsewhere): a change to them stays local.
_PLAIN_DECORATORS: Final = frozenset(
    {
        "staticmethod",
        "classmethod",
        "property",
        "wraps",
        "abstractmethod",
        "dataclass",
        "cached_property",
        "cache",
        "lru_cache",
        "total_ordering",
        "setter",
        "getter",
        "deleter",
    }
)
# Calls whose result is the module's own namespace: writing to it binds computed names.
_NAMESPACE_CALLS: Final = frozenset({"locals", "globals", "vars"})

Ref = tuple[str, str]  # (file, name): a module-level name of a project file


@dataclass
class Stmt:
    """One module-level statement: the names it binds and the names its evaluation reads."""

    line: int
    end: int
    binds: set[str]
    value_refs: set[Ref]  # read when the statement runs (decorators, defaults, class bodies)
    body_refs: set[Ref]  # read when a function it defines is called
    kind: str  # plain, def, import, star, computed, call, doc
    source: str = ""  # the module a star import reads (its file)
    decorated: bool = False  # carries a decorator that may register it elsewhere
    # What each of those decorators calls, dotted (``attrs`` of
    # ``@attrs(...)``, ``attr.s`` of ``@attr.s``; empty when it is no name),
    # and their lines (where Python calls and applies them).
    decorator_paths: tuple[str, ...] = ()
    decorator_lines: tuple[tuple[int, int], ...] = ()
    # ``a = b = name``: the name it binds another name to.
    alias: str = ""
    # A class whose body sets ``pytestmark`` (marks every test in it).
    marks: bool = False
    # A class's bases: a base whose methods changed changes its behaviour, not its value.
    base_refs: set[Ref] = field(default_factory=set)
    # An import: each bound name and the reference it is bound from (None: a module).
    sources: dict[str, Ref | None] = field(default_factory=dict)


@dataclass
class Module:
    file: str
    stmts: list[Stmt] = field(default_factory=list)
    # qualname -> the names its code reads (nested functions included).
    functions: dict[str, set[Ref]] = field(default_factory=dict)
    # The functions whose own code writes what outlives a call: a global, or
    # into an object a module-level name holds (REGISTRY[k] = v, .append(v)).
    writers: set[str] = field(default_factory=set)
    defs: set[str] = field(default_factory=set)  # top-level def and class names
    # The module-level names that hold the project's objects: its own, those
    # imported from the project, and the project's modules (not a library's).
    project_names: set[str] = field(default_factory=set)
    # The names bound to a project module (``import a.b as m``) -> its file.
    module_files: dict[str, str] = field(default_factory=dict)
    getattr_hook: bool = False
    public: set[str] | None = None  # what `from it import *` binds (None: public names)


class Resolver:
    """Module names <-> files, and one file's module aliases (``import a.b as x``)."""

    def __init__(
        self, files: Iterable[str], roots: tuple[str, ...], sys_path: tuple[str, ...] = ()
    ) -> None:
        self.roots = roots
        self.by_module: dict[str, str] = {}
        ordered = sorted(files)
        for path in ordered:
            name = module_name(path, roots)
            if name is not None:
                self.by_module.setdefault(name, path)
        # What pytest's sys.path finds too, as the import graph does
        # (lanes.affected.graph.pytest_sys_path): `helpers` for tests/helpers.py.
        for directory in sys_path:
            for path in ordered:
                if path.startswith(f"{directory}/"):
                    name = module_name(path, (directory,))
                    if name is not None:
                        self.by_module.setdefault(name, path)

    def absolute(self, file: str, level: int, module: str | None) -> str:
        """The absolute module name of ``from <level dots><module> import``."""
        if not level:
            return module or ""
        parts = (module_name(file, self.roots) or "").split(".")
        base = parts if file.endswith("__init__.py") else parts[:-1]
        base = base[: len(base) - (level - 1)] if level > 1 else base
        return ".".join([*base, module] if module else base)


def _file_of_module(resolver: Resolver, name: str) -> str | None:
    return resolver.by_module.get(name)


def _aliases(tree: ast.Module, file: str, resolver: Resolver) -> dict[str, str]:
    """Every name in the file bound to a project module (anywhere: imports in functions too)."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    target = _file_of_module(resolver, alias.name)
                    if target is not None:
                        found[alias.asname] = alias.name
                elif _file_of_module(resolver, alias.name.split(".")[0]) is not None:
                    # `import a.b.c` binds `a`; `a.b.c.X` is resolved through the modules.
                    found[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            base = resolver.absolute(file, node.level, node.module)
            for alias in node.names:
                full = f"{base}.{alias.name}" if base else alias.name
                if alias.name != "*" and _file_of_module(resolver, full) is not None:
                    found[alias.asname or alias.name] = full
    return found


class _Reads(ast.NodeVisitor):
    """The references an expression or statement reads, resolved to (file, name)."""

    def __init__(
        self,
        module: Module,
        aliases: dict[str, str],
        resolver: Resolver,
        local: frozenset[str] = frozenset(),
    ) -> None:
        self.module = module
        self.aliases = aliases
        self.resolver = resolver
        # A function's own names (parameters, assignments): a load of one reads no
        # module name (`def f(validate)` shadows the module `validate`).
        self.local = local
        self.refs: set[Ref] = set()

    def _module_ref(self, dotted: str, attrs: list[str]) -> None:
        for attr in attrs:
            if _file_of_module(self.resolver, f"{dotted}.{attr}") is not None:
                dotted = f"{dotted}.{attr}"
                continue
            target = _file_of_module(self.resolver, dotted)
            if target is not None:
                self.refs.add((target, attr))
            return
        target = _file_of_module(self.resolver, dotted)
        if target is not None:
            # The module object itself, used whole: any of its names may be read.
            self.refs.add((target, ALL))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        attrs: list[str] = []
        value: ast.expr = node
        while isinstance(value, ast.Attribute):
            attrs.append(value.attr)
            value = value.value
        if isinstance(value, ast.Name) and value.id in self.local:
            self.generic_visit(node)
            return
        if isinstance(value, ast.Name) and value.id in self.aliases:
            self.refs.add((self.module.file, value.id))
            self._module_ref(self.aliases[value.id], attrs[::-1])
            return
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) and node.id not in self.local:
            self.refs.add((self.module.file, node.id))
            if node.id in self.aliases:
                self._module_ref(self.aliases[node.id], [])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = self.resolver.absolute(self.module.file, node.level, node.module)
        target = _file_of_module(self.resolver, base)
        if target is not None:
            for alias in node.names:
                self.refs.add((target, ALL if alias.name == "*" else alias.name))


def _reads(
    nodes: Iterable[ast.AST],
    module: Module,
    aliases: dict[str, str],
    resolver: Resolver,
    local: frozenset[str] = frozenset(),
) -> set[Ref]:
    visitor = _Reads(module, aliases, resolver, local)
    for node in nodes:
        visitor.visit(node)
    return visitor.refs


def _bound(stmt: ast.stmt) -> set[str]:
    """The module-level names a statement binds or mutates (``X.a = 1``, ``X[k] = v``)."""
    names: set[str] = set()

    def walk(node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            return  # its body binds its own names
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
            return
        if isinstance(node, ast.Lambda):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.Attribute | ast.Subscript) and isinstance(
            node.ctx, ast.Store | ast.Del
        ):
            root: ast.expr = node
            while isinstance(root, ast.Attribute | ast.Subscript):
                root = root.value
            if isinstance(root, ast.Name):
                names.add(root.id)
        for child in ast.iter_child_nodes(node):
            walk(child)

    walk(stmt)
    return names


def _sources(
    stmt: ast.Import | ast.ImportFrom, module: Module, resolver: Resolver
) -> dict[str, Ref | None]:
    """Each name an import binds -> the name it reads (``from m import X as Y``: Y -> (m, X))."""
    if isinstance(stmt, ast.Import):
        return {(a.asname or a.name).split(".")[0]: None for a in stmt.names}
    base = resolver.absolute(module.file, stmt.level, stmt.module)
    target = _file_of_module(resolver, base)
    found: dict[str, Ref | None] = {}
    for alias in stmt.names:
        submodule = _file_of_module(resolver, f"{base}.{alias.name}" if base else alias.name)
        # `from pkg import mod` binds the module object: its names are read through it.
        found[alias.asname or alias.name] = (
            (target, alias.name) if target is not None and submodule is None else None
        )
    return found


def _decorator_name(node: ast.expr) -> str:
    while isinstance(node, ast.Call):
        node = node.func
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def _registering(stmt: ast.stmt) -> list[ast.expr]:
    """The decorators on a def or class (or one nested in it) that may register it elsewhere."""
    return [
        d
        for node in ast.walk(stmt)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        for d in node.decorator_list
        if _decorator_name(d) not in _PLAIN_DECORATORS
    ]


def _dotted(node: ast.expr) -> str:
    """What a decorator calls, dotted: ``attrs`` of ``@attrs(repr=False)``, ``attr.s`` of ``@attr.s``."""
    while isinstance(node, ast.Call):
        node = node.func
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else ""


def _namespace_write(node: ast.AST) -> bool:
    """``locals().update(...)``, ``globals()[k] = v``: names bound by code."""
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id in _NAMESPACE_CALLS
        and not n.args
        for n in ast.walk(node)
    )


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)


def _mutates(stmt: ast.stmt) -> bool:
    """A statement that changes an existing object rather than binding a name
    (in a compound statement, any statement it runs: `for n in N: setattr(...)`)."""
    if not isinstance(stmt, ast.Expr | ast.AugAssign | ast.Assign | ast.AnnAssign | ast.Delete):
        return any(
            _mutates(child)
            for child in ast.iter_child_nodes(stmt)
            if isinstance(child, ast.stmt) and not isinstance(child, _DEFINITIONS)
        ) or any(
            _mutates(inner) for handler in getattr(stmt, "handlers", []) for inner in handler.body
        )
    if isinstance(stmt, ast.Expr):
        return any(isinstance(node, ast.Call) for node in ast.walk(stmt.value))
    if isinstance(stmt, ast.AugAssign):
        return True
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign | ast.Delete):
        targets = [stmt.target] if isinstance(stmt, ast.AnnAssign) else stmt.targets
    return any(
        isinstance(node, ast.Attribute | ast.Subscript)
        and isinstance(node.ctx, ast.Store | ast.Del)
        for target in targets
        for node in ast.walk(target)
    )


def _split_def(
    node: ast.AST, evaluated: list[ast.AST], called: list[ast.AST], *, annotations: bool
) -> None:
    """Sort a definition's parts: what runs when it is defined, and what runs when it is called."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        if not isinstance(node, ast.Lambda):
            evaluated.extend(node.decorator_list)
            if annotations:
                evaluated.extend(
                    a.annotation
                    for a in ast.walk(node.args)
                    if isinstance(a, ast.arg) and a.annotation
                )
                if node.returns is not None:
                    evaluated.append(node.returns)
        evaluated.extend(node.args.defaults)
        evaluated.extend(d for d in node.args.kw_defaults if d is not None)
        body = node.body if isinstance(node.body, list) else [node.body]
        called.extend(body)
        return
    if isinstance(node, ast.ClassDef):
        # A nested class's bases are evaluated with its body; a top-level class's
        # are kept apart by the caller (Stmt.base_refs).
        evaluated.extend([*node.decorator_list, *node.bases, *node.keywords])
        for child in node.body:
            _split_def(child, evaluated, called, annotations=annotations)
        return
    evaluated.append(node)


def _statement(
    stmt: ast.stmt,
    module: Module,
    aliases: dict[str, str],
    resolver: Resolver,
    *,
    annotations: bool,
) -> Stmt:
    # A decorated definition starts at its first decorator (the `def` line comes after).
    decorators = getattr(stmt, "decorator_list", [])
    line = min([stmt.lineno, *(d.lineno for d in decorators)])
    end = stmt.end_lineno or stmt.lineno
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return Stmt(line, end, set(), set(), set(), "doc")
    if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
        base = resolver.absolute(module.file, stmt.level, stmt.module)
        source = _file_of_module(resolver, base) or ""
        return Stmt(line, end, set(), set(), set(), "star", source=source)
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        refs = _reads([stmt], module, aliases, resolver)
        return Stmt(
            line, end, _bound(stmt), refs, set(), "import", sources=_sources(stmt, module, resolver)
        )
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        evaluated: list[ast.AST] = []
        called: list[ast.AST] = []
        if isinstance(stmt, ast.ClassDef):
            evaluated.extend(stmt.decorator_list)
            for child in stmt.body:
                _split_def(child, evaluated, called, annotations=annotations)
        else:
            _split_def(stmt, evaluated, called, annotations=annotations)
        return Stmt(
            line,
            end,
            {stmt.name},
            _reads(evaluated, module, aliases, resolver),
            _reads(called, module, aliases, resolver),
            "def",
            decorated=bool(registering := _registering(stmt)),
            decorator_paths=tuple(_dotted(d) for d in registering),
            decorator_lines=tuple((d.lineno, d.end_lineno or d.lineno) for d in registering),
            base_refs=_reads(
                [*stmt.bases, *stmt.keywords] if isinstance(stmt, ast.ClassDef) else [],
                module,
                aliases,
                resolver,
            ),
            marks=isinstance(stmt, ast.ClassDef)
            and any(
                isinstance(t, ast.Name) and t.id == "pytestmark"
                for child in stmt.body
                if isinstance(child, ast.Assign | ast.AnnAssign)
                for t in (child.targets if isinstance(child, ast.Assign) else [child.target])
            ),
        )
    refs = _reads([stmt], module, aliases, resolver)
    if _namespace_write(stmt):
        return Stmt(line, end, _bound(stmt), refs, set(), "computed")
    binds = _bound(stmt)
    if _mutates(stmt):
        # A module-level call, or a write into an object (`X.a = v`, `X[k] = v`,
        # `X += [v]`): the object may be shared with another module (`from m
        # import X`, `Y = m.X`), registration and I/O reach anywhere. What it
        # changes cannot be followed by name.
        return Stmt(line, end, binds, refs, set(), "call")
    alias = (
        stmt.value.id if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name) else ""
    )
    return Stmt(line, end, binds, refs, set(), "plain", alias=alias)


_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _locals(function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """A function's local names: parameters and what its own body assigns (not
    inside nested scopes, not imports: `import m` there still reads m's names;
    `global`/`nonlocal` names stay module names)."""
    args = function.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    shared: set[str] = set()

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Global | ast.Nonlocal):
                shared.update(child.names)
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(child.name)
                continue
            elif isinstance(child, _SCOPES):
                continue
            elif isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store | ast.Del):
                names.add(child.id)
            elif isinstance(child, ast.ExceptHandler) and child.name:
                names.add(child.name)
            walk(child)

    for statement in function.body:
        walk(ast.Module(body=[statement], type_ignores=[]))
    return frozenset(names - shared)


def _functions(
    tree: ast.Module, module: Module, aliases: dict[str, str], resolver: Resolver
) -> None:
    """Every function's qualified name (as the map names it) -> the names its code reads."""

    project = module.project_names
    project.update(aliases)
    for stmt in module.stmts:
        if stmt.kind == "import":
            project.update(name for name, ref in stmt.sources.items() if ref is not None)
        else:
            project.update(stmt.binds)

    def walk(node: ast.AST, prefix: str, enclosing: frozenset[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = f"{prefix}{child.name}"
                local = _locals(child)
                module.functions[qualname] = _reads(child.body, module, aliases, resolver, local)
                if writes_shared(child, local | enclosing, project):
                    module.writers.add(qualname)
                walk(child, f"{qualname}.<locals>.", local | enclosing)
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.", enclosing)
            else:
                walk(child, prefix, enclosing)

    walk(tree, "", frozenset())


def _literal_all(tree: ast.Module) -> set[str] | None:
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets)
            and isinstance(stmt.value, ast.List | ast.Tuple)
        ):
            return {
                e.value
                for e in stmt.value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            }
    return None


def parse_module(source: bytes, file: str, resolver: Resolver) -> tuple[Module, ast.Module]:
    tree = ast.parse(source, filename=file)
    module = Module(file)
    aliases = _aliases(tree, file, resolver)
    module.module_files = {
        name: found
        for name, dotted in aliases.items()
        if (found := _file_of_module(resolver, dotted))
    }
    annotations = not any(
        isinstance(s, ast.ImportFrom)
        and s.module == "__future__"
        and any(a.name == "annotations" for a in s.names)
        for s in tree.body
    )
    module.stmts = [
        _statement(s, module, aliases, resolver, annotations=annotations) for s in tree.body
    ]
    _functions(tree, module, aliases, resolver)
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            module.defs.add(stmt.name)
            module.getattr_hook |= stmt.name == "__getattr__"
    module.public = _literal_all(tree)
    return module, tree
