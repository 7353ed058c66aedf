"""The static rules: which test files a changed path selects without a recorded map.

The project as the selector sees it (:class:`Project`: its files, pytest's
test files, the import graph, the computed imports) and, per changed path, the
first rule that claims it (:func:`rule_for`) and the test files that rule
selects (:func:`static_choice`): the safety net the recorded map narrows
(:mod:`lanes.affected.plan` lists the rules in order).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from lanes.affected.computed import ComputedImport, computed_imports
from lanes.affected.discover import PytestRules, read_rules
from lanes.affected.graph import ImportGraph, build_graph, module_name, pytest_sys_path
from lanes.affected.projectcode import in_environment
from lanes.governor.settings import Suite

if TYPE_CHECKING:
    from collections.abc import Mapping

    from lanes.config import Config
    from lanes.payloads.affected import AffectedReason

__all__ = [
    "FULL_PATTERNS",
    "Project",
    "Reason",
    "computed_tests",
    "graph_tests",
    "import_chains",
    "matches",
    "rule_for",
    "spot_reach",
    "static_choice",
    "test_dir_holding",
    "tests_under",
    "under",
    "unresolved_tests",
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
class Project:
    """The repository as the selector sees it: its files, test files and import graph."""

    config: Config
    files: list[str]
    roots: tuple[str, ...]
    tests: list[str]
    graph: ImportGraph
    rules: PytestRules
    computed: list[ComputedImport]
    # The directories pytest puts on sys.path (a test's base directory, `pythonpath`).
    sys_path: tuple[str, ...] = ()
    # The suites a plan runs: the declared ones, or pytest's own when none is.
    suites: Mapping[str, Suite] = field(default_factory=dict)

    def test_dirs(self) -> frozenset[str]:
        return self.rules.test_dirs(self.tests)

    @classmethod
    def scan(cls, config: Config, files: list[str], *, phantom: tuple[str, ...] = ()) -> Project:
        """``phantom``: deleted Python files, kept in the module map so their importers are found."""
        root = config.root
        roots = ("src", "") if any(path.startswith("src/") for path in files) else ("",)
        # pytest decides what a test is: its testpaths, python_files and doctest
        # globs, plus each declared suite's explicit paths (`pytest PATH` collects
        # there too). Without a declared suite the tests are what plain `pytest` collects.
        suites = _pytest_suite(config) if config.default_suite else config.suites
        suite_paths = [p for suite in suites.values() for p in suite.paths if p != "."]
        rules = read_rules(root, config.affected.test_patterns, suite_paths)
        # A virtualenv committed under the root is nobody's code here, as for
        # the recorder (lanes.affected.projectcode.ProjectCode) and pytest's collection.
        venvs = {p[: -len("pyvenv.cfg")] for p in files if PurePosixPath(p).name == "pyvenv.cfg"}
        code = {
            p for p in [*files, *phantom] if not in_environment(p.split("/"), venvs.__contains__)
        }
        tests = sorted(path for path in files if path in code and rules.is_test(path))
        test_set = set(tests)

        def tested(path: str) -> bool:
            return path in test_set or PurePosixPath(path).name == "conftest.py"

        python = frozenset(p for p in code if p.endswith(".py"))
        # pytest's own sys.path: a test's sibling `import helpers` is an edge.
        sys_path = pytest_sys_path(
            python, filter(tested, sorted(python)), rules.import_mode, rules.pythonpath
        )
        graph = build_graph(
            root, sorted(python), roots, _console_scripts(config), tested, sys_path=sys_path
        )
        return cls(
            config=config,
            files=files,
            roots=roots,
            tests=tests,
            graph=graph,
            rules=rules,
            computed=computed_imports(root, graph, roots),
            sys_path=sys_path,
            suites=suites,
        )


def _pytest_suite(config: Config) -> Mapping[str, Suite]:
    """No suite declared: lanekit's default (``pytest tests``) is a guess that
    fails where the tests live elsewhere (``testpaths = testing``, tests inside
    the package). Plain ``pytest`` at the root runs what pytest's own config
    collects, and every test file the rules found is its."""
    default = config.suites["tests"]
    return {"tests": Suite(name="tests", paths=(".",), command="pytest", tier=default.tier)}


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


def under(path: str, directory: str) -> bool:
    directory = directory.rstrip("/")
    return directory in ("", ".") or path == directory or path.startswith(f"{directory}/")


def rule_for(path: str, project: Project) -> tuple[str, str]:
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
            holder = test_dir_holding(project, path)
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


def test_dir_holding(project: Project, path: str) -> str | None:
    """The outermost test directory holding ``path`` (below the root), if any."""
    dirs = project.test_dirs()
    holders = [str(p) for p in PurePosixPath(path).parents if str(p) in dirs]
    return holders[-1] if holders else None


def computed_tests(project: Project, path: str) -> list[tuple[str, str]]:
    """(test, why) for the tests that reach a computed import that could load ``path``."""
    name = module_name(path, project.roots)
    if name is None:
        return []
    found: dict[str, str] = {}
    for spot in project.computed:
        if not spot.reaches(name):
            continue
        for test in spot_reach(project, spot):
            found.setdefault(test, spot.describe())
    return sorted(found.items())


def unresolved_tests(project: Project) -> list[tuple[str, str]]:
    """(test, why) for the tests that reach an import the graph cannot resolve: fail open."""
    found: dict[str, str] = {}
    for path, spots in sorted(project.graph.unresolved.items()):
        why = f"{spots[0].what} at {spots[0].file}:{spots[0].line}: fail open"
        reach = [path, *project.graph.dependents([path])]
        for test in _with_conftest_subtrees(project, reach):
            found.setdefault(test, why)
    return sorted(found.items())


def spot_reach(project: Project, spot: ComputedImport) -> set[str]:
    """The test files that reach a computed import: they import its file, or sit under a conftest that does."""
    return _with_conftest_subtrees(project, [spot.file, *project.graph.dependents([spot.file])])


def _with_conftest_subtrees(project: Project, files: list[str]) -> set[str]:
    test_set = set(project.tests)
    selected = {f for f in files if f in test_set}
    for f in files:
        if PurePosixPath(f).name == "conftest.py":
            selected.update(tests_under(project, str(PurePosixPath(f).parent)))
    return selected


def tests_under(project: Project, directory: str) -> list[str]:
    return [test for test in project.tests if under(test, directory)]


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
        holder = next((c for c in conftests if under(test, str(PurePosixPath(c).parent))), None)
        if holder is not None:
            found[test] = "under a conftest that imports it: " + " -> ".join(chains[holder])
    return found


def graph_tests(project: Project, path: str) -> tuple[list[str], str]:
    distances = project.graph.dependents([path])
    selected = {test for test in distances if test in project.tests}
    # A conftest that imports the module puts it in front of every test below it.
    for importer in distances:
        if PurePosixPath(importer).name == "conftest.py":
            selected.update(tests_under(project, str(PurePosixPath(importer).parent)))
    direct = sum(1 for test in selected if distances.get(test) == 1)
    return sorted(selected), f"{direct} direct, {len(selected) - direct} transitive"


def static_choice(
    project: Project, path: str, change: str, rule: str, detail: str
) -> tuple[list[str], str]:
    """The test files the static rule ``rule`` selects for ``path``, and its detail."""
    if rule == "test file":
        chosen = [path] if path in project.tests else []
        return chosen, "deleted: nothing left to run" if change == "deleted" else detail
    if rule == "conftest":
        return tests_under(project, str(PurePosixPath(path).parent)), detail
    if rule == "test data":
        holder = test_dir_holding(project, path)
        return (tests_under(project, holder) if holder is not None else []), detail
    if rule == "owners":
        owners = project.config.affected.owners
        return sorted({t for p, ts in owners.items() if matches(path, p) for t in ts}), detail
    if rule == "import graph":
        return graph_tests(project, path)
    return [], detail
