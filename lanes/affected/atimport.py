"""What the recording saw run at import, as the name flow reads it.

Outside every test, in the session scope, the project's code runs at
import: module-level statements call functions, decorators build classes.
The recording keeps every such call with its caller (``outside_callers``),
and two of the flow's stops become answers:

- a **reader run at import** (a function reading a changed name, called as
  a module imported) is followed, not a stop, when every call of it came
  from a module-level statement the flow follows, or from a function that
  reads a changed name and is followed in turn, and neither it nor what it
  called there writes what outlives the call (:mod:`lanes.affected.writes`);
- a **decorated def or class** is a plain binding, not a registration, when
  each decorator is a function of the project's that ran when the map was
  recorded and nothing it called then writes what outlives the call.

A caller the map cannot name (pytest calling a hook, a library, generated
code), a map that recorded no callers, or a decorator from a library: the
flow stops as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable

    from lanes.affected.nameflow import _State
    from lanes.affected.namescan import Module, Stmt
    from lanes.affected.testmap import Caller

__all__ = ["AtImport", "SessionCalls"]


class SessionCalls(Protocol):
    """The calls the recording saw in the session scope (a TestMap answers)."""

    def session_callers(self, file: str, qualname: str) -> list[Caller] | None:
        """What called the function each time; None: no caller was recorded."""

    def session_callees(
        self, file: str, qualname: str, scope: str | None = None
    ) -> set[tuple[str, str]]:
        """The project functions it called (in one scope, "" the session's; None: any)."""

    def lines_callees(self, file: str, first: int, last: int) -> set[tuple[str, str, str]]:
        """The project functions module-level code on those lines called, with the scope."""


class AtImport:
    """The flow's questions about what ran at import, answered from the
    recorded calls: is a reader run there followed (:meth:`followed`), does
    a decorated statement register what it defines (:meth:`registers`)."""

    def __init__(
        self,
        state: _State,
        modules: dict[str, Module],
        calls: SessionCalls | None,
        parse: Callable[[str], Module | None],
        changed: tuple[str, Module],
    ) -> None:
        self.state, self.modules, self.calls, self.parse = state, modules, calls, parse
        # The changed file, and its module at the map's commit (the recorded lines).
        self.path, self.old = changed
        # The helpers a reader called, in files the flow did not read.
        self.helpers: dict[str, Module | None] = {}

    def registers(self, file: str, stmt: Stmt) -> bool:
        """A decorated def or class whose decorators may register it elsewhere:
        not when each is a function of the project's, each ran when the map
        was recorded, and nothing they called then writes what outlives the
        call (a registry, a global). What the class body computes is the
        statement's value, as for any module-level statement."""
        if not stmt.decorated:
            return False
        recorded: Stmt | None = stmt
        if file == self.path:
            # The map's lines are those of the file at its commit.
            recorded = next(
                (s for s in self.old.stmts if s.binds == stmt.binds and s.decorated), None
            )
        if self.calls is None or recorded is None:
            return True
        if not all(self._project_function(file, path, 4) for path in stmt.decorator_paths):
            return True
        called: set[tuple[str, str, str]] = set()
        for first, last in recorded.decorator_lines:
            found = self.calls.lines_callees(file, first, last)
            if not found:
                return True  # it did not run outside every test: nothing recorded
            called |= found
        # What each decorator called where it ran (at import, or while pytest
        # collected the file), not what it calls for other statements elsewhere.
        return any(self._writes(f, q, set(), scope) for f, q, scope in sorted(called))

    def _project_function(self, file: str, path: str, hops: int) -> bool:
        """``path`` (``attrs``, ``attr.s``) in ``file`` names a function the
        project defines: there, or through at most ``hops`` imports, module
        names (``attr`` of ``import attr``) and aliases (``s = attrs``)."""
        module = self.module(file)
        if module is None or hops < 0 or not path:
            return False
        name, _, rest = path.partition(".")
        if rest:
            found = module.module_files.get(name)
            return found is not None and self._project_function(found, rest, hops - 1)
        if name in module.functions:
            return True
        # The module-level statement that binds it last: what it holds at import's end.
        stmt = next((s for s in reversed(module.stmts) if name in s.binds), None)
        source = stmt.sources.get(name) if stmt is not None and stmt.kind == "import" else None
        if source is not None:
            return self._project_function(source[0], source[1], hops - 1)
        if stmt is not None and stmt.alias:
            return self._project_function(file, stmt.alias, hops - 1)
        return False

    def module(self, file: str) -> Module | None:
        """A project file parsed: one the flow read, else read now (a helper a reader called)."""
        if file in self.modules:
            return self.modules[file]
        if file not in self.helpers:
            self.helpers[file] = self.parse(file)
        return self.helpers[file]

    def followed(self, file: str, qualname: str) -> bool:
        """What ``file::qualname``, run in the session scope, computed reaches
        only code the flow follows: every call of it came from a module-level
        statement the flow follows (it reads a changed name, and binds what it
        builds), or from a function that reads one and is followed in turn;
        and neither it nor what it called there writes what outlives the call."""
        return self._followed(file, qualname, frozenset())

    def _followed(self, file: str, qualname: str, visiting: frozenset[tuple[str, str]]) -> bool:
        if self.calls is None:
            return False
        callers = self.calls.session_callers(file, qualname)
        if not callers or self._writes(file, qualname, set(), None):
            return False
        visiting = visiting | {(file, qualname)}
        for kind, where, what in (c for c in callers if len(c) == 3):
            if kind == "line" and isinstance(what, int):
                if not self._statement_follows(where, what):
                    return False
            elif kind == "function" and isinstance(what, str):
                # A function the flow read, calling it by a changed name.
                module = self.modules.get(where)
                refs = module.functions.get(what) if module is not None else None
                if refs is None or self.state.any_hit(refs) is None:
                    return False
                if (where, what) not in visiting and not self._followed(where, what, visiting):
                    return False
        return all(len(c) == 3 for c in callers)

    def _statement_follows(self, file: str, line: int) -> bool:
        """The module-level statement at ``file:line`` (as recorded) reads a changed name as it runs."""
        module = self.old if file == self.path else self.modules.get(file)
        stmts = module.stmts if module is not None else []
        stmt = next((s for s in stmts if s.line <= line <= s.end), None)
        if stmt is not None and file == self.path and file in self.modules:
            # The changed file: the same statement as it reads now.
            stmt = next((s for s in self.modules[file].stmts if s.binds == stmt.binds), stmt)
        return stmt is not None and (
            self.state.any_hit(stmt.value_refs) is not None
            or self.state.value_hit(stmt.base_refs) is not None
        )

    def _writes(
        self, file: str, qualname: str, seen: set[tuple[str, str]], scope: str | None
    ) -> bool:
        """It, or a project function it called outside every test (in
        ``scope``; None: in any), writes what outlives the call."""
        if (file, qualname) in seen:
            return False
        seen.add((file, qualname))
        module = self.module(file)
        if module is None or qualname in module.writers:
            return True  # a file that does not parse: its writes are unknown
        callees = sorted(self.calls.session_callees(file, qualname, scope)) if self.calls else []
        return any(self._writes(f, q, seen, scope) for f, q in callees)
