"""Module-level changes narrowed by name flow: which recorded code reads what a change binds.

A change at module level (a constant, an import, a decorator, a class body, a
function that runs at import) changes the *names* its statements bind. Code
that never reads one of those names behaves as before, so the tests to run are
those that executed code reading a changed name — not every test that
imported the module (on a package whose ``__init__`` imports every module,
that is every test).

The flow, over the changed module and every module that imports it:

- **seeds**: the names the changed module-level statements bind (old and new
  side of the diff: a removed name is changed too), and the functions changed
  inside that ran outside every test (at import, building a table);
- **module-level flow**: a statement that reads a changed name binds changed
  names (``Y = f(X)``; ``def g(a=X)``; a class body or decorator reading X); a
  function whose body reads one is *changed behaviour*: module-level code
  calling it builds changed values; ``from m import X`` and ``from m import *``
  carry a name into another module, ``m.X`` reads it there;
- **readers**: the recorded functions whose code reads a changed value (by
  name, through an imported module's attribute, or the whole module:
  ``vars(m)``, ``getattr(m, name)``), and the code of a def or class whose
  definition changed. The map gives the tests that executed them; a reader
  that ran while pytest collected one file or directory (a test module's
  module-level ``@define`` class, a parametrize table) built what that
  collection's tests share: they run whole, as for a changed function that
  ran there.

It gives up, and the static rule stands, with the reason, wherever the flow
cannot be followed: a module-level call whose effects are unknown
(``register(X)``, ``setattr(...)``) or a write into an existing object
(``X.a = v``, ``X[k] = v``, ``X += v``: it may be shared with another module),
a decorator that may register the function elsewhere, a changed ``__all__``,
a module-level ``__getattr__`` in a module with changed names, a changed
import of a name other modules import from it, a reader that ran outside
every test in the session scope (at a shared import, at configure: by code
the flow does not see, for every test), a file that does not parse. What
the recording saw called outside the tests answers two of those
(:mod:`lanes.affected.atimport`): a reader every call of which came from
code the flow follows, and a project's own decorator that writes nothing
that outlives the call, do not stop it. A parametrize decorator in a test
file reading a changed name runs that test's items by its own id. Names
bound by code (``locals().update(...)``) make every name of the module
changed, which the flow still follows. A value-changed binding in a test
file or conftest (a parametrize list, a fixture's params) may change the test
ids themselves: that file (a conftest: its directory's tests) runs whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lanes.affected.atimport import AtImport, SessionCalls
from lanes.affected.namescan import ALL, Resolver, parse_module

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from lanes.affected.namescan import Module, Ref, Stmt

__all__ = ["Flow", "follow"]


@dataclass(frozen=True)
class Flow:
    """The readers of the changed names, or why the flow cannot be followed."""

    # file -> qualname -> why its tests are selected
    readers: dict[str, dict[str, str]]
    # test files and conftests that run whole (a changed binding there), with why
    whole: dict[str, str]
    fallback: str = ""
    # The names found changed (values and behaviour), for the plan's summary.
    changed: frozenset[Ref] = frozenset()
    # file -> qualname -> (the collection scopes it ran in outside every test,
    # why it matters): readers run while pytest collected one file or directory.
    collected: dict[str, dict[str, tuple[tuple[str, ...], str]]] = field(default_factory=dict)
    # A parametrized test's node id (file::name) -> why all its items run.
    items: dict[str, str] = field(default_factory=dict)
    # Fixtures whose params changed: the tests that executed one run whole,
    # by their own ids (its params are part of their items' ids).
    fixtures: frozenset[Ref] = frozenset()


@dataclass
class _State:
    """The changed names found so far, each with how it changed (for the reasons)."""

    value: dict[Ref, str] = field(default_factory=dict)
    behaviour: dict[Ref, str] = field(default_factory=dict)
    whole: dict[str, str] = field(default_factory=dict)  # file -> why every name of it changed
    # Test files whose module-level calls read a changed name -> why (they run whole).
    calls: dict[str, str] = field(default_factory=dict)
    # A parametrized test (its node id: file::name) whose decorator reads a
    # changed name -> why: its items run, whatever their ids are now.
    items: dict[str, str] = field(default_factory=dict)
    # A test file's fixture whose decorator (its params) reads a changed name -> why.
    fixtures: dict[Ref, str] = field(default_factory=dict)

    def value_hit(self, refs: Iterable[Ref]) -> tuple[Ref, str] | None:
        for ref in sorted(refs):
            file, name = ref
            if file in self.whole:
                return ref, self.whole[file]
            if name == ALL:
                changed = sorted(r for r in self.value if r[0] == file)
                if changed:
                    return changed[0], self.value[changed[0]]
            elif ref in self.value:
                return ref, self.value[ref]
        return None

    def any_hit(self, refs: Iterable[Ref]) -> tuple[Ref, str] | None:
        hit = self.value_hit(refs)
        if hit is not None:
            return hit
        for ref in sorted(refs):
            if ref in self.behaviour:
                return ref, self.behaviour[ref]
        return None

    def mark(self, table: dict[Ref, str], ref: Ref, why: str) -> bool:
        if ref in table or ref[0] in self.whole:
            return False
        table[ref] = why
        return True


def _touches(stmt: Stmt, ranges: list[tuple[int, int]]) -> bool:
    return any(stmt.line <= last and first <= stmt.end for first, last in ranges)


def _seed(
    state: _State,
    file: str,
    stmts: list[tuple[Stmt, int]],
    imported: set[str],
    at_import: AtImport,
) -> str:
    """The changed statements' names as changed values; a non-empty answer: why the flow stops."""
    for stmt, line in stmts:
        why = f"the change binds it (line {line})"
        if stmt.kind == "doc":
            return f"a module docstring changed at line {line}: a doctest may read it"
        if stmt.kind == "call":
            return f"a module-level call changed at line {line}: what it changes cannot be followed"
        if at_import.registers(file, stmt):
            return f"a decorator at line {line} runs at import and may register it elsewhere"
        if stmt.kind in ("computed", "star"):
            state.whole.setdefault(
                file, f"binds names by code (line {line}), which the change touches"
            )
            continue
        if stmt.kind == "import":
            imported.update(stmt.binds)
        for name in stmt.binds:
            state.mark(state.value, (file, name), why)
    return ""


