"""What ``lanes init`` learns about a user's project before writing anything.

Read-only: the project's name, where its tests live (pytest's ``testpaths``
wherever pytest would read it, else the usual directories), and how its test
dependencies are declared — an extra, a dependency group, a requirements file
or tox's ``deps`` — so the scaffolded nox sessions install what the project's
own tests import. A suite whose dependencies were skipped would not fail: its
tests would be skipped or error at import, and the lanes would measure a
different suite than the one the project runs.
"""

from __future__ import annotations

import configparser
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from lanes._jsondoc import failing_with
from lanes._textdoc import load_toml, read_text
from lanes.errors import ConfigError

__all__ = ["DependencySource", "Project", "detect_project"]

# Names projects give their test dependencies, in order of preference.
_TEST_NAMES: Final = ("tests", "test", "testing", "dev")
_TEST_DIRS: Final = ("tests", "test", "testing")
# Sub-directories of a test directory that are suites of their own.
_SUITE_DIRS: Final = ("unit", "integration", "functional", "e2e", "system", "acceptance")


@dataclass(frozen=True)
class DependencySource:
    """One way the project declares its test dependencies (what nox installs)."""

    kind: str  # "extra", "group", "requirements" or "tox-deps"
    value: str | tuple[str, ...]

    def describe(self) -> str:
        if self.kind == "tox-deps":
            return "tox.ini [testenv] deps"
        return f"{self.kind} {self.value!r}"


@dataclass(frozen=True)
class Project:
    root: Path
    name: str | None
    pyproject: dict[str, Any]
    # (suite name, paths); never empty.
    suites: tuple[tuple[str, tuple[str, ...]], ...]
    test_dependencies: tuple[DependencySource, ...] = ()
    # Declared pytest markers (name only), for tiers.
    markers: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())


def _read_pyproject(root: Path) -> dict[str, Any]:
    path = root / "pyproject.toml"
    # Strict (lanes._textdoc): a FIFO or /dev/zero at pyproject.toml is
    # refused at once instead of hanging init or filling memory.
    document = load_toml(
        path,
        what=str(path),
        fail=failing_with(
            ConfigError,
            "make pyproject.toml a regular UTF-8 TOML file (fix the syntax at the line and "
            "column shown): lanes init appends to the file and must parse it",
        ),
    )
    return {} if document is None else document


def _ini(path: Path) -> configparser.ConfigParser | None:
    text = read_text(
        path,
        what=str(path),
        fail=failing_with(ConfigError, f"make {path.name} a regular UTF-8 file, or move it aside"),
    )
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text or "", source=str(path))
    except configparser.Error:
        return None
    return parser


def _split(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list):
        return tuple(str(item) for item in value if str(item).strip())
    return ()


def _pytest_ini(root: Path, pyproject: dict[str, Any]) -> dict[str, object]:
    """pytest's ini options, from the file pytest itself would read first."""
    for name, section in (("pytest.ini", "pytest"), (".pytest.ini", "pytest")):
        parser = _ini(root / name) if (root / name).is_file() else None
        if parser is not None and parser.has_section(section):
            return dict(parser.items(section))
    options = pyproject.get("tool", {}).get("pytest", {}).get("ini_options")
    if isinstance(options, dict):
        return options
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        parser = _ini(root / name) if (root / name).is_file() else None
        if parser is not None and parser.has_section(section):
            return dict(parser.items(section))
    return {}


def _markers(ini: dict[str, object]) -> tuple[str, ...]:
    raw = ini.get("markers", ())
    lines = raw.splitlines() if isinstance(raw, str) else _split(raw)
    names = [re.split(r"[:(\s]", line.strip(), maxsplit=1)[0] for line in lines]
    return tuple(name for name in names if name)


def _has_tests(directory: Path) -> bool:
    return any(directory.rglob("test_*.py")) or any(directory.rglob("*_test.py"))


def _suites(
    root: Path, ini: dict[str, object]
) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], list[str]]:
    notes: list[str] = []
    testpaths = tuple(p.strip("/") for p in _split(ini.get("testpaths")) if (root / p).exists())
    if not testpaths:
        testpaths = tuple(name for name in _TEST_DIRS if (root / name).is_dir())[:1]
        if testpaths:
            # The lanes.fuzz plugin replays the promoted corpus in a whole-suite
            # run only: without testpaths, a CI's `pytest test` is not one, and
            # a promoted case would never fail the build it was promoted for.
            notes.append(
                f"no pytest testpaths: `pytest {testpaths[0]}` replays the fuzz corpus "
                "(baselines/fuzz-regressions.json) only once it is the whole suite; add "
                f'testpaths = ["{testpaths[0]}"] to [tool.pytest.ini_options], or run CI\'s '
                f"pytest as `pytest --fuzz-corpus=on {testpaths[0]}`"
            )
    if not testpaths:
        notes.append("no testpaths and no tests/ directory: the suite 'tests' points at tests/")
        return (("tests", ("tests",)),), notes
    if len(testpaths) == 1:
        top = root / testpaths[0]
        parts = [name for name in _SUITE_DIRS if (top / name).is_dir() and _has_tests(top / name)]
        if parts:
            return tuple((name, (f"{testpaths[0]}/{name}",)) for name in parts), notes
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", Path(testpaths[0]).name) or "tests"
    return ((name, testpaths),), notes


def _test_dependencies(root: Path, pyproject: dict[str, Any]) -> tuple[DependencySource, ...]:
    found: list[DependencySource] = []
    project = pyproject.get("project", {})
    extras = project.get("optional-dependencies", {}) if isinstance(project, dict) else {}
    if isinstance(extras, dict):
        extra = next((name for name in _TEST_NAMES if name in extras), None)
        if extra is not None:
            found.append(DependencySource("extra", extra))
    groups = pyproject.get("dependency-groups", {})
    if isinstance(groups, dict):
        group = next((name for name in _TEST_NAMES if name in groups), None)
        if group is not None:
            found.append(DependencySource("group", group))
    if not found:
        for pattern in (
            "requirements-test*.txt",
            "requirements/test*.txt",
            "test-requirements*.txt",
        ):
            found.extend(
                DependencySource("requirements", path.relative_to(root).as_posix())
                for path in sorted(root.glob(pattern))
            )
    if not found:
        deps = _tox_deps(root)
        if deps:
            found.append(DependencySource("tox-deps", deps))
    return tuple(found)


def _tox_deps(root: Path) -> tuple[str, ...]:
    """Plain requirements from tox.ini's ``[testenv] deps`` (factor-conditional lines skipped)."""
    parser = _ini(root / "tox.ini") if (root / "tox.ini").is_file() else None
    if parser is None or not parser.has_option("testenv", "deps"):
        return ()
    deps: list[str] = []
    for raw in parser.get("testenv", "deps").splitlines():
        line = raw.split("#", 1)[0].strip()
        # "py311: x" is for one factor; "{...}" needs tox's substitution.
        if not line or re.match(r"^[\w,{}.-]+:\s", line) or "{" in line:
            continue
        deps.extend(shlex.split(line) if line.startswith("-") else [line])
    return tuple(deps)


def detect_project(root: Path) -> Project:
    pyproject = _read_pyproject(root)
    project = pyproject.get("project", {})
    name = project.get("name") if isinstance(project, dict) else None
    ini = _pytest_ini(root, pyproject)
    suites, notes = _suites(root, ini)
    return Project(
        root=root,
        name=name if isinstance(name, str) else None,
        pyproject=pyproject,
        suites=suites,
        test_dependencies=_test_dependencies(root, pyproject),
        markers=_markers(ini),
        notes=tuple(notes),
    )
