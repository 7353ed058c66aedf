"""The recorded map: per test, the functions it executed and the data files it read.

Built from one recording run (:mod:`lanes.affected.recorder`), keyed by the
commit it was recorded on and a digest of the configuration that decides what
runs (the pytest config file, the Python minor version). Small: the nodes
(file, qualified name, first line, last line) are one shared list and each
test stores indices into it. Read back through :mod:`lanes._jsondoc` (size
cap, nesting limit, typed fields), like every lanekit document.

A node is a function or method, its range starting at its first decorator (the
line a code object reports); ``<module>`` stands for the module's own code and
class bodies (run on import). A test the map does not *vouch* for — it did not
pass, or it spawned a process that left no record of what it executed
(:mod:`lanes.affected.child`: every Python process a recorded test starts
records itself, and what it executed is the test's) — is kept by the static
graph, never dropped by the map.

The map also lists the *computed-import sites* the recording watched
(:mod:`lanes.affected.computed`: ``import_module(name)`` with a name built at
run time) and, per test and for the code run outside every test, the sites
that executed, and what each imported (where the recording could see it): a
site that never ran in the recording cannot have imported anything for a
test that executes no changed code (:mod:`lanes.affected.computednet`).
"""

from __future__ import annotations

import ast
import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final

from lanes._atomic import write_atomic
from lanes._jsondoc import failing_with, load_object
from lanes.affected.mapdoc import (
    MAP_FILE_NAME,
    MAP_HINT,
    MAP_KIND,
    MAP_VERSION,
    MAX_MAP_BYTES,
    MAX_TEST_MS,
    MapTest,
    TestMapDocument,
    validate_map,
)
from lanes.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from lanes.affected.discover import PytestRules
    from lanes.affected.mapdoc import CallerEdge

# A session-scope caller, as the name flow reads it: ("function", file,
# qualname), ("line", file, line) of module-level code, or ELSEWHERE.
Caller = tuple[str, str, str] | tuple[str, str, int] | tuple[str]
ELSEWHERE: Final[Caller] = ("elsewhere",)

__all__ = [
    "ELSEWHERE",
    "MAP_FILE_NAME",
    "MAP_KIND",
    "MAP_VERSION",
    "Caller",
    "MapTest",
    "TestMap",
    "TestMapDocument",
    "build_map",
    "config_digest",
    "function_nodes",
    "read_map",
]

MODULE: Final = "<module>"


@dataclass(frozen=True)
class Node:
    file: str
    qualname: str
    start: int
    end: int
    # The first line of the body: lines from ``start`` to here are decorators and
    # the signature, which run when the module is imported, not when it is called.
    body: int = 0