def _propagate(state: _State, at_import: AtImport, test_file: Callable[[str], bool]) -> str:
    """Module-level flow to a fixed point; a non-empty answer: why the flow stops."""
    modules = at_import.modules
    changed = True
    while changed:
        changed = False
        for module in modules.values():
            for stmt in module.stmts:
                if stmt.kind == "star":
                    changed |= _star(state, module.file, stmt, modules)
                    continue
                if stmt.kind == "import":
                    changed |= _imported(state, module.file, stmt)
                    continue
                hit = state.any_hit(stmt.value_refs) or state.value_hit(stmt.base_refs)
                if hit is not None:
                    (_, name), _cause = hit
                    # A decorator that may register elsewhere runs like a call.
                    registers = at_import.registers(module.file, stmt)
                    kind = "call" if registers else stmt.kind
                    test = _parametrized_test(stmt) if test_file(module.file) else ""
                    if kind == "call" and test:
                        # Only this test's items change: they run (by its id), and
                        # its name changed, as any definition's (a subclass reads it).
                        state.items.setdefault(
                            f"{module.file}::{test}",
                            f"a parametrize decorator at line {stmt.line} reads {name}, "
                            "run when it is collected: its items run",
                        )
                        kind = stmt.kind
                    elif kind == "call" and test_file(module.file) and _fixture(stmt):
                        # A fixture's params: the tests using it (the map knows
                        # which executed it) run whole, by their own ids.
                        state.fixtures[module.file, _fixture(stmt)] = (
                            f"a fixture decorator at line {stmt.line} reads {name}"
                        )
                        kind = stmt.kind
                    elif kind == "call" and test_file(module.file):
                        # It runs when pytest collects that file: the file runs whole.
                        what = "a decorator" if registers else "a module-level call"
                        state.calls.setdefault(
                            module.file, f"{what} at line {stmt.line} reads {name}"
                        )
                        continue
                    if kind == "call":
                        what = "a decorator that may register" if registers else "a call"
                        return (
                            f"{module.file}:{stmt.line}: {what} at module level reads {name}, "
                            "which the change affects: what it changes cannot be followed"
                        )
                    if stmt.kind == "computed":
                        if module.file not in state.whole:
                            state.whole[module.file] = (
                                f"binds names by code from {name} (line {stmt.line})"
                            )
                            changed = True
                        continue
                    why = f"line {stmt.line} of {module.file} builds it from {name}"
                    for bound in stmt.binds:
                        changed |= state.mark(state.value, (module.file, bound), why)
                    continue
                hit = state.any_hit(stmt.body_refs | stmt.base_refs)
                if hit is not None:
                    (_, name), _cause = hit
                    why = f"its code reads {name}"
                    for bound in stmt.binds:
                        changed |= state.mark(state.behaviour, (module.file, bound), why)
    return ""


