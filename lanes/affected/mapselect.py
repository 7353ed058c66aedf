"""Selection = the recorded map, within the static safety net.

For a changed Python file the diff against the map's commit gives hunks; each
hunk lies inside one function (the innermost holding it, in the file as it was
at the map's commit) or touches module level (imports, constants,
decorators, class bodies, a new function). A function-level change selects
the tests, by pytest node id, that executed one of the changed functions. A
changed function that ran while pytest collected one file (a test module's
parametrize table, a ``@given`` strategy, a plugin's corpus file) or one
directory (its ``conftest.py``) selects that file's tests, or the
directory's, whole: the collection could produce other items; and the test
files that import what was collected (what its import built, they share). A
module-level change, or a changed function that ran in the session scope
(outside every test and every single collection: plugin configure, a shared
import), is followed by name flow (:mod:`lanes.affected.nameflow`): the tests
that executed code reading what it changed; where the flow cannot be followed,
every test that imports the file. A statically selected test file the map
never recorded runs whole; in a recorded one, the tests the map does not vouch
for (they failed, or spawned processes) run beside them, by id. A file
new since the map's commit or a map from another configuration gets the
static rule's answer, and says so.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lanes.affected.testmap import function_nodes, innermost

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from lanes.affected.nameflow import Flow
    from lanes.affected.testmap import TestMap

__all__ = ["MapVerdict", "Pick", "function_changes", "narrow", "scope_whole", "vouched_picks"]

_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)

# A hunk: (old start, old count, new start, new count), as `git diff -U0` gives it.
Hunk = tuple[int, int, int, int]


@dataclass(frozen=True)
class MapVerdict:
    """The map's answer for one changed file: changed functions and module-level
    hunks, or why it cannot answer."""

    functions: frozenset[str]
    fallback: str  # non-empty: the map cannot narrow this file, and why
    # Hunks at module level (imports, constants, decorators, class bodies, new functions).
    module_hunks: tuple[Hunk, ...] = ()
    old: bytes = b""  # the file at the map's commit

    def module_level(self) -> str:
        """Where the first module-level change is, for the reasons; empty when none."""
        if not self.module_hunks:
            return ""
        return f"a module-level change at line {self.module_hunks[0][0]}"


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, check=False, timeout=60)


def function_changes(root: Path, commit: str, path: str) -> MapVerdict:
    """Which functions of ``path`` (as of ``commit``) the working tree changes,
    and which hunks sit at module level."""
    old = _git(root, "show", f"{commit}:{path}")
    if old.returncode != 0:
        return MapVerdict(frozenset(), "new since the map's commit: the map never saw it")
    diff = _git(root, "diff", "-U0", "--no-color", commit, "--", path)
    hunks = [
        (int(a), int(b) if b else 1, int(c), int(d) if d else 1)
        for a, b, c, d in _HUNK.findall(diff.stdout)
    ]
    if diff.returncode != 0 or not hunks:
        return MapVerdict(
            frozenset(), "unchanged since the map's commit: the map was recorded with this change"
        )
    try:
        nodes = function_nodes(old.stdout, path)
    except (SyntaxError, ValueError):
        return MapVerdict(frozenset(), "did not parse at the map's commit")
    changed: set[str] = set()
    module_hunks: list[Hunk] = []
    for hunk in hunks:
        start, count = hunk[0], hunk[1]
        # A pure insertion (count 0) sits after line `start`: inside a function
        # only if the lines on both sides are.
        first, last = (start, start + 1) if count == 0 else (start, start + count - 1)
        holder = innermost(nodes, first, last)
        # A hunk on a decorator or the signature changes what runs at import:
        # module level. A line inserted right after the signature (`start` is
        # its last line) opens the body: the function changed.
        opens_body = count == 0 and holder is not None and start == holder.body - 1
        # (A one-line function's body shares the `def` line: module level too.)
        if holder is None or (not opens_body and (first < holder.body or first <= holder.start)):
            module_hunks.append(hunk)
        else:
            changed.add(holder.qualname)
    return MapVerdict(frozenset(changed), "", tuple(module_hunks), old.stdout)


@dataclass(frozen=True)
class Pick:
    """One selection the map made or kept: a whole test file (``node`` None) or one test of it."""

    file: str
    rule: str
    why: str
    node: str | None = None


def vouched_picks(
    test_map: TestMap,
    hits: dict[str, tuple[str, str]],
    static: list[str],
    rule: str,
    *,
    data: bool = False,
) -> list[Pick]:
    """The recorded tests in ``hits`` (test id -> (file, why)), by id, within the static net.

    A statically selected file the map never recorded runs whole; in a
    recorded one, the tests the map does not vouch for (they failed, or spawned
    a process it cannot see into; for a changed data file (``data``), also
    those that started a program that may have read it unseen) run beside the
    hits, by id.
    """
    by_file: dict[str, list[tuple[str, str]]] = {}
    for node, (file, why) in hits.items():
        by_file.setdefault(file, []).append((node, why))
    recorded = test_map.recorded_files()
    picks: list[Pick] = []
    for test in sorted({*static, *by_file}):
        if test not in recorded:
            if test in static:
                picks.append(
                    Pick(test, rule, "static: not in the map (no test of it was recorded)")
                )
            continue
        picks.extend(Pick(test, "map", why, node) for node, why in sorted(by_file.get(test, ())))
        if test in static:
            picks.extend(
                Pick(test, rule, f"static, the map does not vouch: {why}", node)
                for node, why in sorted(test_map.unvouched_tests(test, data=data).items())
                if node not in hits
            )
    return picks


def narrow(
    test_map: TestMap,
    path: str,
    verdict: MapVerdict,
    static: list[str],
    names: Callable[[set[str]], Flow] | None = None,
    *,
    importers: Callable[[str], list[str]] | None = None,
) -> tuple[list[Pick], str]:
    """The map within the static selection, for one changed Python file, and a
    note saying how it chose. ``names(ran_at_import)``: the name flow
    (:mod:`lanes.affected.nameflow`) of the file's module-level changes;
    ``importers(file)``: the test files importing ``file``, directly or not."""
    if verdict.fallback:
        return [Pick(t, "import graph", f"static: {verdict.fallback}") for t in static], (
            verdict.fallback
        )
    at_import = sorted(verdict.functions & test_map.session_outside(path))
    hits: dict[str, tuple[str, str]] = {}
    # What ran only while pytest collected a file or directory shapes its tests alone.
    collected = test_map.collected_by(path, set(verdict.functions) - set(at_import))
    importers_of = importers or (lambda _: [])
    whole = _collected_whole(test_map, path, collected, importers_of)
    note = "changed " + ", ".join(sorted(verdict.functions)) if verdict.functions else ""
    if collected:
        scopes = sorted({scope for found in collected.values() for scope in found})
        note += "; ran while pytest collected " + _shown(scopes)
    if verdict.module_hunks or at_import:
        # What ran at import or a module-level statement changed: what it built,
        # the code reading those names uses.
        flow = names(set(at_import)) if names is not None else None
        if flow is None or flow.fallback:
            why = _static_reason(verdict, at_import, flow.fallback if flow is not None else "")
            picks = [Pick(t, "map", w) for t, w in sorted(whole.items()) if t not in static]
            return [*picks, *(Pick(t, "import graph", f"static: {why}") for t in static)], why
        for file, found in sorted(flow.readers.items()):
            for node, (test_file, qualname) in test_map.executed(file, set(found)).items():
                why = f"{file}::{qualname} {found[qualname]}"
                if (file, qualname) in flow.fixtures:
                    # Its params are in the ids: the test runs by its own id.
                    hits[node.split("[", 1)[0]] = (test_file, why)
                else:
                    hits.setdefault(node, (test_file, why))
        for file, found_scoped in sorted(flow.collected.items()):
            ran = {qualname: list(scopes) for qualname, (scopes, _) in found_scoped.items()}
            reads = {qualname: why for qualname, (_, why) in found_scoped.items()}
            for test, why in _collected_whole(test_map, file, ran, importers_of, reads).items():
                whole.setdefault(test, why)
        for test, why in sorted(flow.items.items()):
            # All its items, by the test's own id: their ids may have changed.
            hits[test] = (test.split("::", 1)[0], why)
        whole = {**flow.whole, **whole}
        changed = sorted({n for (f, n) in flow.changed if f == path})
        flowed = f"module level: followed the names it changes ({_shown(changed) or 'none'})"
        note = f"{note}; {flowed}" if note else flowed
    executed = test_map.executed(path, set(verdict.functions))
    hits.update(
        {node: (file, f"executed {path}::{name}") for node, (file, name) in executed.items()}
    )
    # An item of a test that runs by its own id (a parametrized test, a class) runs with it.
    hits = {node: hit for node, hit in hits.items() if not _runs_with_its_test(node, hits)}
    # A file run whole says so first: its reason explains the whole run.
    picks = [Pick(test, "map", why) for test, why in sorted(whole.items())]
    picks.extend(vouched_picks(test_map, hits, static, "import graph"))
    return picks, note


def _runs_with_its_test(node: str, hits: dict[str, tuple[str, str]]) -> bool:
    """``node`` (``f.py::C::t[1]``) is an item of another selected id: its
    test without the parameters (``f.py::C::t``), or a class holding it (``f.py::C``)."""
    parts = node.split("[", 1)[0].split("::")
    owners = {"::".join(parts[:count]) for count in range(2, len(parts) + 1)}
    return bool((owners - {node}) & hits.keys())


def _collected_whole(
    test_map: TestMap,
    path: str,
    collected: dict[str, list[str]],
    importers: Callable[[str], list[str]],
    reads: dict[str, str] | None = None,
) -> dict[str, str]:
    """Test file -> why it runs whole: a changed function (or one that ``reads``
    a changed name, qualname -> which) ran while pytest collected it, or while
    pytest collected a file it imports."""
    whole: dict[str, str] = {}
    for qualname, scopes in sorted(collected.items()):
        because = (reads or {}).get(qualname, "")
        for scope in scopes:
            ran = f"{path}::{qualname} {because + ' ' if because else ''}ran"
            for test, why in scope_whole(test_map, scope, ran, importers).items():
                whole.setdefault(test, why)
    return whole


def scope_whole(
    test_map: TestMap, scope: str, ran: str, importers: Callable[[str], list[str]]
) -> dict[str, str]:
    """Test file -> why it runs whole, for what ``ran`` ("x ran", "x was read")
    while pytest collected ``scope``: the scope's tests, and the importers of
    its module, which share what that import built."""
    directory = scope.endswith("/")
    where = f"{scope} (its conftest.py or __init__.py): every test under it" if directory else scope
    ran = f"{ran} while pytest collected {where}"
    whole = dict.fromkeys(
        test_map.scope_tests(scope),
        f"{ran} (the collection could produce other items): it runs whole",
    )
    own = [f"{scope}conftest.py", f"{scope}__init__.py"] if directory else [scope]
    for file in own:
        for test in importers(file):
            whole.setdefault(test, f"{ran}, and it imports {file}: it runs whole")
    return whole


def _shown(names: list[str]) -> str:
    """At most five names, and how many more."""
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _static_reason(verdict: MapVerdict, at_import: list[str], stop: str) -> str:
    """Why a module-level change selects every importer: the flow's stop, said whole."""
    where = (
        f"{', '.join(at_import)} ran outside every test when the map was recorded "
        "(at import or collection)"
        if at_import
        else verdict.module_level()
        + " (imports, constants, decorators, class bodies, a new or renamed function)"
    )
    if stop:
        return f"{where}, and the name flow stops: {stop}; every test that imports it"
    return f"{where}: every test that imports it"
