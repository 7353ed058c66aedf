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

from lanes.governor.classify.runners.names import DEFAULT_TEST_COMMANDS
from lanes.governor.state.debug import debug_log, user_state_dir

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Protocol

    from lanes.config import Config
    from lanes.config_table import ConfigTable

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

    class ConfigLike(Protocol):
        @property
        def root(self) -> str | os.PathLike[str]: ...
        @property
        def suites(self) -> Mapping[str, SuiteLike]: ...
        @property
        def governor(self) -> GovernorSettings: ...
        @property
        def envelope_dir(self) -> str: ...


__all__ = [
    "CACHE_FILE",
    "ENV_OVERRIDES",
    "FIELDS",
    "KEYS",
    "CachedConfig",
    "GovernorSettings",
    "cache_path",
    "cache_row",
    "gate_config",
    "reference",
    "refresh",
]

CACHE_FILE = "gate-config.json"
# One lock for the one config cache: the gate's rows and the screen's words
# (suite-words.tsv) are written together under it.
_LOCK_FILE = "config-cache.lock"
_FORMAT = "lanekit.gate-config"
# 2: rows carry envelope_dir (what lanekit writes is left out of the tree).
_VERSION = 2
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


class _Setting:
    """One row of the governor's settings table: a ``[tool.lanes.governor]`` key.

    The row is the whole definition of the setting: the attribute (this is a
    descriptor), its type and bounds, its default, the environment variable
    that overrides it (if any), the strict parse with did-you-mean (through
    ``lanes.config``'s table reader, on a cache miss only), the cache row and
    the one-line documentation (the README's settings table is :func:`reference`,
    checked by tests/governor/test_settings_table.py).
    """

    __slots__ = ("default", "doc", "env", "minimum", "name")

    def __init__(
        self, default: object, *, doc: str, minimum: int = 0, env: str | None = None
    ) -> None:
        self.name = ""
        self.default = default
        self.doc = doc
        self.minimum = minimum
        self.env = env

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def parse(self, table: ConfigTable) -> object:
        """The strictly validated value of this key in ``table`` (or the default)."""
        raise NotImplementedError

    def from_row(self, value: object) -> object:
        """The value from a cache row; TypeError when it is not one we wrote."""
        raise NotImplementedError


class _Int(_Setting):
    """A whole number ``>= minimum``; the environment variable, when set to a
    whole number, wins over the file (anything else there is ignored)."""

    __slots__ = ()

    def __get__(self, settings: object, owner: type | None = None) -> int:
        value: int = self.default if settings is None else settings._values[self.name]  # type: ignore[attr-defined, assignment]  # a GovernorSettings
        return value

    def parse(self, table: ConfigTable) -> object:
        return table.integer(self.name, _int(self.default), minimum=self.minimum)

    def from_row(self, value: object) -> object:
        return _int(value)

    def from_environment(self, environ: Mapping[str, str]) -> int | None:
        """The override in ``environ``: None when unset or not a whole number."""
        text = environ.get(self.env, "").strip() if self.env else ""
        return int(text) if text.isdigit() else None


class _Runners(_Setting):
    """A list of runner names the classifier knows (``pytest``, ``cargo`` ...)."""

    __slots__ = ()

    def __get__(self, settings: object, owner: type | None = None) -> tuple[str, ...]:
        value: tuple[str, ...] = self.default if settings is None else settings._values[self.name]  # type: ignore[attr-defined, assignment]  # a GovernorSettings
        return value

    def parse(self, table: ConfigTable) -> object:
        from lanes.governor.classify.runners.names import RUNNERS

        default = self.from_row(self.default)
        runners = table.strings(self.name, default)
        for runner in runners:
            if runner not in RUNNERS:
                allowed = "a list of runner names: " + ", ".join(RUNNERS)
                raise table._bad(self.name, list(runners), allowed, default=default)
        return runners

    def from_row(self, value: object) -> tuple[str, ...]:
        if not isinstance(value, list | tuple) or not all(isinstance(r, str) for r in value):
            raise TypeError(value)
        return tuple(value)