def _imported(state: _State, file: str, stmt: Stmt) -> bool:
    """``from m import X as Y``: Y carries X's change (value or behaviour), name by name."""
    changed = False
    for bound, ref in sorted(stmt.sources.items()):
        if ref is None:
            continue  # a module object: its names are read through it, not changed
        hit = state.value_hit([ref])
        if hit is not None:
            changed |= state.mark(state.value, (file, bound), f"imported from {ref[0]}")
        elif ref in state.behaviour:
            changed |= state.mark(state.behaviour, (file, bound), f"imported from {ref[0]}")
    return changed


def _star(state: _State, file: str, stmt: Stmt, modules: dict[str, Module]) -> bool:
    """``from m import *`` carries m's changed public names (its ``__all__``) into ``file``."""
    source = modules.get(stmt.source)
    if source is None:
        return False
    if stmt.source in state.whole:
        if file in state.whole:
            return False
        state.whole[file] = f"imports * from {stmt.source}, whose names all changed"
        return True
    changed = False
    for table in (state.value, state.behaviour):
        for (origin, name), _why in list(table.items()):
            public = (
                name in source.public if source.public is not None else not name.startswith("_")
            )
            if origin == stmt.source and public:
                changed |= state.mark(table, (file, name), f"imported with * from {origin}")
    return changed


def _checks(
    state: _State,
    path: str,
    modules: dict[str, Module],
    imported: set[str],
) -> str:
    """The cases the flow cannot vouch for; a non-empty answer: why the static rule stands."""
    for (file, name), why in sorted(state.value.items()):
        if name == "__all__":
            return f"{file}: __all__ changes ({why}): what `import *` binds cannot be followed"
    for module in modules.values():
        touched = module.file in state.whole or any(r[0] == module.file for r in state.value)
        if touched and module.getattr_hook:
            return f"{module.file} defines a module-level __getattr__: any name may reach it"
    for name in sorted(imported):
        for module in modules.values():
            if module.file == path:
                continue
            reads = {r for s in module.stmts for r in (*s.value_refs, *s.body_refs)}
            reads.update(r for refs in module.functions.values() for r in refs)
            stars = any(s.kind == "star" and s.source == path for s in module.stmts)
            if (path, name) in reads or stars:
                return (
                    f"a changed import of {name}, which {module.file} imports from {path}: "
                    "a re-exported name"
                )
    return ""