def function_nodes(source: bytes, path: str) -> list[Node]:
    """Every function and method of a file, innermost last, with decorator-inclusive ranges."""
    tree = ast.parse(source, filename=path)
    found: list[Node] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = f"{prefix}{child.name}"
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                end = child.end_lineno or child.lineno
                found.append(Node(path, qualname, start, end, child.body[0].lineno))
                walk(child, f"{qualname}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(tree, "")
    return found


def innermost(nodes: list[Node], first: int, last: int) -> Node | None:
    """The innermost function holding lines ``first..last`` entirely, if any."""
    holding = [n for n in nodes if n.start <= first and last <= n.end]
    return min(holding, key=lambda n: n.end - n.start) if holding else None


def config_digest(root: Path, rules: PytestRules) -> str:
    """What decides which code a test executes besides the code: pytest's config, Python's version."""
    digest = hashlib.sha256(f"python {sys.version_info[0]}.{sys.version_info[1]}\n".encode())
    for name in (rules.source, "conftest.py"):
        try:
            digest.update(name.encode() + b"\0" + (root / name).read_bytes())
        except OSError:
            digest.update(name.encode() + b"\0(absent)")
    return digest.hexdigest()[:16]


def build_map(raw_path: Path, root: Path, commit: str, digest: str) -> TestMapDocument:
    """The map from a recorder's raw output: code objects resolved to their functions."""
    raw = json.loads(raw_path.read_text(encoding="utf-8"))
    per_file: dict[str, list[Node]] = {}
    index: dict[tuple[str, str, int, int], int] = {}
    nodes: list[tuple[str, str, int, int]] = []
    data_index: dict[str, int] = {}
    tests: list[MapTest] = []

    def node_id(node: tuple[str, str, int, int]) -> int:
        if node not in index:
            index[node] = len(nodes)
            nodes.append(node)
        return index[node]

    def resolve(code: list[list[Any]]) -> set[int]:
        ids: set[int] = set()
        for file, first in code:
            if file not in per_file:
                try:
                    per_file[file] = function_nodes((root / file).read_bytes(), file)
                except (OSError, SyntaxError, ValueError):
                    per_file[file] = []
            holder = innermost(per_file[file], first, first)
            if holder is None:
                ids.add(node_id((file, MODULE, 0, 0)))
            else:
                ids.add(node_id((file, holder.qualname, holder.start, holder.end)))
        return ids

    sites: list[tuple[str, int]] = [(str(f), int(line)) for f, line in raw.get("sites", [])]
    site_index = {site: i for i, site in enumerate(sites)}

    def ran_in_child(child_code: list[list[Any]]) -> set[int]:
        """The sites a test's child processes may have run: those inside a
        function (or the module code) they executed. Children are not line
        traced, so a call they made to the function holding a site counts."""
        executed = {nodes[i] for i in resolve(child_code)}
        found: set[int] = set()
        for i, (file, line) in enumerate(sites):
            if any(
                node[0] == file and (node[1] == MODULE or node[2] <= line <= node[3])
                for node in executed
            ):
                found.add(i)
        return found

    raw_imports = raw.get("site_imports") or [None] * len(sites)
    imports: list[list[str] | None] = [
        None if files is None else [str(f) for f in files] for files in raw_imports
    ]
    for test in raw["tests"]:
        ids = resolve(test["code"])
        data = sorted({data_index.setdefault(p, len(data_index)) for p in test["opened"]})
        entry: MapTest = {
            "id": test["nodeid"],
            "file": test["file"],
            "nodes": sorted(ids),
            "data": data,
        }
        ran = {
            site_index[(f, line)] for f, line in test.get("sites", []) if (f, line) in site_index
        }
        if test.get("child_code"):
            in_child = ran_in_child(test["child_code"])
            ran |= in_child
            for i in in_child:
                imports[i] = None  # a child's imports are not seen
        if ran:
            entry["sites"] = sorted(ran)
        if "seconds" in test:
            entry["ms"] = min(MAX_TEST_MS, max(0, round(float(test["seconds"]) * 1000)))
        _vouch(entry, test)
        tests.append(entry)
    return {
        "kind": MAP_KIND,
        "version": MAP_VERSION,
        "commit": commit,
        "config_digest": digest,
        "python": str(raw.get("python", "")),
        "hypothesis_seed": raw.get("hypothesis_seed"),
        "nodes": nodes,
        "data": sorted(data_index, key=data_index.__getitem__),
        "tests": tests,
        "outside": sorted(resolve(raw.get("outside", []))),
        "collected": {
            scope: sorted(resolve(code)) for scope, code in sorted(raw["collected"].items())
        },
        "sites": sites,
        "outside_sites": sorted(
            {site_index[(f, n)] for f, n in raw.get("outside_sites", []) if (f, n) in site_index}
        ),
        "site_imports": imports,
        "outside_callers": _callers(raw.get("outside_callers"), resolve),
        "data_outside": sorted(
            {(str(f), str(scope)) for f, scope in raw.get("opened_outside", [])}
        ),
    }


def _callers(
    raw: list[list[Any]] | None, resolve: Callable[[list[list[Any]]], set[int]]
) -> list[CallerEdge] | None:
    """[callee node, caller, scope] per call outside every test: the caller a
    node, a [file, line] of module-level code, or None (not the project's code)."""
    if raw is None:
        return None
    edges: set[CallerEdge] = set()
    for callee, caller, scope in raw:
        for target in resolve([callee]):
            if caller is None:
                edges.add((target, None, scope))
            elif caller[0] == "line":
                edges.add((target, (str(caller[1]), int(caller[2])), scope))
            else:
                edges.update((target, source, scope) for source in resolve([caller]))
    return sorted(edges, key=repr)


def _vouch(entry: MapTest, test: dict[str, Any]) -> None:
    """Say on ``entry`` what the map cannot vouch for in the raw ``test``, and why."""
    # A skip (or an xfail) repeats unless a change reaches what ran before
    # it, which the map sees; a failure repeats whatever changed.
    if test["outcome"] not in ("passed", "skipped"):
        entry["unvouched"] = f"it {test['outcome']} when the map was recorded"
    elif test.get("generated") == "seeded":
        # Drawn with a fixed seed: a run executing the same code draws the
        # same examples, so unless a change reaches what it executed it
        # passes again (with that seed), as any other test does.
        entry["seeded"] = True
    elif test.get("generated"):
        # Its examples are drawn anew each run: what one run executed is a
        # sample of what the next may (a recall run missed two such tests).
        entry["unvouched"] = (
            "a Hypothesis test: the examples it draws, and so the code it "
            "executes, change from run to run"
        )
    elif test["unrecorded"]:
        count = int(test["unrecorded"])
        started = ", ".join(test.get("started", ()))
        entry["unvouched"] = (
            f"{count} process{'es' if count > 1 else ''} it started (or its children "
            f"started{': ' + started if started else ''}) left no record of what ran "
            "(a launcher, run with -E, -I or -S, killed before it could record, or still "
            "running when the test ended)"
        )
    if test.get("foreign") and "unvouched" not in entry:
        entry["unvouched_data"] = (
            f"it started {', '.join(test['foreign'])}, not Python: the recording "
            "cannot see which files it read"
        )


def write_map(path: Path, document: TestMapDocument) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(document, separators=(",", ":")) + "\n")