class _Commands(_Setting):
    """A list of shell command forms (non-empty strings)."""

    __slots__ = ()

    def __get__(self, settings: object, owner: type | None = None) -> tuple[str, ...]:
        value: tuple[str, ...] = self.default if settings is None else settings._values[self.name]  # type: ignore[attr-defined, assignment]  # a GovernorSettings
        return value

    def parse(self, table: ConfigTable) -> object:
        return table.strings(self.name, self.from_row(self.default))

    def from_row(self, value: object) -> tuple[str, ...]:
        if not isinstance(value, list | tuple) or not all(
            isinstance(form, str) and form.split() for form in value
        ):
            raise TypeError(value)
        return tuple(value)


class _Choice(_Setting):
    """One of a closed set of words (the first is the default)."""

    __slots__ = ("choices",)

    def __init__(self, choices: tuple[str, ...], *, doc: str) -> None:
        super().__init__(choices[0], doc=doc)
        self.choices = choices

    def __get__(self, settings: object, owner: type | None = None) -> str:
        value: str = self.default if settings is None else settings._values[self.name]  # type: ignore[attr-defined, assignment]  # a GovernorSettings
        return value

    def parse(self, table: ConfigTable) -> object:
        return table.string(self.name, self.from_row(self.default), choices=self.choices)

    def from_row(self, value: object) -> str:
        if value not in self.choices:
            raise TypeError(value)
        return str(value)


