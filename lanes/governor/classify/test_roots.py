"""The project's test roots: which path selectors mean "the whole suite".

``pytest tests`` is not a filtered run when ``tests`` is where all the tests
live. The roots are pytest's ``testpaths`` when the project configures them
(``pytest.ini``, ``.pytest.ini``, ``pyproject.toml``, ``tox.ini``,
``setup.cfg`` — in pytest's own order of precedence), else the conventional
``tests``, ``test`` and ``testing``; ``.`` is always the whole tree.

Config files are read only when a path selector needs the check, and once per
root per process. ``tomllib`` is imported only for a ``pyproject.toml`` that
mentions pytest. An unreadable or malformed file counts as unconfigured: the
classifier never raises.
"""

from __future__ import annotations

import os

from lanes.governor.classify.runners.argscan import normalise_path

__all__ = ["DEFAULT_ROOTS", "covers_whole_tree", "testpaths"]

DEFAULT_ROOTS = ("tests", "test", "testing")
_MAX_CONFIG_BYTES = 1 << 20

_cache: dict[str, tuple[str, ...] | None] = {}


def testpaths(root: str | None) -> tuple[str, ...] | None:
    """The configured ``testpaths`` under ``root`` (normalised), or ``None``."""
    if root is None:
        return None
    try:
        return _cache[root]
    except KeyError:
        pass
    try:
        found = _read_testpaths(root)
    except Exception:  # noqa: BLE001  # fail open: a broken config means "unconfigured"
        found = None
    _cache[root] = found
    return found


def covers_whole_tree(paths: list[str], root: str | None) -> bool:
    """Whether these normalised path selectors together name the whole test root.

    Without configured ``testpaths`` any of ``.``, ``tests``, ``test``,
    ``testing`` is the whole. With them, every configured path must be
    covered by a selector that is it or one of its parent directories.
    """
    if "." in paths:
        return True
    configured = testpaths(root)
    if not configured:
        return any(path in DEFAULT_ROOTS for path in paths)
    return all(any(_covers(path, wanted) for path in paths) for wanted in configured)


def _covers(path: str, wanted: str) -> bool:
    return wanted == path or wanted.startswith(path + "/")


def _read_testpaths(root: str) -> tuple[str, ...] | None:
    for name in ("pytest.ini", ".pytest.ini"):
        text = _read(os.path.join(root, name))
        if text is not None:
            # pytest.ini wins even when it has no [pytest] section.
            return _normalised(_ini_value(text, "pytest", "testpaths"))
    text = _read(os.path.join(root, "pyproject.toml"))
    if text is not None and "tool.pytest" in text:
        found = _toml_testpaths(text)
        if found is not _UNCONFIGURED:
            return _normalised(found)
    text = _read(os.path.join(root, "tox.ini"))
    if text is not None and _ini_has_section(text, "pytest"):
        return _normalised(_ini_value(text, "pytest", "testpaths"))
    text = _read(os.path.join(root, "setup.cfg"))
    if text is not None and _ini_has_section(text, "tool:pytest"):
        return _normalised(_ini_value(text, "tool:pytest", "testpaths"))
    return None


_UNCONFIGURED: list[str] = []


def _toml_testpaths(text: str) -> list[str] | None:
    """``testpaths`` of ``[tool.pytest.ini_options]`` or pytest 9's ``[tool.pytest]``.

    Returns ``_UNCONFIGURED`` when neither table exists (pytest then looks at
    the next file), ``None`` when the table exists without ``testpaths``.
    """
    import tomllib  # only for projects whose pyproject configures pytest

    tool = tomllib.loads(text).get("tool", {})
    pytest_table = tool.get("pytest") if isinstance(tool, dict) else None
    if not isinstance(pytest_table, dict):
        return _UNCONFIGURED
    for table in (pytest_table.get("ini_options"), pytest_table):
        if isinstance(table, dict) and "testpaths" in table:
            value = table["testpaths"]
            if isinstance(value, str):
                return value.split()
            if isinstance(value, list):
                return [item for item in value if isinstance(item, str)]
    return None


def _normalised(paths: list[str] | None) -> tuple[str, ...] | None:
    if not paths:
        return None
    return tuple(sorted({normalise_path(path) for path in paths}))


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:  # os.path only: pathlib costs an import
            data = handle.read(_MAX_CONFIG_BYTES)
    except OSError:
        return None
    return data.decode("utf-8", "replace")


def _ini_has_section(text: str, section: str) -> bool:
    header = f"[{section}]"
    return any(line.strip() == header for line in text.splitlines())


def _ini_value(text: str, section: str, key: str) -> list[str] | None:
    """A whitespace-separated INI value, continuation lines included.

    Deliberately not :mod:`configparser`: it raises on duplicate keys and
    sections that pytest itself tolerates, and this needs one key.
    """
    header = f"[{section}]"
    in_section = False
    collecting = False
    words: list[str] = []
    for raw in text.splitlines():
        stripped = raw.strip()
        if stripped.startswith("["):
            if collecting:
                break
            in_section = stripped == header
            continue
        if not in_section or stripped.startswith(("#", ";")):
            continue
        if collecting:
            if raw[:1] in (" ", "\t") and stripped:
                words.extend(_uncommented(stripped).split())
                continue
            if stripped:
                break
            continue
        name, sep, value = stripped.partition("=")
        if not sep:
            name, sep, value = stripped.partition(":")
        if sep and name.strip() == key:
            words.extend(_uncommented(value).split())
            collecting = True
    return words if collecting else None


def _uncommented(value: str) -> str:
    """``tests  # the suite`` -> ``tests``: an inline comment is no test path."""
    for marker in (" #", " ;", "\t#", "\t;"):
        value = value.partition(marker)[0]
    return "" if value.lstrip().startswith(("#", ";")) else value
