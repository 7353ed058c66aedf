"""``lanes affected MODULE``: who depends on a module, before anyone touches it.

The static import graph gives its dependents and the tests a module-level
change selects; a recorded map adds the tests that executed each of its
functions, which is what a change inside one of them selects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lanes.affected.graph import module_name
from lanes.affected.plan import Project, graph_tests, matches
from lanes.errors import UsageError

if TYPE_CHECKING:
    from lanes.affected.testmap import TestMap
    from lanes.config import Config

__all__ = ["Dependents", "dependents_of"]


@dataclass(frozen=True)
class Dependents:
    module: str
    path: str
    direct: list[str]
    transitive: list[str]
    ranked: list[dict[str, Any]]
    tests: list[str]
    mutation_modules: list[str]
    # From the recorded map: test id -> the module's functions it executed.
    executed: dict[str, list[str]] = field(default_factory=dict)
    map_state: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "map": self.map_state,
            "executed": [
                {"id": test, "functions": names} for test, names in sorted(self.executed.items())
            ],
            "module": self.module,
            "path": self.path,
            "direct": len(self.direct),
            "transitive": len(self.transitive),
            "dependents": self.ranked,
            "tests": self.tests,
            "mutation_modules": self.mutation_modules,
        }


def _find(project: Project, target: str) -> str:
    """A dotted module name or a path -> the file it names."""
    candidate = target.removeprefix("./")
    if candidate in project.graph.files:
        return candidate
    for path in sorted(project.graph.files):
        if module_name(path, project.roots) == target:
            return path
    import difflib  # noqa: PLC0415  # only on a miss

    known = [module_name(p, project.roots) or p for p in sorted(project.graph.files)]
    close = difflib.get_close_matches(target, known, n=3, cutoff=0.6)
    msg = f"no module or Python file named {target!r} in {str(project.config.root)!r}"
    hint = (
        f"did you mean {', '.join(close)}?"
        if close
        else "pass a dotted module name (pkg.mod) or a path relative to the project root"
    )
    raise UsageError(msg, hint=hint)


def _mutation_modules(config: Config, path: str) -> list[str]:
    # The mutation registry is optional: a project without the section has none.
    section = getattr(config, "mutation", None)
    modules = getattr(section, "modules", {}) if section is not None else {}
    return sorted(
        name
        for name, entry in modules.items()
        if any(matches(path, p) or path == p for p in getattr(entry, "paths", ()))
    )


def dependents_of(
    project: Project, target: str, test_map: TestMap | None = None, map_state: str = ""
) -> Dependents:
    """``test_map``: a valid recorded map; it adds the tests that executed the module's functions."""
    path = _find(project, target)
    distances = project.graph.dependents([path])
    reach = {dep: len(project.graph.dependents([dep])) for dep in distances}
    order = sorted(distances, key=lambda dep: (-reach[dep], distances[dep], dep))
    ranked: list[dict[str, Any]] = [
        {"path": dep, "distance": distances[dep], "reach": reach[dep]} for dep in order
    ]
    tests, _ = graph_tests(project, path)
    return Dependents(
        module=module_name(path, project.roots) or path,
        path=path,
        direct=sorted(dep for dep, dist in distances.items() if dist == 1),
        transitive=sorted(dep for dep, dist in distances.items() if dist > 1),
        ranked=ranked,
        tests=tests,
        mutation_modules=_mutation_modules(project.config, path),
        executed=test_map.executed_in(path) if test_map is not None else {},
        map_state=map_state,
    )
