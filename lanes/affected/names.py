"""The name flow wired to a project: its files, import graph, test files and recorded map.

:func:`names_of` gives :func:`lanes.affected.mapselect.narrow` the name flow of
one changed file (:func:`lanes.affected.nameflow.follow`) over the files that
import it, with the test files and conftests whose changed bindings run their
tests whole.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from lanes._jsondoc import read_bytes
from lanes.affected.graph import MAX_SOURCE_BYTES, module_name
from lanes.affected.nameflow import Flow, follow
from lanes.affected.rules import tests_under

if TYPE_CHECKING:
    from collections.abc import Callable

    from lanes.affected.mapselect import MapVerdict
    from lanes.affected.rules import Project
    from lanes.affected.testmap import TestMap

__all__ = ["names_of"]


def _conftest(path: str) -> bool:
    return PurePosixPath(path).name == "conftest.py"


def _reached_by_tests(project: Project) -> set[str]:
    """The files a test can run: what the tests and conftests import, transitively,
    and every module a computed import could load. A module-level call in a
    script no test runs (an example, a tool) cannot change a test's outcome."""
    names = {f: module_name(f, project.roots) for f in project.graph.files}
    reached = {f for f in project.graph.files if f in project.tests or _conftest(f)}
    reached.update(
        f
        for f, name in names.items()
        if name is not None and any(spot.reaches(name) for spot in project.computed)
    )
    queue = list(reached)
    while queue:
        for target in project.graph.imports.get(queue.pop(), ()):
            if target not in reached:
                reached.add(target)
                queue.append(target)
    return reached


def names_of(
    project: Project, test_map: TestMap, path: str, verdict: MapVerdict
) -> Callable[[set[str]], Flow]:
    """The name flow of ``path``'s module-level changes (given the changed
    functions that ran at import), its whole-run files expanded to test files."""
    root = project.config.root

    def read(file: str) -> bytes | None:
        try:
            return read_bytes(root / file, max_bytes=MAX_SOURCE_BYTES, follow_symlinks=True)
        except OSError:
            return None

    def runs_whole(file: str) -> bool:
        return file in project.tests or _conftest(file)

    reached = _reached_by_tests(project)

    def flow(ran_at_import: set[str]) -> Flow:
        found = follow(
            path,
            verdict.old,
            list(verdict.module_hunks),
            files=project.graph.files,
            roots=project.roots,
            sys_path=project.sys_path,
            dependents=[f for f in project.graph.dependents([path]) if f in reached],
            read=read,
            outside=test_map.session_outside,
            ran_at_import=ran_at_import,
            runs_whole=runs_whole,
            collected=test_map.collected_by,
            session_calls=test_map,
        )
        whole: dict[str, str] = {}
        for file, why in found.whole.items():
            for test in (
                tests_under(project, str(PurePosixPath(file).parent)) if _conftest(file) else [file]
            ):
                whole.setdefault(test, why)
        return replace(found, whole=whole)

    return flow