def follow(
    path: str,
    old: bytes,
    hunks: list[tuple[int, int, int, int]],
    *,
    files: Iterable[str],
    roots: tuple[str, ...],
    sys_path: tuple[str, ...] = (),
    dependents: Iterable[str],
    read: Callable[[str], bytes | None],
    outside: Callable[[str], set[str]],
    ran_at_import: Iterable[str] = (),
    runs_whole: Callable[[str], bool],
    collected: Callable[[str], dict[str, list[str]]] = lambda _: {},
    session_calls: SessionCalls | None = None,
) -> Flow:
    """The readers of what a module-level change to ``path`` binds.

    ``old``: the file at the map's commit; ``hunks``: (old start, old count, new
    start, new count) of its diff; ``sys_path``: the directories pytest adds to
    ``sys.path``; ``dependents``: the files that import it;
    ``read``: a file's current source (None: deleted); ``outside``: the functions
    of a file that ran outside every test in the session scope (at import,
    configure); ``collected``: those that ran while pytest collected one file
    or directory, with its scopes; ``ran_at_import``: functions of ``path``
    changed inside that ran at import; ``runs_whole``: a test file or conftest
    (a changed binding there runs its tests whole); ``session_calls``: what
    called the functions run in the session scope, and what they called.
    """
    project_files = set(files)
    resolver = Resolver(project_files, roots, sys_path)
    modules: dict[str, Module] = {}
    try:
        before, _ = parse_module(old, path, resolver)
        for file in sorted({path, *dependents}):
            source = read(file)
            if source is not None:
                modules[file], _ = parse_module(source, file, resolver)
    except (SyntaxError, ValueError, RecursionError) as exc:
        return Flow(
            {}, {}, f"a file does not parse ({type(exc).__name__}): the flow cannot be followed"
        )
    state = _State()
    imported: set[str] = set()
    old_ranges = [(s, s + c - 1) for s, c, _, _ in hunks if c]
    new_ranges = [(s, s + c - 1) for _, _, s, c in hunks if c]
    changed = [(s, s.line) for s in before.stmts if _touches(s, old_ranges)]
    if path in modules:
        changed += [(s, s.line) for s in modules[path].stmts if _touches(s, new_ranges)]
    # Comments and blank lines change nothing, except an encoding cookie (lines 1-2).
    current = read(path) or b""
    cookie = any(first <= 2 for first, _ in [*old_ranges, *new_ranges]) and any(
        b"coding" in b"\n".join(text.splitlines()[:2]) for text in (old, current)
    )

    def parse(file: str) -> Module | None:
        # A helper the map says a reader called: the map is data from someone
        # else, so only a file of the project is read (anything else: unknown).
        source = read(file) if file in project_files else None
        try:
            return parse_module(source, file, resolver)[0] if source is not None else None
        except (SyntaxError, ValueError, RecursionError):
            return None

    at_import = AtImport(state, modules, session_calls, parse, (path, before))
    stop = "the first two lines changed (an encoding declaration)" if cookie else ""
    stop = stop or _seed(state, path, changed, imported, at_import)
    for qualname in sorted(ran_at_import):
        top = qualname.split(".", 1)[0]
        state.mark(state.behaviour, (path, top), f"{qualname} changed and ran at import")
    stop = (
        stop
        or _propagate(state, at_import, lambda f: runs_whole(f) and not f.endswith("conftest.py"))
        or _checks(state, path, modules, imported)
    )
    if stop:
        return Flow({}, {}, stop)
    return _readers(
        state,
        modules,
        (outside, collected),
        (path, set(ran_at_import)),
        runs_whole,
        at_import=at_import,
    )


