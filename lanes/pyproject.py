"""The ``[tool.lanes]`` table of a project's pyproject.toml: where it is, and reading it.

:func:`find_pyproject` is the governor's upward walk, so the hook and every
``lanes`` command agree on which file governs. :func:`read_lanes_table`
reads one file strictly (a FIFO, ``/dev/zero``, bad UTF-8 or bad TOML is a
:class:`~lanes.errors.ConfigError` with a hint) and returns its raw
``[tool.lanes]`` table. Both :func:`lanes.config.load_config` (every section)
and the slow ratchet's pytest plugin (its own section only, see
:mod:`lanes.slow.settings`) start here; :data:`lanes.sections.LANES_KEYS` is
the one list of what ``[tool.lanes]`` may hold.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Final

from lanes._jsondoc import read_bytes
from lanes.errors import ConfigError

__all__ = ["find_pyproject", "read_lanes_table"]

# A pyproject.toml is kilobytes; a larger file is not read into memory.
_MAX_CONFIG_BYTES: Final = 16 << 20


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` (the governor's walk:
    the hook and every ``lanes`` command agree on which file governs)."""
    # Imported here: the slow ratchet's pytest plugin reads a pyproject.toml it
    # was given without searching, and importing the governor's package costs
    # every enabled test run some 3 M instructions (the bench lane holds it to 2%).
    from lanes.governor.screen.prescreen import walk_pyprojects  # noqa: PLC0415

    found, _complete = walk_pyprojects(str(start), first=True)
    return Path(found[0][0]) if found else None


def read_lanes_table(path: Path) -> object:
    """The raw ``[tool.lanes]`` table of the pyproject.toml at ``path`` ({} when absent)."""
    try:
        # Never blocks and never reads without bound: a FIFO or /dev/zero
        # given as --config is refused, not waited on.
        data = read_bytes(path, max_bytes=_MAX_CONFIG_BYTES, follow_symlinks=True)
        text = None if data is None else data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        msg = f"config file {str(path)!r} cannot be read: {exc}"
        raise ConfigError(
            msg,
            hint="pass a regular UTF-8 text file you can read (a pyproject.toml)",
        ) from None
    if text is None:
        msg = f"config file {str(path)!r} does not exist"
        raise ConfigError(
            msg,
            hint="pass --config with the path of an existing pyproject.toml, or omit it to search upward",
        )
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = f"{path} is not valid TOML: {exc}"
        raise ConfigError(
            msg,
            hint="fix the TOML syntax at the line and column shown (a TOML linter such as taplo helps)",
        ) from None
    except RecursionError:
        # tomllib recurses per nesting level of arrays and inline tables.
        msg = f"{path} nests arrays or inline tables too deeply to be a config"
        raise ConfigError(
            msg, hint="flatten the deeply nested value; no [tool.lanes] key nests more than twice"
        ) from None
    tool = document.get("tool", {})
    return tool.get("lanes", {}) if isinstance(tool, dict) else {}
