"""The plan: which tests and checks a set of changed files needs, and why each.

Every changed path goes through the rules below, first match wins, and each
selection carries the rule and the path behind it, so an agent (or a
reviewer) can check the reasoning instead of trusting it:

1. **full** — packaging and tool configuration, CI workflows, the root
   ``conftest.py``, paths listed in ``full``: anything could depend on them,
   so every suite and every gate runs.
2. **test file** — a changed test selects itself; what a test file is, is
   pytest's collection rules (:mod:`lanes.affected.discover`), doctest files
   (``--doctest-glob``) included.
3. **quiet** — prose and licences (``quiet``) outside every test directory:
   no test. Under a test directory such a file is **test data**: the tests of
   that directory are selected, since nothing proves none reads it.
4. **conftest** — a ``conftest.py`` below the root selects every test under
   its directory (pytest applies it to exactly those).
5. **owners** — the ownership table maps data files and assets to tests.
6. **import graph** — a changed Python module selects every test that imports
   it directly or transitively (and every test under a conftest that does),
   plus the tests that reach a *computed import* that could load it
   (:mod:`lanes.affected.computed`).

With a recorded map (:mod:`lanes.affected.mapselect`), a change inside
functions, or to a data file the recording saw read, selects *tests*, by
pytest node id: the ones that executed the function or read the file. Every
static fallback (a module-level change, a file the map never saw, a test the
map cannot vouch for, a computed import) selects whole files, as above.
7. **unknown** — anything else fails open: the full set, and the plan says why.

Gates (lint, type check) fire for their input patterns, whatever else the
plan selects: they are cheap compared to being skipped by mistake.
"""

from __future__ import annotations

import fnmatch
import shlex
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from lanes.affected.computed import ComputedImport, computed_imports
from lanes.affected.discover import PytestRules, read_rules
from lanes.affected.graph import ImportGraph, build_graph, module_name
from lanes.affected.mapselect import Pick, function_changes, narrow, vouched_picks
from lanes.affected.settings import Gate

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.affected.changes import Changes
    from lanes.affected.testmap import TestMap
    from lanes.config import Config
    from lanes.payloads.affected import (
        AffectedBlindSpot,
        AffectedCounts,
        AffectedPlan,
        AffectedReason,
        AffectedSuite,
        AffectedTest,
    )

__all__ = [
    "FULL_PATTERNS",
    "Plan",
    "Project",
    "Selection",
    "SuiteRun",
    "graph_tests",
    "import_chains",
    "make_plan",
    "matches",
    "runs_xdist",
]

# Changes to these can alter any test's outcome or the way tests are run.
FULL_PATTERNS: tuple[tuple[str, str], ...] = (
    ("pyproject.toml", "packaging and tool configuration"),
    ("setup.py", "packaging"),
    ("setup.cfg", "packaging and tool configuration"),
    ("tox.ini", "test environment configuration"),
    ("noxfile.py", "test session configuration"),
    ("pytest.ini", "pytest configuration"),
    ("conftest.py", "the root conftest.py applies to every test"),
    ("requirements*.txt", "dependencies"),
    ("requirements/**", "dependencies"),
    ("constraints*.txt", "dependencies"),
    ("uv.lock", "dependencies"),
    ("poetry.lock", "dependencies"),
    ("Makefile", "build configuration"),
    (".github/**", "CI configuration"),
    (".ci/**", "CI configuration"),
    ("lanes/affected/**", "the selector's own rules changed"),
)


def matches(path: str, pattern: str) -> bool:
    """A pattern with a slash matches the whole path (``**`` spans directories); without, the basename."""
    if "/" in pattern:
        return fnmatch.fnmatchcase(path, pattern.replace("**", "*"))
    return fnmatch.fnmatchcase(PurePosixPath(path).name, pattern)


@dataclass(frozen=True)
class Reason:
    rule: str
    changed: str
    detail: str = ""

    def to_dict(self) -> AffectedReason:
        return {"rule": self.rule, "changed": self.changed, "detail": self.detail}


@dataclass
class Selection:
    """What one changed path selected."""

    path: str
    change: str
    rule: str
    detail: str
    tests: list[str] = field(default_factory=list)