def _readers(
    state: _State,
    modules: dict[str, Module],
    ran_outside: tuple[Callable[[str], set[str]], Callable[[str], dict[str, list[str]]]],
    ran_at_import: tuple[str, set[str]],
    runs_whole: Callable[[str], bool],
    *,
    at_import: AtImport,
) -> Flow:
    """The functions reading a changed value, the code of changed definitions,
    the readers that ran while pytest collected, and the test files run whole;
    or why not (a reader ran outside every test in the session scope)."""
    path, seeds = ran_at_import
    outside, collected = ran_outside
    seed_refs = {(path, qualname.split(".", 1)[0]) for qualname in seeds}
    readers: dict[str, dict[str, str]] = {}
    whole: dict[str, str] = {}
    scoped: dict[str, dict[str, tuple[tuple[str, ...], str]]] = {}
    for module in modules.values():
        found: dict[str, str] = {}
        for qualname, refs in sorted(module.functions.items()):
            hit = state.value_hit(refs)
            if hit is not None:
                (_, name), cause = hit
                found[qualname] = f"reads {name}, which {_which(cause)}"
        for (file, name), cause in sorted(state.value.items()):
            if file != module.file or name not in module.defs:
                continue
            for qualname in module.functions:
                if qualname == name or qualname.startswith(f"{name}."):
                    found.setdefault(qualname, f"is code of {name}, which {_which(cause)}")
        # Code run outside every test (a pytest hook at collection, a function a
        # module-level statement elsewhere calls) that reads a changed name, or
        # calls a changed function, builds what no recorded test is credited with.
        # (A changed value it reads, or a changed function that ran at import it
        # calls: what the functions between read, ran outside too and is checked.)
        own_seeds = seeds if module.file == path else set()
        for qualname in sorted(outside(module.file) - own_seeds):
            used = _reads_changed(state, module.functions.get(qualname, set()), seed_refs)
            if used and not at_import.followed(module.file, qualname):
                return Flow(
                    {},
                    {},
                    f"{module.file}::{qualname} reads {used}, which the change affects, "
                    "and ran outside every test (at import or collection)",
                )
        # One that ran while pytest collected one file or directory built what
        # only that collection's tests (and the importers of what it imported)
        # share: they run whole, as for a changed function that ran there.
        for qualname, scopes in sorted(collected(module.file).items()):
            used = _reads_changed(state, module.functions.get(qualname, set()), seed_refs)
            # Called there only by statements the flow follows: what it built
            # is in their names, not in the collection's items.
            if used and qualname not in own_seeds and not at_import.followed(module.file, qualname):
                scoped.setdefault(module.file, {})[qualname] = (
                    tuple(scopes),
                    f"reads {used}, which the change affects,",
                )
        if module.file in state.calls:
            whole[module.file] = (
                f"{state.calls[module.file]}, run when it is collected: it runs whole"
            )
        elif runs_whole(module.file):
            bound = sorted(
                name
                for (file, name) in state.value
                if file == module.file and _binds_locally(module, name)
            )
            shaping = [
                name
                for name in bound
                if module.file.endswith("conftest.py") or _shapes_items(module, name)
            ]
            if shaping or module.file in state.whole:
                bound = shaping or bound
                whole[module.file] = (
                    f"{', '.join(bound) or 'its names'} changed there ({module.file} "
                    "may parametrize its tests): it runs whole"
                )
        if found:
            readers[module.file] = found
    return Flow(
        readers,
        whole,
        changed=frozenset([*state.value, *state.behaviour]),
        collected=scoped,
        items={i: why for i, why in state.items.items() if i.split("::")[0] not in state.calls},
        fixtures=frozenset(f for f in state.fixtures if f[0] not in state.calls),
    )


def _reads_changed(state: _State, refs: set[Ref], seed_refs: set[Ref]) -> str:
    """The changed name code reading ``refs`` reads (a changed value, or a
    changed function that ran at import); empty when none."""
    hit = state.value_hit(refs)
    if hit is not None:
        return hit[0][1]
    return next((name for _, name in sorted(refs & seed_refs)), "")


def _parametrized_test(stmt: Stmt) -> str:
    """A test function or class (pytest's default names) whose only decorators
    beyond the plain ones are ``pytest.mark.parametrize``: its name; else empty."""
    name = _decorated_only(stmt, lambda path: path.endswith("mark.parametrize"))
    return name if name.startswith(("test", "Test")) else ""


def _fixture(stmt: Stmt) -> str:
    """A fixture function whose only decorators beyond the plain ones are
    ``pytest.fixture``: its name; else empty."""
    return _decorated_only(stmt, lambda path: path in ("fixture", "pytest.fixture"))


def _decorated_only(stmt: Stmt, accepts: Callable[[str], bool]) -> str:
    """The name a def or class binds when each decorator beyond the plain ones is one ``accepts``."""
    if stmt.kind != "def" or len(stmt.binds) != 1 or not stmt.decorator_paths:
        return ""
    return next(iter(stmt.binds)) if all(map(accepts, stmt.decorator_paths)) else ""


def _shapes_items(module: Module, name: str) -> bool:
    """A test module's name that pytest reads as it collects, changing which
    items there are or how they run: ``pytestmark``, a ``pytest_*`` hook, a
    class whose body sets ``pytestmark``. (A decorator reading a changed name,
    a parametrize list or a fixture's params, is judged where it is read.)"""
    return (
        name == "pytestmark"
        or name.startswith("pytest_")
        or any(name in s.binds and s.marks for s in module.stmts)
    )


def _binds_locally(module: Module, name: str) -> bool:
    """Bound by the module's own code (a def, an assignment), not only imported."""
    return any(name in s.binds and s.kind not in ("import", "star") for s in module.stmts)


def _which(cause: str) -> str:
    """A cause as the tail of a reason: "which the change binds (line 3)"."""
    if cause.startswith("the change binds it"):
        return cause.replace("binds it", "binds")
    return f"changed ({cause})"
