"""The computed-import net, where the recording saw a computed import run.

A computed import (:mod:`lanes.affected.computed`: ``import_module(name)`` with
a name built at run time) could load any module in its reach, so without a
map a change to such a module selects every test that reaches the importing
file (rule ``computed import``). The recorded map (:mod:`lanes.affected.testmap`)
says, per test and for the code run outside every test, which call sites
executed. Under the map's own premise (a test that executes no changed code
behaves as recorded) a site that never ran imported nothing for anyone, so
per site that could load the changed module:

- it **ran in recorded tests**: those tests, by id, plus, in the test files
  that reach the site, the tests the map cannot vouch for and the files it
  never recorded;
- it **ran outside every test** (at import or collection): the module it
  loaded was there for every test: every test that reaches the site;
- it ran, the recording saw **everything it imported** (the project files
  that ran while its call was on the stack, and on 3.12+ the file of a
  module ``importlib.import_module`` returned already loaded), the changed
  file is none of them, and the change binds no name in any of them (the
  name flow of :mod:`lanes.affected.nameflow`, which follows re-exports:
  ``from .sub import X`` in a package it got): as if it never ran (its file
  is unchanged, so it computes the same names and reads the same values);
- it **never ran**: nothing by itself (the tests the map cannot vouch for
  still run), and the plan says "computed import at F:L never ran in the
  recording";
- the recording **did not watch it** (a map older than the site) or **its
  file changed** since the map's commit (the lines moved, the condition in
  front of it may be new): every test that reaches the site, as without a map.

Without a map every site is the last case. A change inside functions that
the map narrowed by what each test executed needs none of this for the tests
the map vouches for (each ran the changed function or not, whatever a
computed import loaded): the net adds only the tests it cannot vouch for, by
id, and the test files it never recorded, whole.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

from lanes.affected.graph import module_name
from lanes.affected.mapselect import Pick, function_changes
from lanes.affected.names import names_of
from lanes.affected.rules import computed_tests, spot_reach

if TYPE_CHECKING:
    from lanes.affected.computed import ComputedImport
    from lanes.affected.namescan import Ref
    from lanes.affected.rules import Project
    from lanes.affected.testmap import TestMap

__all__ = ["ComputedNet", "SiteState", "SiteVerdict"]

RULE = "computed import"
# How many sites a changed file's one-line detail names; the JSON's blind spots list all.
SHOWN = 3


class SiteState(Enum):
    """What the recording says of one computed-import call site."""

    RAN = "ran"
    OUTSIDE = "outside"
    # Ran, and imported only files other than the changed one (per changed file).
    ELSEWHERE = "elsewhere"
    NEVER = "never"
    CHANGED = "changed"
    UNWATCHED = "unwatched"


@dataclass(frozen=True)
class SiteVerdict:
    spot: ComputedImport
    state: SiteState
    # RAN: test id -> its test file, for the tests that executed the site.
    tests: dict[str, str] = field(default_factory=dict)
    # ELSEWHERE: the project files it imported.
    imported: tuple[str, ...] = ()

    def narrows(self) -> bool:
        """The recording vouches for where the site ran: the net is the tests that ran it."""
        return self.state in (SiteState.RAN, SiteState.NEVER, SiteState.ELSEWHERE)

    def describe(self) -> str:
        where = f"computed import at {self.spot.file}:{self.spot.line}"
        if self.state is SiteState.RAN:
            count = len(self.tests)
            return f"{where} ran in {count} recorded test{'s' if count > 1 else ''}"
        if self.state is SiteState.NEVER:
            return f"{where} never ran in the recording"
        if self.state is SiteState.ELSEWHERE:
            names = ", ".join(self.imported[:SHOWN])
            more = f" and {len(self.imported) - SHOWN} more" if len(self.imported) > SHOWN else ""
            if not names:
                return f"{where} ran in the recording and imported no file of the project"
            return f"{where} ran in the recording and imported only {names}{more}"
        if self.state is SiteState.OUTSIDE:
            return f"{where} ran outside every test in the recording (at import or collection)"
        if self.state is SiteState.CHANGED:
            return f"{where}: its file changed since the map's commit"
        return f"{where}: the recording did not watch it (a map older than the site)"


class ComputedNet:
    """The computed-import net of one plan: per changed module, the tests it adds."""

    def __init__(self, project: Project, test_map: TestMap | None) -> None:
        self.project = project
        self.test_map = test_map
        self._verdicts: dict[ComputedImport, SiteVerdict] = {}
        self._changed: set[str] | None = None
        self._bound: dict[str, frozenset[Ref] | None] = {}

    def _changed_files(self, test_map: TestMap) -> set[str]:
        """The files holding a site that differ from the map's commit (working tree included)."""
        if self._changed is None:
            files = sorted({spot.file for spot in self.project.computed})
            proc = subprocess.run(
                [
                    "git",
                    "diff",
                    "--no-ext-diff",
                    "--name-only",
                    "-z",
                    test_map.commit,
                    "--",
                    *files,
                ],
                cwd=self.project.config.root,
                capture_output=True,
                check=False,
                timeout=60,
            )
            # A diff that cannot be made says nothing: every site file counts as changed.
            self._changed = (
                {name.decode() for name in proc.stdout.split(b"\0") if name}
                if proc.returncode == 0
                else set(files)
            )
        return self._changed

    def verdict(self, spot: ComputedImport) -> SiteVerdict | None:
        """What the recording says of ``spot``; None without a map."""
        test_map = self.test_map
        if test_map is None:
            return None
        if spot not in self._verdicts:
            runs = test_map.site_runs(spot.file, spot.line)
            if spot.file in self._changed_files(test_map):
                verdict = SiteVerdict(spot, SiteState.CHANGED)
            elif runs is None:
                verdict = SiteVerdict(spot, SiteState.UNWATCHED)
            elif runs[0]:
                verdict = SiteVerdict(spot, SiteState.OUTSIDE)
            elif runs[1]:
                verdict = SiteVerdict(spot, SiteState.RAN, runs[1])
            else:
                verdict = SiteVerdict(spot, SiteState.NEVER)
            self._verdicts[spot] = verdict
        return self._verdicts[spot]

    def _names_bound(self, test_map: TestMap, path: str) -> frozenset[Ref] | None:
        """The module-level names the change to ``path`` binds, in it and in the
        modules that take them (the name flow); None when the flow cannot tell."""
        if path not in self._bound:
            verdict = function_changes(self.project.config.root, test_map.commit, path)
            at_import = verdict.functions & test_map.outside(path)
            bound: frozenset[Ref] | None
            if verdict.fallback:
                bound = None
            elif not verdict.module_hunks and not at_import:
                bound = frozenset()  # inside functions: no module's names change
            else:
                flow = names_of(self.project, test_map, path, verdict)(set(at_import))
                bound = None if flow.fallback else flow.changed
            self._bound[path] = bound
        return self._bound[path]

    def _for_file(self, verdict: SiteVerdict, path: str) -> SiteVerdict:
        """``verdict`` for the changed file ``path``: a site that ran and, as
        far as the recording saw, imported only other files, none of whose
        names the change binds, is ELSEWHERE."""
        test_map = self.test_map
        if test_map is None or verdict.state not in (SiteState.RAN, SiteState.OUTSIDE):
            return verdict
        imports = test_map.site_imports(verdict.spot.file, verdict.spot.line)
        if imports is None or path in imports:
            return verdict
        bound = self._names_bound(test_map, path)
        if bound is None or any(file in imports for file, _ in bound):
            return verdict
        return SiteVerdict(verdict.spot, SiteState.ELSEWHERE, imported=tuple(sorted(imports)))

    def picks(self, path: str, *, narrowed: bool = False) -> tuple[list[Pick], str]:
        """The tests the computed imports that could load ``path`` add, and a
        bounded note naming those sites and what the recording says of them.

        ``narrowed``: the map narrowed a change inside functions of ``path`` by
        what each test executed, through a computed import or not: the net is
        for the tests the map cannot vouch for, by id, and the test files it
        never recorded, whole.
        """
        test_map = self.test_map
        if test_map is None:
            return [Pick(test, RULE, why) for test, why in computed_tests(self.project, path)], ""
        picks, note = self._recorded_picks(test_map, path)
        if narrowed:
            picks = _unvouched_only(test_map, picks)
        return picks, note

    def _recorded_picks(self, test_map: TestMap, path: str) -> tuple[list[Pick], str]:
        name = module_name(path, self.project.roots)
        if name is None:
            return [], ""
        picks: list[Pick] = []
        verdicts: list[SiteVerdict] = []
        recorded = test_map.recorded_files()
        for spot in self.project.computed:
            verdict = self.verdict(spot)
            if verdict is None or not spot.reaches(name):
                continue
            verdict = self._for_file(verdict, path)
            verdicts.append(verdict)
            said = f"{spot.describe()}; {verdict.describe()}"
            reach = sorted(spot_reach(self.project, spot))
            if not verdict.narrows():
                picks.extend(Pick(test, RULE, said) for test in reach)
                continue
            ran = (
                f"executed the computed import at {spot.file}:{spot.line} when the map was "
                f"recorded (it could import {spot.reach()})"
            )
            picks.extend(
                Pick(file, RULE, ran, node) for node, file in sorted(verdict.tests.items())
            )
            for test in reach:
                if test not in recorded:
                    picks.append(
                        Pick(test, RULE, f"{said}; not in the map (no test of it was recorded)")
                    )
                    continue
                picks.extend(
                    Pick(test, RULE, f"{said}; the map does not vouch: {why}", node)
                    for node, why in sorted(test_map.unvouched_tests(test).items())
                    if node not in verdict.tests
                )
        shown = "; ".join(v.describe() for v in verdicts[:SHOWN])
        if len(verdicts) > SHOWN:
            shown += f"; and {len(verdicts) - SHOWN} more (see the blind spots)"
        return picks, shown


def _unvouched_only(test_map: TestMap, picks: list[Pick]) -> list[Pick]:
    """``picks`` for a change the map narrowed by what each test executed.

    A test the map vouches for executed the changed function (the map selects
    it) or did not (it behaves as recorded), whatever a computed import loaded
    for it: that holds per test, so in a recorded file only the tests the map
    cannot vouch for stay, by id; the rest of the file does not run whole for
    them. A file the map never recorded stays whole.
    """
    recorded = test_map.recorded_files()
    unvouched: dict[str, dict[str, str]] = {}
    kept: dict[tuple[str, str | None], Pick] = {}
    for pick in picks:
        if pick.file not in recorded:
            kept.setdefault((pick.file, pick.node), pick)
            continue
        if pick.file not in unvouched:
            unvouched[pick.file] = test_map.unvouched_tests(pick.file)
        if pick.node is not None:
            if pick.node in unvouched[pick.file]:
                kept.setdefault((pick.file, pick.node), pick)
            continue
        for node, why in sorted(unvouched[pick.file].items()):
            kept.setdefault(
                (pick.file, node),
                Pick(pick.file, pick.rule, f"{pick.why}; the map does not vouch: {why}", node),
            )
    return list(kept.values())
