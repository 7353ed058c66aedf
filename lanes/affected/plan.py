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
   (:mod:`lanes.affected.computed`; with a map, only where the recording
   saw that import run: :mod:`lanes.affected.computednet`), and those that
   reach an *unresolved import* (one naming no project file, installed or
   standard module): fail open, each named as a blind spot.

With a recorded map (:mod:`lanes.affected.mapselect`), a change inside
functions, or to a data file the recording saw read, selects *tests*, by
pytest node id: the ones that executed the function or read the file; a
module-level change selects the tests that executed code reading the names it
changes (:mod:`lanes.affected.nameflow`). Every static fallback (a flow that
cannot be followed, a file the map never saw, a test the map cannot vouch for,
a computed import) selects whole files, as above.

The static rules live in :mod:`lanes.affected.rules`, the commands a plan runs
(suites, gates) in :mod:`lanes.affected.suites`; this module joins them with
the map into a :class:`Plan`. A change to lanekit's own code, in lanekit's
own repository, is planned by the base commit's selector instead
(:mod:`lanes.affected.selfplan`).
7. **unknown** — anything else fails open: the full set, and the plan says why.

Gates (lint, type check) fire for their input patterns, whatever else the
plan selects: they are cheap compared to being skipped by mistake.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lanes.affected.computednet import ComputedNet
from lanes.affected.graph import module_name
from lanes.affected.mapselect import Pick, function_changes, narrow, scope_whole, vouched_picks
from lanes.affected.names import names_of
from lanes.affected.rules import (
    FULL_PATTERNS,
    Project,
    Reason,
    graph_tests,
    import_chains,
    matches,
    rule_for,
    static_choice,
    test_dir_holding,
    tests_under,
    unresolved_tests,
)
from lanes.affected.suites import RecordedTimes, SuiteRun, plan_gates, runs_xdist, suite_runs

if TYPE_CHECKING:
    from collections.abc import Callable

    from lanes.affected.changes import Changes
    from lanes.affected.settings import Gate
    from lanes.affected.testmap import TestMap
    from lanes.payloads.affected import (
        AffectedBlindSpot,
        AffectedCounts,
        AffectedPlan,
        AffectedTest,
    )

__all__ = [
    "FULL_PATTERNS",
    "Plan",
    "Project",
    "Reason",
    "Selection",
    "SuiteRun",
    "graph_tests",
    "import_chains",
    "make_plan",
    "matches",
    "runs_xdist",
]