@dataclass
class TestMap:
    """A validated map: what each recorded test (by pytest node id) executed and read."""

    path: Path
    document: TestMapDocument

    @property
    def commit(self) -> str:
        return self.document["commit"]

    def unvouched(self) -> dict[str, str]:
        """Test file -> why the map does not vouch for it (one test of it is enough)."""
        found: dict[str, str] = {}
        for test in self.document["tests"]:
            if "unvouched" in test:
                found.setdefault(test["file"], f"{test['id']}: {test['unvouched']}")
        return found

    def vouches(self, test_file: str) -> bool:
        """Every test of the file was recorded, passed, and ran in this process."""
        return test_file in self.recorded_files() and test_file not in self.unvouched()

    def recorded_files(self) -> set[str]:
        return {test["file"] for test in self.document["tests"]}

    def outside(self, file: str) -> set[str]:
        """The functions of ``file`` that ran outside every test (at import, collection), in any scope."""
        indices = {*self.document["outside"]}
        for scoped in self.document["collected"].values():
            indices.update(scoped)
        nodes = self.document["nodes"]
        return {nodes[i][1] for i in indices if nodes[i][0] == file}

    def session_outside(self, file: str) -> set[str]:
        """The functions of ``file`` that ran outside every test in the session
        scope (plugin configure, the first conftests, a shared import)."""
        nodes = self.document["nodes"]
        return {nodes[i][1] for i in self.document["outside"] if nodes[i][0] == file}

    @cached_property
    def _calls(
        self,
    ) -> tuple[
        dict[tuple[str, str], list[Caller]],
        dict[tuple[str, str, str], set[tuple[str, str]]],
        dict[str, list[tuple[int, tuple[str, str, str]]]],
    ]:
        """The recorded calls indexed once (a plan asks per reader and per
        decorated statement): by callee, by (caller, scope), by the calling file."""
        nodes = self.document["nodes"]
        callers: dict[tuple[str, str], list[Caller]] = {}
        callees: dict[tuple[str, str, str], set[tuple[str, str]]] = {}
        by_line: dict[str, list[tuple[int, tuple[str, str, str]]]] = {}
        for callee, caller, scope in self.document["outside_callers"] or ():
            target = (nodes[callee][0], nodes[callee][1])
            if caller is None:
                callers.setdefault(target, []).append(ELSEWHERE)
            elif isinstance(caller, tuple):
                callers.setdefault(target, []).append(("line", caller[0], caller[1]))
                by_line.setdefault(caller[0], []).append((caller[1], (*target, scope)))
            else:
                source = (nodes[caller][0], nodes[caller][1])
                callers.setdefault(target, []).append(("function", *source))
                callees.setdefault((*source, scope), set()).add(target)
        return callers, callees, by_line

    def session_callers(self, file: str, qualname: str) -> list[Caller] | None:
        """What called ``file::qualname`` each time it ran outside every test
        (in any scope): a project function (file, qualname), module-level code
        (file, line), or ELSEWHERE; None when the map recorded no callers."""
        if self.document["outside_callers"] is None:
            return None
        return self._calls[0].get((file, qualname), [])

    def session_callees(
        self, file: str, qualname: str, scope: str | None = None
    ) -> set[tuple[str, str]]:
        """The project functions ``file::qualname`` called outside every test
        (in ``scope`` only: "" the session's; None: in any)."""
        callees = self._calls[1]
        if scope is not None:
            return callees.get((file, qualname, scope), set())
        return {
            target
            for (caller_file, caller, _), found in callees.items()
            if (caller_file, caller) == (file, qualname)
            for target in found
        }

    def lines_callees(self, file: str, first: int, last: int) -> set[tuple[str, str, str]]:
        """The project functions module-level code of ``file`` (its lines
        ``first``..``last``: a statement) called, each with the scope it ran in."""
        return {called for line, called in self._calls[2].get(file, ()) if first <= line <= last}

    def collected_by(self, file: str, qualnames: set[str] | None = None) -> dict[str, list[str]]:
        """Qualname of ``qualnames`` (None: any of ``file``) -> the collection
        scopes that executed it (files, "dir/")."""
        nodes = self.document["nodes"]
        found: dict[str, list[str]] = {}
        for scope, indices in sorted(self.document["collected"].items()):
            for i in indices:
                if nodes[i][0] == file and (qualnames is None or nodes[i][1] in qualnames):
                    found.setdefault(nodes[i][1], []).append(scope)
        return found

    def scope_tests(self, scope: str) -> list[str]:
        """The recorded test files a collection scope can shape: the file, or every one under the directory."""
        if scope.endswith("/"):
            return sorted(f for f in self.recorded_files() if f.startswith(scope))
        return [scope] if scope in self.recorded_files() else []

    def unvouched_tests(self, test_file: str, *, data: bool = False) -> dict[str, str]:
        """Test id -> why the map does not vouch for it, for the tests of one file;
        ``data``: for a change to a data file, which a program a test started
        that is not Python may have read unseen."""
        found: dict[str, str] = {}
        for test in self.document["tests"]:
            if test["file"] != test_file:
                continue
            why = test.get("unvouched") or (test.get("unvouched_data") if data else None)
            if why:
                found[test["id"]] = why
        return found

    def executed(self, file: str, qualnames: set[str]) -> dict[str, tuple[str, str]]:
        """Test id -> (its test file, the first of ``qualnames`` of ``file`` it executed)."""
        nodes = self.document["nodes"]
        wanted = {
            i: nodes[i][1]
            for i in range(len(nodes))
            if nodes[i][0] == file and nodes[i][1] in qualnames
        }
        found: dict[str, tuple[str, str]] = {}
        for test in self.document["tests"]:
            hit = next((wanted[i] for i in test["nodes"] if i in wanted), None)
            if hit is not None:
                found[test["id"]] = (test["file"], hit)
        return found

    def executed_in(self, file: str) -> dict[str, list[str]]:
        """Test id -> the functions of ``file`` it executed (``<module>``: its module code)."""
        nodes = self.document["nodes"]
        wanted = {i for i in range(len(nodes)) if nodes[i][0] == file}
        found: dict[str, list[str]] = {}
        for test in self.document["tests"]:
            names = sorted({nodes[i][1] for i in test["nodes"] if i in wanted})
            if names:
                found[test["id"]] = names
        return found

    def site_runs(self, file: str, line: int) -> tuple[bool, dict[str, str]] | None:
        """For the computed import at ``file:line``: (it ran outside every test,
        test id -> test file of the tests that ran it); None when the recording
        did not watch it."""
        try:
            index = self.document["sites"].index((file, line))
        except ValueError:
            return None
        tests = {
            test["id"]: test["file"]
            for test in self.document["tests"]
            if index in test.get("sites", ())
        }
        return index in self.document["outside_sites"], tests

    def site_imports(self, file: str, line: int) -> list[str] | None:
        """The project files the computed import at ``file:line`` imported
        (ran, or got already loaded); None when unknown or not watched."""
        try:
            index = self.document["sites"].index((file, line))
        except ValueError:
            return None
        return self.document["site_imports"][index]

    def read_outside(self, data_file: str) -> list[str] | None:
        """The scopes that opened ``data_file`` outside every test ("": the
        session's, else a collection scope); None: the map does not know (an
        older map recorded no reads outside tests)."""
        outside = self.document["data_outside"]
        if outside is None:
            return None
        return sorted({scope for file, scope in outside if file == data_file})

    def readers(self, data_file: str) -> dict[str, str]:
        """Test id -> its test file, for the tests that opened ``data_file``."""
        try:
            index = self.document["data"].index(data_file)
        except ValueError:
            return {}
        return {
            test["id"]: test["file"] for test in self.document["tests"] if index in test["data"]
        }


def read_map(path: Path) -> TestMap | None:
    """The map at ``path``, validated; None when there is none."""
    fail = failing_with(UsageError, MAP_HINT)
    document = load_object(
        path, what=f"the affected map {str(path)!r}", fail=fail, max_bytes=MAX_MAP_BYTES
    )
    if document is None:
        return None
    return TestMap(path, validate_map(path, document))


def head_commit(root: Path) -> str | None:
    proc = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=False
    )
    return proc.stdout.strip() if proc.returncode == 0 else None