@dataclass
class SuiteRun:
    name: str
    command: list[str]
    files: list[str]
    full: bool
    # The test ids the command names instead of their files (a file narrowed by the map).
    nodes: list[str] = field(default_factory=list)

    def to_dict(self) -> AffectedSuite:
        entry: AffectedSuite = {
            "name": self.name,
            "command": self.command,
            "files": self.files,
            "full": self.full,
        }
        if self.nodes:
            entry["nodes"] = self.nodes
        return entry


@dataclass
class Plan:
    base: str
    base_commit: str | None
    selections: list[Selection]
    tests: dict[str, list[Reason]]
    full_reasons: list[Reason]
    suites: list[SuiteRun]
    gates: dict[str, tuple[Gate, list[Reason]]]
    blind_spots: list[AffectedBlindSpot]
    total_tests: int
    map_state: str = ""
    # Test files the map narrowed to some of their tests: file -> test id -> reasons.
    # Every other selected file runs whole.
    nodes: dict[str, dict[str, list[Reason]]] = field(default_factory=dict)

    @property
    def full(self) -> bool:
        return bool(self.full_reasons)

    def _test_entry(self, test: str, reasons: list[Reason]) -> AffectedTest:
        entry: AffectedTest = {"file": test, "reasons": [reason.to_dict() for reason in reasons]}
        if test in self.nodes:
            entry["nodes"] = [
                {"id": node, "reasons": [reason.to_dict() for reason in why]}
                for node, why in sorted(self.nodes[test].items())
            ]
        return entry

    def to_dict(self) -> AffectedPlan:
        return {
            "base": self.base,
            "base_commit": self.base_commit,
            "full": self.full,
            "full_reasons": [reason.to_dict() for reason in self.full_reasons],
            "changed": [
                {
                    "path": s.path,
                    "change": s.change,
                    "rule": s.rule,
                    "detail": s.detail,
                    "tests": len(s.tests),
                }
                for s in self.selections
            ],
            "tests": [
                self._test_entry(test, reasons) for test, reasons in sorted(self.tests.items())
            ],
            "suites": [s.to_dict() for s in self.suites],
            "gates": [
                {
                    "name": gate.name,
                    "command": gate.command,
                    "reasons": [reason.to_dict() for reason in reasons],
                }
                for gate, reasons in self.gates.values()
            ],
            "blind_spots": self.blind_spots,
            "map": self.map_state,
            "counts": self._counts(),
        }

    def _counts(self) -> AffectedCounts:
        counts: AffectedCounts = {
            "selected": len(self.tests),
            "total": self.total_tests,
            "share": round(len(self.tests) / self.total_tests, 4) if self.total_tests else 0.0,
        }
        if self.nodes:
            counts["narrowed_files"] = len(self.nodes)
            counts["node_ids"] = sum(len(ids) for ids in self.nodes.values())
        return counts


@dataclass
class Project:
    """The repository as the selector sees it: its files, test files and import graph."""

    config: Config
    files: list[str]
    roots: tuple[str, ...]
    tests: list[str]
    graph: ImportGraph
    rules: PytestRules
    computed: list[ComputedImport]

    def test_dirs(self) -> frozenset[str]:
        return self.rules.test_dirs(self.tests)

    @classmethod
    def scan(cls, config: Config, files: list[str], *, phantom: tuple[str, ...] = ()) -> Project:
        """``phantom``: deleted Python files, kept in the module map so their importers are found."""
        root = config.root
        roots = ("src", "") if any(path.startswith("src/") for path in files) else ("",)
        # pytest decides what a test is: its testpaths, python_files and doctest
        # globs, plus each suite's explicit paths (`pytest PATH` collects there too).
        suite_paths = [p for suite in config.suites.values() for p in suite.paths]
        rules = read_rules(root, config.affected.test_patterns, suite_paths)
        tests = sorted(path for path in files if rules.is_test(path))
        test_set = set(tests)
        graph = build_graph(
            root,
            [*files, *phantom],
            roots,
            _console_scripts(config),
            lambda path: path in test_set or PurePosixPath(path).name == "conftest.py",
        )
        return cls(
            config=config,
            files=files,
            roots=roots,
            tests=tests,
            graph=graph,
            rules=rules,
            computed=computed_imports(root, graph, roots),
        )