@dataclass
class Selection:
    """What one changed path selected: its rule, and how many test files."""

    path: str
    change: str
    rule: str
    detail: str
    selected: int = 0


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
    # Who made the plan when it was not this code (the base commit's selector), and why.
    planned_by: str = ""

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
        plan: AffectedPlan = {
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
                    "tests": s.selected,
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
        if self.planned_by:
            plan["planned_by"] = self.planned_by
        return plan

    @classmethod
    def from_dict(cls, document: object) -> Plan:
        """The plan :meth:`to_dict` wrote, validated: it comes from another process,
        maybe another lanekit version (:mod:`lanes.affected.selfplan`), so every field
        is checked and a missing or mistyped one is a
        :class:`~lanes.affected.planread.PlanFormatError`."""
        from lanes.affected.planread import read_plan  # noqa: PLC0415  # it imports this module

        return read_plan(cls, document)

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


def _test_importers(project: Project) -> Callable[[str], list[str]]:
    """file -> the test files that import it, directly or not (the test set built once)."""
    tests = set(project.tests)
    return lambda file: sorted(t for t in project.graph.dependents([file]) if t in tests)


def _map_data(
    project: Project, test_map: TestMap, path: str, static: list[str], *, rule: str, detail: str
) -> tuple[str, str, list[Pick] | None, bool]:
    """A data file the map saw read: its readers by id, the test files whose
    collection read it, whole, and the static choice's unvouched tests. Read
    at start-up (a conftest's import, a plugin) it may shape every test: the
    full set. Read by no recorded test: the static rule stands."""
    readers = test_map.readers(path)
    scopes = test_map.read_outside(path)
    if scopes is None and rule != "quiet":
        # An older map: a read while pytest collected (parametrize cases) is unknown.
        return (
            rule,
            f"{detail}; the map (an older version) did not record reads outside tests",
            None,
            False,
        )
    if scopes and "" in scopes:
        why = (
            "read outside every test at start-up (a conftest's import, a plugin) "
            "when the map was recorded: every test may depend on it"
        )
        return "full", why, None, False
    if not readers and not scopes:
        return rule, detail, None, False
    why = f"read {path} when the map was recorded"
    hits = {node: (f, why) for node, f in readers.items()}
    picks = vouched_picks(test_map, hits, static, rule, data=True)
    importers = _test_importers(project)
    for scope in scopes or ():
        for test, because in scope_whole(test_map, scope, f"{path} was read", importers).items():
            picks.append(Pick(test, "map", because))
    return "map", "read when the map was recorded", picks, False


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
        explained, note = narrow(
            test_map,
            path,
            verdict,
            static,
            names_of(project, test_map, path, verdict),
            importers=_test_importers(project),
        )
        detail = f"map: {_share(explained, static)}; {note}"
        # Only a change inside functions that ran in tests is narrowed by what the
        # tests executed; a module-level one keeps the computed-import net whole.
        narrowed = (
            not verdict.fallback
            and not verdict.module_hunks
            and not verdict.functions & test_map.session_outside(path)
        )
        return rule, detail, explained, narrowed
    if rule in ("quiet", "test data"):
        return _map_data(project, test_map, path, static, rule=rule, detail=detail)
    holder = test_dir_holding(project, path) if rule == "unknown" else None
    if holder is not None:
        # A file of a kind no rule knows, under a test directory: data, when
        # the recording saw tests read it.
        return _map_data(
            project, test_map, path, tests_under(project, holder), rule=rule, detail=detail
        )
    return rule, detail, None, False


def _share(picks: list[Pick], static: list[str]) -> str:
    """How the map's files relate to the static net's: a map can select a file the
    graph does not reach (a plugin loaded by entry point), never by "N of fewer"."""
    files = {pick.file for pick in picks}
    ids = sum(1 for pick in picks if pick.node is not None)
    within = len(files & set(static))
    share = f"{within} of {len(static)} statically selected test files"
    beyond = len(files - set(static))
    if beyond:
        share += (
            f", and {beyond} the import graph does not reach (the recording saw them execute it)"
        )
    return f"{share} ({ids} test ids)"


def _blind_spots(
    project: Project, changes: Changes, tests: set[str], net: ComputedNet
) -> list[AffectedBlindSpot]:
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
            "what": f"computed {spot.what}: could import {spot.reach()}"
            + (f"; {verdict.describe()}" if (verdict := net.verdict(spot)) is not None else ""),
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


def _fail_open(
    project: Project, net: ComputedNet, path: str, chosen: list[str], vouching: TestMap | None
) -> tuple[list[Pick], str]:
    """What the import graph cannot follow to ``path``, and a note: the
    computed-import net's picks (where the recording saw such an import run),
    and the test files not chosen yet that reach an import the graph cannot
    resolve (a module only a run's sys.path finds). ``vouching``: the map that
    narrowed the choice; what it vouches for, the recording saw executed."""
    picks, note = net.picks(path, narrowed=vouching is not None)
    picks += [
        Pick(t, "unresolved import", why)
        for t, why in unresolved_tests(project)
        if t != path and t not in chosen and (vouching is None or not vouching.vouches(t))
    ]
    return picks, note


def _take_fail_open(
    picks: list[Pick],
    path: str,
    tests: dict[str, list[Reason]],
    nodes: dict[str, dict[str, list[Reason]]],
    whole: set[str],
) -> None:
    """Add the fail-open picks for ``path`` (the computed-import net's, the
    unresolved imports') to the plan being built."""
    for pick in picks:
        known = tests.get(pick.file, [])
        by_id = nodes.get(pick.file, {}).get(pick.node or "", [])
        if any(r.changed == path for r in by_id) or (
            pick.file in whole and any(r.changed == path for r in known)
        ):
            continue  # this change selects the test (or its whole file) already
        reason = Reason(pick.rule, path, pick.why)
        if pick.node is None:
            whole.add(pick.file)
        else:
            nodes.setdefault(pick.file, {}).setdefault(pick.node, []).append(reason)
        # The file's reasons say why it runs: a by-id pick adds one per changed path.
        first = all(r.rule != pick.rule or r.changed != path for r in known)
        if (pick.node is None or first) and reason not in known:
            tests.setdefault(pick.file, []).append(reason)


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
    net = ComputedNet(project, test_map)
    for path, change in sorted(changes.paths.items()):
        rule, detail = rule_for(path, project)
        chosen, detail = static_choice(project, path, change, rule, detail)
        explained: list[Pick] | None = None
        narrowed = False
        if test_map is not None:
            rule, detail, explained, narrowed = _map_choice(
                project, test_map, (path, change), rule=rule, detail=detail, static=chosen
            )
        # After the map: it knows which tests read a data file no rule knows,
        # and that one read at start-up may shape every test.
        if rule in ("full", "unknown"):
            full_reasons.append(Reason(rule, path, detail))
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
            # Fail open through computed imports, the graph cannot follow them:
            # where they could have run (the recording says where they did).
            # ... and through imports it cannot resolve.
            extra, note = _fail_open(project, net, path, chosen, test_map if narrowed else None)
            _take_fail_open(extra, path, tests, nodes, whole)
            detail = f"{detail}; {note}" if note else detail
            chosen = [*chosen, *dict.fromkeys(p.file for p in extra if p.file not in chosen)]
        selections.append(Selection(path, change, rule, detail, len(chosen)))
    # Once each, so that the reader sees where an environment's files went.
    selections.extend(
        Selection(
            f"{directory}/",
            "untracked",
            "quiet",
            "a virtual environment (pyvenv.cfg), left out as pytest leaves it out: "
            "installed files, not the project's",
        )
        for directory in changes.environments
    )
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
    gates = plan_gates(project, changes, full_reasons)
    blind = _blind_spots(project, changes, set(tests), net)
    return Plan(
        base=changes.base,
        base_commit=changes.base_commit,
        selections=selections,
        tests=tests,
        full_reasons=full_reasons,
        suites=suite_runs(
            project,
            sorted(tests),
            {f: sorted(ids) for f, ids in narrowed_nodes.items()},
            full=full,
            times=RecordedTimes.of(test_map),
        ),
        gates=gates,
        blind_spots=blind,
        total_tests=len(project.tests),
        map_state=map_state,
        nodes=narrowed_nodes,
    )