class GovernorSettings:
    """``[tool.lanes.governor]``: THE table — one line per setting.

    ``lanes.config.GovernorConfig`` is this class, the gate's cached view
    builds it from the cache row, and ``[tool.lanes.governor]``'s known keys,
    parse, defaults, environment overrides and documentation all come from
    these rows. Adding a setting is adding a row (and using it).
    """

    __slots__ = ("_values",)

    # fmt: off
    max_full = _Int(2, minimum=0, env="LANES_MAX_FULL", doc="full-suite runs per agent session before the test economy's nudge")
    escalate_at = _Int(5, minimum=1, env="LANES_ESCALATE_AT", doc="the full run from which every full run gets the STOP form (> max_full)")
    lock_ttl = _Int(1800, minimum=1, doc="seconds after which a run lock frees even when its owner lives")
    sweep_min_paths = _Int(3, minimum=1, doc="path selectors from which a gated runner's run counts as a full sweep")
    gate_runners = _Runners(("pytest", "unittest"), doc="runners whose full sweeps the gate blocks")
    tree_timeout = _Int(20, minimum=1, doc="seconds the tree digest may wait for git before the gate fails open")
    test_commands = _Commands(DEFAULT_TEST_COMMANDS, doc="wrapper commands that run the whole test suite (tox, nox -s tests, make test, lanes slow run): full test runs to the economy")
    enforce = _Choice(("agents", "always", "off"), doc="whose pytest runs the governor's pytest plugin governs: an agent's (agents), everyone's (always), nobody's (off)")
    sweep_share = _Int(90, minimum=1, doc="percent of a suite's items (or test files) from which a pytest run counts as a sweep of it")
    # fmt: on

    def __init__(self, **values: object) -> None:
        unknown = set(values) - set(KEYS)
        if unknown:
            msg = f"unknown governor settings: {sorted(unknown)}"
            raise TypeError(msg)
        self._values = {row.name: values.get(row.name, row.default) for row in FIELDS}

    @classmethod
    def parse(cls, table: ConfigTable) -> GovernorSettings:
        """Validate ``[tool.lanes.governor]`` (``table`` knows :data:`KEYS`)."""
        values = {row.name: row.parse(table) for row in FIELDS}
        settings = cls(**values)
        if settings.escalate_at <= settings.max_full:
            from lanes.errors import ConfigError

            msg = (
                f"[{table.name}] escalate_at must be greater than max_full "
                f"({settings.max_full!r}), got {settings.escalate_at!r}"
            )
            raise ConfigError(
                msg,
                hint="the STOP form follows the nudge: set escalate_at to at least max_full + 1",
            )
        return settings

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> GovernorSettings:
        """From a cache row; KeyError/TypeError when it is not one we wrote."""
        return cls(**{row.name: row.from_row(data[row.name]) for row in FIELDS})

    def to_dict(self) -> dict[str, object]:
        return {
            name: list(value) if isinstance(value, tuple) else value
            for name, value in self._values.items()
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GovernorSettings):
            return NotImplemented
        return self._values == other._values

    def __hash__(self) -> int:
        return hash(tuple(self._values.items()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={value!r}" for name, value in self._values.items())
        return f"GovernorSettings({inner})"


FIELDS: tuple[_Setting, ...] = tuple(
    row for row in vars(GovernorSettings).values() if isinstance(row, _Setting)
)
KEYS: tuple[str, ...] = tuple(row.name for row in FIELDS)
ENV_OVERRIDES: tuple[_Int, ...] = tuple(
    row for row in FIELDS if isinstance(row, _Int) and row.env is not None
)


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(value)
    return value


class CachedConfig:
    """The gate's view of a validated config, rebuilt from the cache."""

    __slots__ = ("envelope_dir", "governor", "root", "suites")

    def __init__(self, data: dict[str, object]) -> None:
        suites = data["suites"]
        governor = data["governor"]
        envelope_dir = data["envelope_dir"]
        if (
            not isinstance(suites, dict)
            or not isinstance(governor, dict)
            or not isinstance(envelope_dir, str)
        ):
            raise TypeError(data)
        self.root = str(data["root"])
        self.envelope_dir = envelope_dir
        self.suites = {str(name): _Suite(raw) for name, raw in suites.items()}
        self.governor = GovernorSettings.from_dict(governor)


def cache_path() -> str:
    return os.path.join(user_state_dir(), CACHE_FILE)


def _nearest_pyproject(cwd: str) -> tuple[str, str] | None:
    """(path, "<mtime_ns>:<size>") of the nearest pyproject.toml at or above cwd."""
    from lanes.governor.screen.prescreen import walk_pyprojects

    found, _complete = walk_pyprojects(cwd, first=True)
    return found[0] if found else None


class _CacheMissError(ValueError):
    """The cache file is not one we wrote: treated as empty."""


def _read_cache() -> dict[str, object]:
    from lanes._jsondoc import load_object  # after the screen, like json

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
    import json  # only on a cache miss: reading needs no json (nor re)

    from lanes._atomic import write_atomic  # only on a cache miss

    document = {"format": _FORMAT, "version": _VERSION, "projects": projects}
    try:
        os.makedirs(user_state_dir(), exist_ok=True)
        write_atomic(cache_path(), json.dumps(document, sort_keys=True))
    except OSError as exc:
        debug_log("gate-config-cache", error=str(exc))


def _load(path: str | None, cwd: str) -> tuple[ConfigLike, dict[str, object] | None, list[bytes]]:
    """One strict load: (config, its gate row or None, its screen words).

    ``path`` is the pyproject.toml (None: there is none, the defaults rooted at
    ``cwd``). A config that does not load fails open to the defaults (the
    full-sweep gate still applies, with default settings), caches no gate
    row, and its words are ``[*]`` (the screen may drop nothing).
    """
    from pathlib import Path

    from lanes.config import load_config, parse_config
    from lanes.errors import LanesError
    from lanes.governor.screen.prescreen import EVERYTHING
    from lanes.governor.screen.suite_words import words_of

    try:
        config = load_config(Path(path)) if path is not None else load_config(cwd=Path(cwd))
    except LanesError as exc:
        debug_log("config-error", error=exc.message)
        return parse_config({}, root=Path(cwd)), None, [EVERYTHING]
    return config, cache_row(config), words_of(config)


def cache_row(config: Config) -> dict[str, object]:
    """What the gate keeps of a validated config (JSON-ready; :class:`CachedConfig` reads it)."""
    view = config.to_dict()
    return {key: view[key] for key in ("root", "suites", "governor", "envelope_dir")}


def refresh(
    configs: list[tuple[str, str]], *, need: str | None = None, rebuild: bool = False
) -> ConfigLike | None:
    """Bring the one config cache up to date for ``configs`` ((path, stamp) of
    every pyproject.toml above a cwd, from the one walk).

    Both cached views derive from it: the gate's rows (``gate-config.json``)
    and the screen's words (``suite-words.tsv``, readable with ``os`` alone).
    A file whose words row is stale — or ``need``, whose gate row is — is
    loaded strictly once, and both files are rewritten together under one
    lock (``rebuild``: ``need``'s gate row is bad whatever its stamp). Returns
    the freshly loaded config of ``need``, if it was loaded.
    """
    from lanes._atomic import flocked
    from lanes.governor.screen.prescreen import read_suite_words
    from lanes.governor.screen.suite_words import write_rows

    words = read_suite_words()
    if words is None:
        return None  # an unreadable word cache: the screen passes everything on anyway
    # The gate's rows are read only for ``need``: the hook's refresh of the
    # screen's words (every full-path call) costs one small os-level read.
    projects = _read_cache() if need is not None else {}

    def stale(path: str, stamp: str) -> bool:
        if words.get(path, ("",))[0] != stamp:
            return True
        if path != need:
            return False
        row = projects.get(path)
        return rebuild or not (isinstance(row, dict) and row.get("stamp") == stamp)

    todo = [(path, stamp) for path, stamp in configs if stale(path, stamp)]
    if not todo:
        return None
    loaded = {path: (stamp, *_load(path, os.path.dirname(path))) for path, stamp in todo}
    try:
        os.makedirs(user_state_dir(), exist_ok=True)
        with flocked(os.path.join(user_state_dir(), _LOCK_FILE)):
            # Re-read under the lock: another hook may have written other rows.
            projects = _read_cache()
            current = read_suite_words() or {}
            for path, (stamp, _config, row, path_words) in loaded.items():
                current[path] = (stamp, path_words)
                if row is not None:
                    projects.pop(path, None)
                    projects[path] = {"stamp": stamp, "config": row}
            while len(projects) > _MAX_PROJECTS:
                projects.pop(next(iter(projects)))
            _write_cache(projects)
            write_rows(current)
    except OSError as exc:
        debug_log("config-cache", error=str(exc))
    debug_log("config-cache", refreshed=list(loaded))
    return loaded[need][1] if need in loaded else None


def gate_config(cwd: str) -> ConfigLike:
    """The config governing ``cwd``: from the cache when its pyproject.toml is unchanged."""
    found = _nearest_pyproject(cwd)
    if found is None:
        return _defaults_for(cwd)
    path, stamp = found
    row = _read_cache().get(path)
    bad = False
    if isinstance(row, dict) and row.get("stamp") == stamp:
        try:
            return CachedConfig(row["config"])
        except (KeyError, TypeError, ValueError) as exc:
            debug_log("gate-config-cache", error=f"bad row for {path}: {exc!r}")
            bad = True
    config = refresh([found], need=path, rebuild=bad)
    if config is None:
        # Not refreshed (the word cache is unreadable): load it, uncached.
        config = _load(path, os.path.dirname(path))[0]
    return config


def _defaults_for(cwd: str) -> ConfigLike:
    """A project without pyproject.toml (an npm or Go repository): the
    defaults, cached per directory too — building them imports lanes.config,
    which would otherwise cost two interpreter starts on every test command."""
    from lanes._atomic import flocked

    path = f"no-pyproject:{os.path.abspath(cwd)}"
    projects = _read_cache()
    row = projects.get(path)
    if isinstance(row, dict) and row.get("stamp") == "absent":
        try:
            return CachedConfig(row["config"])
        except (KeyError, TypeError, ValueError) as exc:
            debug_log("gate-config-cache", error=f"bad row for {path}: {exc!r}")
    config, fresh, _words = _load(None, cwd)
    if fresh is not None:
        try:
            os.makedirs(user_state_dir(), exist_ok=True)
            with flocked(os.path.join(user_state_dir(), _LOCK_FILE)):
                projects = _read_cache()
                projects.pop(path, None)
                projects[path] = {"stamp": "absent", "config": fresh}
                while len(projects) > _MAX_PROJECTS:
                    projects.pop(next(iter(projects)))
                _write_cache(projects)
        except OSError as exc:
            debug_log("config-cache", error=str(exc))
    return config


def reference() -> str:
    """The README's ``[tool.lanes.governor]`` table, generated from the rows."""
    lines = ["| key | default | what it sets |", "|---|---|---|"]
    for row in FIELDS:
        default = row.default
        if isinstance(default, tuple):
            shown = "[" + ", ".join(f'"{item}"' for item in default) + "]"
        else:
            shown = str(default)
        env = f" (environment: `{row.env}`)" if row.env else ""
        lines.append(f"| `{row.name}` | `{shown}` | {row.doc}{env} |")
    return "\n".join(lines)
