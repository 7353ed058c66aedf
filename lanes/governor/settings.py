"""The configuration the gate needs, without importing :mod:`lanes.config` per call.

Loading ``[tool.lanes]`` strictly (``lanes.config``: tomllib, dataclasses,
difflib, pathlib) costs about two interpreter starts, and the gate runs on
every test command an agent makes. So the validated suites and governor
settings are cached per ``pyproject.toml`` in
``$XDG_STATE_HOME/lanekit/gate-config.json``, keyed by the file's mtime and
size: a changed config is re-read (and re-validated) by the very next call.
The cache holds only what the strict loader accepted, so it can never loosen
validation; an unreadable cache is simply a miss.

The test economy reads its ``max_full``/``escalate_at`` from here too. The
gate, the recorder and suite resolution accept anything shaped like
:class:`ConfigLike` — a real :class:`lanes.config.Config` or the cached view.
"""

from __future__ import annotations

import os

from lanes.governor.state.debug import debug_log, user_state_dir

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Protocol

    class SuiteLike(Protocol):
        @property
        def name(self) -> str: ...
        @property
        def paths(self) -> tuple[str, ...]: ...
        @property
        def command(self) -> str: ...
        @property
        def max_age(self) -> int: ...
        @property
        def runner(self) -> str: ...
        @property
        def lock(self) -> bool: ...

    class GovernorLike(Protocol):
        @property
        def lock_ttl(self) -> int: ...
        @property
        def sweep_min_paths(self) -> int: ...
        @property
        def gate_runners(self) -> tuple[str, ...]: ...
        @property
        def max_full(self) -> int: ...
        @property
        def escalate_at(self) -> int: ...

    class ConfigLike(Protocol):
        @property
        def root(self) -> str | os.PathLike[str]: ...
        @property
        def suites(self) -> Mapping[str, SuiteLike]: ...
        @property
        def governor(self) -> GovernorLike: ...


__all__ = ["CACHE_FILE", "CachedConfig", "cache_path", "gate_config"]

CACHE_FILE = "gate-config.json"
_FORMAT = "lanekit.gate-config"
_VERSION = 1
# Enough for every checkout a user works in; the oldest rows are dropped.
_MAX_PROJECTS = 32


class _Suite:
    __slots__ = ("command", "lock", "max_age", "name", "paths", "runner")

    def __init__(self, data: dict[str, object]) -> None:
        paths = data["paths"]
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise TypeError(paths)
        self.name = str(data["name"])
        self.paths = tuple(paths)
        self.command = str(data["command"])
        self.max_age = _int(data["max_age"])
        self.runner = str(data["runner"])
        self.lock = data["lock"] is True


class _Governor:
    __slots__ = ("escalate_at", "gate_runners", "lock_ttl", "max_full", "sweep_min_paths")

    def __init__(self, data: dict[str, object]) -> None:
        runners = data["gate_runners"]
        if not isinstance(runners, list):
            raise TypeError(runners)
        self.lock_ttl = _int(data["lock_ttl"])
        self.sweep_min_paths = _int(data["sweep_min_paths"])
        self.gate_runners = tuple(str(r) for r in runners)
        # The test economy's knobs ride along: it runs in the same PostToolUse.
        self.max_full = _int(data["max_full"])
        self.escalate_at = _int(data["escalate_at"])


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(value)
    return value


class CachedConfig:
    """The gate's view of a validated config, rebuilt from the cache."""

    __slots__ = ("governor", "root", "suites")

    def __init__(self, data: dict[str, object]) -> None:
        suites = data["suites"]
        governor = data["governor"]
        if not isinstance(suites, dict) or not isinstance(governor, dict):
            raise TypeError(data)
        self.root = str(data["root"])
        self.suites = {str(name): _Suite(raw) for name, raw in suites.items()}
        self.governor = _Governor(governor)


def cache_path() -> str:
    return os.path.join(user_state_dir(), CACHE_FILE)


def _nearest_pyproject(cwd: str) -> tuple[str, str] | None:
    """(path, "<mtime_ns>:<size>") of the nearest pyproject.toml at or above cwd."""
    directory = os.path.abspath(cwd)
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        try:
            stat = os.stat(candidate)
        except OSError:
            stat = None
        if stat is not None and os.path.isfile(candidate):
            return candidate, f"{stat.st_mtime_ns}:{stat.st_size}"
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


class _CacheMissError(ValueError):
    """The cache file is not one we wrote: treated as empty."""


def _read_cache() -> dict[str, object]:
    from lanes._jsondoc import load_object  # noqa: PLC0415  # after the screen, like json

    try:
        # Never blocks: a FIFO here would otherwise hang every test command.
        data = load_object(cache_path(), what="gate config cache", fail=_CacheMissError)
    except _CacheMissError as exc:
        debug_log("gate-config-cache", error=str(exc))
        return {}
    if data is None or data.get("format") != _FORMAT:
        return {}
    if data.get("version") != _VERSION:
        return {}
    projects = data.get("projects")
    return projects if isinstance(projects, dict) else {}


def _write_cache(projects: dict[str, object]) -> None:
    import json  # noqa: PLC0415  # only on a cache miss: reading needs no json (nor re)

    from lanes._atomic import write_atomic  # noqa: PLC0415  # only on a cache miss

    document = {"format": _FORMAT, "version": _VERSION, "projects": projects}
    try:
        os.makedirs(user_state_dir(), exist_ok=True)
        write_atomic(cache_path(), json.dumps(document, sort_keys=True))
    except OSError as exc:
        debug_log("gate-config-cache", error=str(exc))


def _load_strict(cwd: str) -> tuple[ConfigLike, dict[str, object] | None]:
    """(config, its cache row or None): the strict loader, failing open to
    defaults (the full-sweep gate still applies, with default settings)."""
    from pathlib import Path  # noqa: PLC0415

    from lanes.config import load_config, parse_config  # noqa: PLC0415
    from lanes.errors import LanesError  # noqa: PLC0415

    try:
        config = load_config(cwd=Path(cwd))
    except LanesError as exc:
        debug_log("config-error", error=exc.message)
        return parse_config({}, root=Path(cwd)), None
    view = config.to_dict()
    row: dict[str, object] = {
        "root": view["root"],
        "suites": view["suites"],
        "governor": view["governor"],
    }
    return config, row


def gate_config(cwd: str) -> ConfigLike:
    """The config governing ``cwd``: from the cache when its pyproject.toml is unchanged."""
    found = _nearest_pyproject(cwd)
    # A project without pyproject.toml (an npm or Go repository) gets the
    # defaults, cached per directory too: building them imports lanes.config,
    # which would otherwise cost two interpreter starts on every test command.
    path, stamp = found if found is not None else (f"no-pyproject:{os.path.abspath(cwd)}", "absent")
    projects = _read_cache()
    row = projects.get(path)
    if isinstance(row, dict) and row.get("stamp") == stamp:
        try:
            return CachedConfig(row["config"])
        except (KeyError, TypeError, ValueError) as exc:
            debug_log("gate-config-cache", error=f"bad row for {path}: {exc!r}")
    config, fresh = _load_strict(cwd)
    if fresh is not None:
        projects.pop(path, None)
        projects[path] = {"stamp": stamp, "config": fresh}
        while len(projects) > _MAX_PROJECTS:
            projects.pop(next(iter(projects)))
        _write_cache(projects)
    return config
