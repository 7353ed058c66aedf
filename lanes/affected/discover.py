"""Which files are tests: pytest's own collection rules, read from the project's pytest config.

A selector that decides "test file" by a name pattern of its own disagrees with
pytest both ways: a product module named like a test
(``lanes/governor/classify/test_roots.py``) is not collected when
``testpaths = ["tests"]``, and tests that live inside the package
(``pkg/tests/test_*.py``, found through ``testpaths = ["pkg"]``) are, wherever
lanekit's default suite looks. So the rules here are pytest's, from the same
config file pytest would read at the root (``pytest.ini``, ``.pytest.ini``,
``pyproject.toml`` ``[tool.pytest.ini_options]``, ``tox.ini`` ``[pytest]``,
``setup.cfg`` ``[tool:pytest]``, first found wins, as pytest's rootdir search
does): ``testpaths`` (globs allowed), ``python_files``, ``norecursedirs`` and
the doctest options in ``addopts`` (``--doctest-glob``, whose default
``test*.txt`` pytest collects even unasked, and ``--doctest-modules``).

Deriving beats ``pytest --collect-only``: it reads one small file instead of
importing every test module, and it answers for deleted and not-yet-written
files too.
"""

from __future__ import annotations

import configparser
import fnmatch
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

__all__ = ["PytestRules", "read_rules"]

# pytest's defaults (`pytest --help`, "[pytest] ini-options").
_DEFAULT_NORECURSE = (
    "*.egg",
    ".*",
    "_darcs",
    "build",
    "CVS",
    "dist",
    "node_modules",
    "venv",
    "{arch}",
)
_DEFAULT_DOCTEST_GLOB = "test*.txt"


@dataclass(frozen=True)
class PytestRules:
    """What pytest, run without arguments at the root, would collect."""

    source: str  # the config file the rules come from, or "pytest defaults"
    testpaths: tuple[str, ...]  # empty: the whole root
    python_files: tuple[str, ...]
    norecursedirs: tuple[str, ...]
    doctest_globs: tuple[str, ...]
    doctest_modules: bool
    extra_paths: tuple[str, ...] = ()  # suites' explicit paths: `pytest PATH` collects there too
    # How pytest imports test modules and conftests (`--import-mode`): "prepend"
    # and "append" put each one's base directory on sys.path, "importlib" does not.
    import_mode: str = "prepend"
    pythonpath: tuple[str, ...] = ()  # the `pythonpath` ini option: put on sys.path first

    def _in_scope(self, path: str) -> bool:
        parts = PurePosixPath(path).parts
        # A directory pytest does not recurse into hides everything below it.
        if any(fnmatch.fnmatchcase(part, p) for part in parts[:-1] for p in self.norecursedirs):
            return False
        roots = (*self.testpaths, *self.extra_paths)
        if not self.testpaths:
            return True
        return any(_under_glob(path, root) for root in roots)

    def is_test(self, path: str) -> bool:
        """A test module, or a text file collected for its doctests (``--doctest-glob``)."""
        if not self._in_scope(path):
            return False
        name = PurePosixPath(path).name
        if path.endswith(".py"):
            return any(_name_matches(path, name, p) for p in self.python_files)
        return any(fnmatch.fnmatchcase(name, p) for p in self.doctest_globs)

    def describe(self) -> str:
        where = ", ".join(self.testpaths) if self.testpaths else "the whole root"
        return (
            f"pytest's rules from {self.source}: testpaths {where}; "
            f"python_files {' '.join(self.python_files)}"
        )

    def test_dirs(self, tests: Iterable[str]) -> frozenset[str]:
        """Every directory below the root that holds a test, at any depth, and the testpaths."""
        dirs: set[str] = {p.rstrip("/") for p in self.testpaths if p not in ("", ".")}
        for test in tests:
            for parent in PurePosixPath(test).parents:
                if str(parent) != ".":
                    dirs.add(str(parent))
        return frozenset(dirs)


def _under_glob(path: str, root: str) -> bool:
    root = root.rstrip("/")
    if root in ("", "."):
        return True
    parents = [str(p) for p in PurePosixPath(path).parents]
    return path == root or any(fnmatch.fnmatchcase(parent, root) for parent in parents)


def _name_matches(path: str, name: str, pattern: str) -> bool:
    # pytest's fnmatch_ex: a pattern with a separator matches the whole path.
    if "/" in pattern:
        return fnmatch.fnmatchcase(path, f"*{pattern}") or fnmatch.fnmatchcase(path, pattern)
    return fnmatch.fnmatchcase(name, pattern)


def _ini_value(value: object) -> tuple[str, ...]:
    """An ini value: a TOML list, or a whitespace-separated string (ini files)."""
    if isinstance(value, list):
        return tuple(str(item) for item in value)
    if isinstance(value, str):
        return tuple(shlex.split(value))
    return ()


def _read_section(root: Path) -> tuple[str, dict[str, object]] | None:
    """The first pytest config pytest itself would pick at ``root``, and its options."""
    import tomllib  # noqa: PLC0415  # only when a plan is made

    for name, section in (
        ("pytest.ini", "pytest"),
        (".pytest.ini", "pytest"),
        ("pyproject.toml", None),
        ("tox.ini", "pytest"),
        ("setup.cfg", "tool:pytest"),
    ):
        path = root / name
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if section is None:
            try:
                document = tomllib.loads(text)
            except tomllib.TOMLDecodeError:
                continue
            options = document.get("tool", {}).get("pytest", {}).get("ini_options")
            if isinstance(options, dict):
                return name, dict(options)
            continue
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text, source=name)
        except configparser.Error:
            continue
        if parser.has_section(section):
            return name, dict(parser.items(section))
        if name in ("pytest.ini", ".pytest.ini"):
            # pytest takes a pytest.ini even without a [pytest] section.
            return name, {}
    return None


def _doctest_options(addopts: tuple[str, ...]) -> tuple[tuple[str, ...], bool]:
    globs: list[str] = []
    modules = False
    args = iter(addopts)
    for arg in args:
        if arg == "--doctest-modules":
            modules = True
        elif arg == "--doctest-glob":
            globs.append(next(args, ""))
        elif arg.startswith("--doctest-glob="):
            globs.append(arg.split("=", 1)[1])
    return tuple(g for g in globs if g) or (_DEFAULT_DOCTEST_GLOB,), modules


def _import_mode(addopts: tuple[str, ...]) -> str:
    mode = "prepend"
    args = iter(addopts)
    for arg in args:
        if arg == "--import-mode":
            mode = next(args, mode)
        elif arg.startswith("--import-mode="):
            mode = arg.split("=", 1)[1]
    return mode


def read_rules(
    root: Path, fallback_patterns: tuple[str, ...], extra_paths: Iterable[str] = ()
) -> PytestRules:
    """pytest's collection rules for ``root``; ``fallback_patterns`` when no config sets ``python_files``."""
    found = _read_section(root)
    source, options = found if found is not None else ("pytest defaults", {})
    python_files = _ini_value(options.get("python_files")) or fallback_patterns
    norecurse = _ini_value(options.get("norecursedirs")) or _DEFAULT_NORECURSE
    addopts = _ini_value(options.get("addopts"))
    globs, modules = _doctest_options(addopts)
    return PytestRules(
        source=source,
        testpaths=_ini_value(options.get("testpaths")),
        python_files=python_files,
        norecursedirs=norecurse,
        doctest_globs=globs,
        doctest_modules=modules,
        extra_paths=tuple(extra_paths),
        import_mode=_import_mode(addopts),
        pythonpath=_ini_value(options.get("pythonpath")),
    )