def _console_scripts(config: Config) -> dict[str, str]:
    """``[project.scripts]``: script name -> the module it runs."""
    import tomllib  # noqa: PLC0415  # only when a plan is made

    if config.source is None:
        return {}
    try:
        document = tomllib.loads(config.source.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    scripts = document.get("project", {}).get("scripts", {})
    if not isinstance(scripts, dict):
        return {}
    return {
        name: target.split(":", 1)[0]
        for name, target in scripts.items()
        if isinstance(name, str) and isinstance(target, str)
    }


def _under(path: str, directory: str) -> bool:
    directory = directory.rstrip("/")
    return directory in ("", ".") or path == directory or path.startswith(f"{directory}/")


def _rule_for(path: str, project: Project) -> tuple[str, str]:
    """(rule, detail) for one changed path: the first rule that claims it."""
    settings = project.config.affected
    name = PurePosixPath(path).name
    for pattern in settings.full:
        if matches(path, pattern):
            return "full", f"listed in [tool.lanes.affected] full ({pattern})"
    for pattern, why in FULL_PATTERNS:
        # A name without a slash counts at the root only: tests/data/setup.py is data.
        if ("/" in pattern or "/" not in path) and matches(path, pattern):
            return "full", why
    if name == "conftest.py":
        return "conftest", f"applies to every test under {PurePosixPath(path).parent!s}/"
    # pytest's own rules, not a name pattern: a product module named test_*.py
    # outside testpaths is not a test (and must reach the import graph).
    if path in project.tests or project.rules.is_test(path):
        return "test file", "a changed test runs itself"
    for pattern in settings.quiet:
        if matches(path, pattern):
            holder = _test_dir_holding(project, path)
            if holder is not None:
                return "test data", (
                    f"under the test directory {holder}/ ({pattern} is quiet elsewhere): "
                    f"no rule proves no test there reads it, so its tests run"
                )
            return "quiet", (
                f"cannot change a test's outcome ({pattern}): outside every test directory, "
                f"not a doctest file ({' '.join(project.rules.doctest_globs)})"
            )
    for pattern in settings.owners:
        if matches(path, pattern):
            return "owners", f"[tool.lanes.affected.owners] {pattern!r}"
    if path.endswith(".py"):
        return "import graph", "tests that import it, directly or transitively"
    return "unknown", "no rule knows which tests read this file kind: fail open"


def _test_dir_holding(project: Project, path: str) -> str | None:
    """The outermost test directory holding ``path`` (below the root), if any."""
    dirs = project.test_dirs()
    holders = [str(p) for p in PurePosixPath(path).parents if str(p) in dirs]
    return holders[-1] if holders else None


def _computed_tests(project: Project, path: str) -> list[tuple[str, str]]:
    """(test, why) for the tests that reach a computed import that could load ``path``."""
    name = module_name(path, project.roots)
    if name is None:
        return []
    found: dict[str, str] = {}
    for spot in project.computed:
        if not spot.reaches(name):
            continue
        reach = [spot.file, *project.graph.dependents([spot.file])]
        for test in _with_conftest_subtrees(project, reach):
            found.setdefault(test, spot.describe())
    return sorted(found.items())


def _with_conftest_subtrees(project: Project, files: list[str]) -> set[str]:
    test_set = set(project.tests)
    selected = {f for f in files if f in test_set}
    for f in files:
        if PurePosixPath(f).name == "conftest.py":
            selected.update(_tests_under(project, str(PurePosixPath(f).parent)))
    return selected


def _tests_under(project: Project, directory: str) -> list[str]:
    return [test for test in project.tests if _under(test, directory)]


def import_chains(project: Project, path: str, tests: list[str]) -> dict[str, str]:
    """Test file -> the import chain that selects it (``a -> b -> path``), or the conftest that does."""
    chains = project.graph.chains(path)
    conftests = sorted(
        (f for f in chains if PurePosixPath(f).name == "conftest.py"), key=lambda f: len(chains[f])
    )
    found: dict[str, str] = {}
    for test in tests:
        if test in chains:
            found[test] = "imports it: " + " -> ".join(chains[test])
            continue
        holder = next((c for c in conftests if _under(test, str(PurePosixPath(c).parent))), None)
        if holder is not None:
            found[test] = "under a conftest that imports it: " + " -> ".join(chains[holder])
    return found


def graph_tests(project: Project, path: str) -> tuple[list[str], str]:
    distances = project.graph.dependents([path])
    selected = {test for test in distances if test in project.tests}
    # A conftest that imports the module puts it in front of every test below it.
    for importer in distances:
        if PurePosixPath(importer).name == "conftest.py":
            selected.update(_tests_under(project, str(PurePosixPath(importer).parent)))
    direct = sum(1 for test in selected if distances.get(test) == 1)
    return sorted(selected), f"{direct} direct, {len(selected) - direct} transitive"


def _suite_runs(
    project: Project, tests: list[str], nodes: dict[str, list[str]], *, full: bool
) -> list[SuiteRun]:
    """One run per suite holding selected files; a file narrowed by the map is named
    by its test ids (``path::test``), pytest's own way to run part of a file."""

    def args(files: list[str]) -> tuple[list[str], list[str]]:
        ids = [node for f in files for node in nodes.get(f, ())]
        return [f for f in files if f not in nodes], ids

    runs: list[SuiteRun] = []
    claimed: set[str] = set()
    parallel = runs_xdist(project.config.root)
    for suite in project.config.suites.values():
        argv = shlex.split(suite.command)
        if full:
            runs.append(SuiteRun(suite.name, argv, [], full=True))
            continue
        files = [t for t in tests if t not in claimed and any(_under(t, p) for p in suite.paths)]
        if not files or suite.runner != "pytest":
            continue
        claimed.update(files)
        # The suite's own options, its path selectors replaced by the selected files.
        kept = [arg for arg in argv if arg.rstrip("/") not in {p.rstrip("/") for p in suite.paths}]
        whole, ids = args(files)
        runs.append(
            SuiteRun(
                suite.name,
                [*_parallel(kept, files, suite_parallel=parallel), *whole, *ids],
                files,
                False,
                ids,
            )
        )
    rest = [t for t in tests if t not in claimed]
    if rest and not full:
        whole, ids = args(rest)
        runs.append(
            SuiteRun(
                "(no suite)",
                [*_parallel(["pytest"], rest, suite_parallel=parallel), *whole, *ids],
                rest,
                False,
                ids,
            )
        )
    return runs


# From this many selected files on, a serial run costs more than starting
# xdist's workers (38 files ran serially in 270 s; the full suite at -n 2, 106-350 s).
PARALLEL_FROM = 8

# Where a project says it runs its suite under xdist.
_PARALLEL_SOURCES = ("pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", "noxfile.py")


def runs_xdist(root: Path) -> bool:
    """Whether the project runs its own suite under pytest-xdist (names it in its config)."""
    for name in _PARALLEL_SOURCES:
        try:
            text = (root / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "xdist" in text or "numprocesses" in text:
            return True
    return False


def _parallel(argv: list[str], files: list[str], *, suite_parallel: bool) -> list[str]:
    """The suite's own parallelism: xdist's ``-n auto`` for a large selection, when the
    project runs its suite under xdist, xdist is installed and the command does not
    choose already. A project that runs serially stays serial: xdist's workers buy
    wall time with CPU (toolz's 12 files under -n auto cost 2.5x its serial full run)."""
    import importlib.util  # noqa: PLC0415  # only when a plan runs suites

    chooses = any(
        a in ("-n", "--numprocesses") or a.startswith(("-n", "--numprocesses=")) for a in argv
    )
    if (
        chooses
        or not suite_parallel
        or len(files) < PARALLEL_FROM
        or importlib.util.find_spec("xdist") is None
    ):
        return argv
    return [*argv, "-n", "auto"]


def _gates(project: Project) -> dict[str, Gate]:
    configured = project.config.affected.gates
    if configured is not None:
        return dict(configured)
    # Derived: a project whose noxfile has a `lint` session runs it for Python changes.
    noxfile = project.config.root / "noxfile.py"
    try:
        text = noxfile.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    if "def lint(" not in text:
        return {}
    inputs = ("*.py", "*.pyi", "pyproject.toml", "setup.cfg", "noxfile.py")
    return {"lint": Gate(name="lint", command="nox -s lint", inputs=inputs)}


def _map_data(test_map: TestMap, path: str, static: list[str], rule: str) -> list[Pick] | None:
    """A data file the map saw read: its readers by id, plus the static choice's unvouched tests."""
    readers = test_map.readers(path)
    if not readers:
        return None  # read by no recorded test: the static rule stands
    why = f"read {path} when the map was recorded"
    return vouched_picks(test_map, {node: (f, why) for node, f in readers.items()}, static, rule)


def _static_choice(
    project: Project, path: str, change: str, rule: str, detail: str
) -> tuple[list[str], str]:
    """The test files the static rule ``rule`` selects for ``path``, and its detail."""
    if rule == "test file":
        chosen = [path] if path in project.tests else []
        return chosen, "deleted: nothing left to run" if change == "deleted" else detail
    if rule == "conftest":
        return _tests_under(project, str(PurePosixPath(path).parent)), detail
    if rule == "test data":
        holder = _test_dir_holding(project, path)
        return (_tests_under(project, holder) if holder is not None else []), detail
    if rule == "owners":
        owners = project.config.affected.owners
        return sorted({t for p, ts in owners.items() if matches(path, p) for t in ts}), detail
    if rule == "import graph":
        return graph_tests(project, path)
    return [], detail


def _map_choice(
    project: Project,
    test_map: TestMap,
    changed: tuple[str, str],
    *,
    rule: str,
    detail: str,
    static: list[str],
) -> tuple[str, str, list[Pick] | None, bool]:
    """The map within the static choice: (rule, detail, the picks or None: static
    stands, whether the map narrowed a function-level change)."""
    path, change = changed
    if rule == "import graph" and change != "deleted":
        verdict = function_changes(project.config.root, test_map.commit, path)
        explained = narrow(test_map, path, verdict, static)
        files = {pick.file for pick in explained}
        ids = sum(1 for pick in explained if pick.node is not None)
        detail = f"map: {len(files)} of {len(static)} statically selected ({ids} test ids); " + (
            verdict.fallback or "changed " + ", ".join(sorted(verdict.functions))
        )
        # Code that ran at import is not narrowed: what it built, every importer uses.
        narrowed = not verdict.fallback and not verdict.functions & test_map.outside(path)
        return rule, detail, explained, narrowed
    if rule in ("quiet", "test data"):
        read = _map_data(test_map, path, static, rule)
        if read is not None:
            readers = {pick.file for pick in read if pick.rule == "map"}
            return "map", f"read by {len(readers)} recorded test files", read, False
    return rule, detail, None, False


def _plan_gates(
    project: Project, changes: Changes, full_reasons: list[Reason]
) -> dict[str, tuple[Gate, list[Reason]]]:
    """The gates the changed paths fire (every gate for the full set), one reason per path."""
    full = bool(full_reasons)
    gates: dict[str, tuple[Gate, list[Reason]]] = {}
    for name, gate in _gates(project).items():
        reasons = [
            Reason("gate", path, f"matches {pattern}")
            for path in sorted(changes.paths)
            for pattern in gate.inputs
            if matches(path, pattern)
        ]
        if full and not reasons:
            reasons = [Reason("full", full_reasons[0].changed, "the full set includes every gate")]
        if reasons:
            # One reason per changed path is enough to explain the gate.
            seen: dict[str, Reason] = {}
            for reason in reasons:
                seen.setdefault(reason.changed, reason)
            gates[name] = (gate, list(seen.values()))
    return gates


def _blind_spots(project: Project, changes: Changes, tests: set[str]) -> list[AffectedBlindSpot]:
    """What the graph cannot see around the changed and selected files."""
    involved = set(changes.paths) | tests
    blind: list[AffectedBlindSpot] = [
        {"file": spot.file, "line": spot.line, "what": spot.what}
        for path in sorted(involved)
        for spot in project.graph.blind_spots.get(path, ())
    ]
    # A computed import anywhere is named when it could load a changed module.
    changed_modules = {module_name(p, project.roots) for p in changes.paths if p.endswith(".py")}
    blind.extend(
        {
            "file": spot.file,
            "line": spot.line,
            "what": f"computed {spot.what}: could import {spot.reach()}",
        }
        for spot in project.computed
        if spot.file not in involved
        and any(m is not None and spot.reaches(m) for m in changed_modules)
    )
    blind.extend(
        {"file": path, "line": 0, "what": f"unparsable: {why}"}
        for path, why in sorted(project.graph.unparsable.items())
        if path in involved
    )
    return blind


def make_plan(
    project: Project, changes: Changes, test_map: TestMap | None = None, map_state: str = ""
) -> Plan:
    """``test_map``: a recorded map valid for this configuration (narrows the
    static choice); ``map_state`` says once which map was used, or why none."""
    tests: dict[str, list[Reason]] = {}
    # The map's picks by test id; a file any rule selects whole runs whole.
    nodes: dict[str, dict[str, list[Reason]]] = {}
    whole: set[str] = set()
    full_reasons: list[Reason] = []
    selections: list[Selection] = []
    for path, change in sorted(changes.paths.items()):
        rule, detail = _rule_for(path, project)
        if rule in ("full", "unknown"):
            full_reasons.append(Reason(rule, path, detail))
        chosen, detail = _static_choice(project, path, change, rule, detail)
        explained: list[Pick] | None = None
        narrowed = False
        if test_map is not None:
            rule, detail, explained, narrowed = _map_choice(
                project, test_map, (path, change), rule=rule, detail=detail, static=chosen
            )
        if explained is not None:
            # A recorded test file deleted since the recording has nothing left to run.
            present = set(project.files)
            explained = [pick for pick in explained if pick.file in present]
            chosen = list(dict.fromkeys(pick.file for pick in explained))
            fallback = [p.file for p in explained if p.node is None and p.rule == "import graph"]
            chains = import_chains(project, path, fallback) if fallback else {}
            for pick in explained:
                why = f"{pick.why}; {chains[pick.file]}" if pick.file in chains else pick.why
                reason = Reason(pick.rule, path, why)
                if pick.node is None:
                    whole.add(pick.file)
                    tests.setdefault(pick.file, []).append(reason)
                else:
                    nodes.setdefault(pick.file, {}).setdefault(pick.node, []).append(reason)
                    # The file's reasons say why it runs at all: one per changed path.
                    if all(r.changed != path for r in tests.get(pick.file, [])):
                        tests.setdefault(pick.file, []).append(reason)
        else:
            whole.update(chosen)
            # The import graph names each test's own chain to the change.
            chains = import_chains(project, path, chosen) if rule == "import graph" else {}
            for test in chosen:
                tests.setdefault(test, []).append(Reason(rule, path, chains.get(test, detail)))
        if rule == "import graph":
            # Fail open through computed imports: the graph cannot follow them.
            extra = [(t, why) for t, why in _computed_tests(project, path) if t not in chosen]
            if narrowed and test_map is not None:
                # The recording saw what a vouched test executed through a computed
                # import too: the net is for the tests it cannot vouch for.
                extra = [(t, why) for t, why in extra if not test_map.vouches(t)]
            for test, why in extra:
                tests.setdefault(test, []).append(Reason("computed import", path, why))
            whole.update(t for t, _ in extra)
            chosen = [*chosen, *(t for t, _ in extra)]
        selections.append(Selection(path, change, rule, detail, chosen))
    if changes.paths and not project.tests and not full_reasons:
        # A project with tests never has "0 test files": if pytest's rules find
        # none, the plan cannot tell what to skip, so everything runs.
        full_reasons.append(
            Reason(
                "unknown",
                "(test discovery)",
                f"no test file found by {project.rules.describe()}: fail open",
            )
        )
    full = bool(full_reasons)
    if full:
        whole.update(project.tests)
        for test in project.tests:
            tests.setdefault(test, []).append(Reason("full", full_reasons[0].changed))
    narrowed_nodes = {f: ids for f, ids in nodes.items() if f not in whole}
    gates = _plan_gates(project, changes, full_reasons)
    blind = _blind_spots(project, changes, set(tests))
    return Plan(
        base=changes.base,
        base_commit=changes.base_commit,
        selections=selections,
        tests=tests,
        full_reasons=full_reasons,
        suites=_suite_runs(
            project, sorted(tests), {f: sorted(ids) for f, ids in narrowed_nodes.items()}, full=full
        ),
        gates=gates,
        blind_spots=blind,
        total_tests=len(project.tests),
        map_state=map_state,
        nodes=narrowed_nodes,
    )
