"""The per-user config cache: the configuration the gate needs, without a strict load per call.

Loading ``[tool.lanes]`` strictly (:mod:`lanes.governor.config_loader`)
costs about two interpreter starts, and the gate runs on every test command
an agent makes. So the validated suites and governor settings are cached per
``pyproject.toml`` in ``$XDG_STATE_HOME/lanekit/gate-config.json``, keyed by
the file's mtime and size: a changed config is re-read (and re-validated) by
the very next call. The cache holds only what the strict loader accepted, so
it can never loosen validation; an unreadable cache is simply a miss.

Two views derive from one strict load per changed file, written together by
:meth:`ConfigCache.update` — the one locked "re-read, evict, write" — the
gate's rows (here) and the screen's words (``suite-words.tsv``, readable
with ``os`` alone; :mod:`lanes.governor.screen.suite_words`). A row is what
:meth:`lanes.config.Config.to_dict` says of the suites and the governor
section, and :class:`CachedConfig` rebuilds it through the same rows
(:mod:`lanes.governor.settings`).

A row also keeps each pytest suite's *shape* — its paths, ``-m`` expression
and whether its command runs the whole test root, as the hook's classifier
reads the suite's command (:func:`lanes.governor.policy.suites.suite_selection`).
The governor's pytest plugin judges every agent run against those shapes;
cached, a warm run never loads the shell classifier (a dozen modules).
"""

from __future__ import annotations

import os

from lanes.governor.settings import GovernorSettings, Suite
from lanes.governor.state.debug import debug_log, user_state_dir

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from lanes.config import Config
    from lanes.governor.settings import ConfigLike

__all__ = [
    "CACHE_FILE",
    "CachedConfig",
    "ConfigCache",
    "cache_path",
    "cache_row",
    "gate_config",
    "refresh",
    "refresh_words",
]

CACHE_FILE = "gate-config.json"
# One lock for the one config cache: the gate's rows and the screen's words
# (suite-words.tsv) are written together under it.
_LOCK_FILE = "config-cache.lock"
_FORMAT = "lanekit.gate-config"
# 2: rows carry envelope_dir (what lanekit writes is left out of the tree).
# 3: rows carry the pytest suites' shapes.
_VERSION = 3
# Enough for every checkout a user works in; the oldest rows are dropped.
_MAX_PROJECTS = 32
# What the gate keeps of a validated config.
_ROW_KEYS = ("root", "suites", "governor", "envelope_dir")

# A suite's shape: (paths relative to the root, -m expression or None, full).
Shape = tuple[frozenset[str], str | None, bool]


class CachedConfig:
    """The gate's view of a validated config, rebuilt from the cache row by the rows."""

    __slots__ = ("envelope_dir", "governor", "root", "shapes", "suites")

    def __init__(self, data: dict[str, object]) -> None:
        suites = data["suites"]
        envelope_dir = data["envelope_dir"]
        shapes = data["shapes"]
        if (
            not isinstance(suites, dict)
            or not isinstance(envelope_dir, str)
            or not isinstance(shapes, dict)
        ):
            raise TypeError(data)
        self.root = str(data["root"])
        self.envelope_dir = envelope_dir
        self.suites = {
            str(name): Suite.from_dict(raw, name=str(name)) for name, raw in suites.items()
        }
        self.governor = GovernorSettings.from_dict(data["governor"])
        # The pytest suites' shapes (see the module docstring), by suite name.
        self.shapes = {str(name): _shape_of(raw) for name, raw in shapes.items()}


def _shape_of(raw: object) -> Shape:
    """A cached shape back from JSON; TypeError (a bad row: a miss) when it is not one."""
    if not isinstance(raw, dict):
        raise TypeError(raw)
    paths, markers, full = raw.get("paths"), raw.get("markers"), raw.get("full")
    if (
        not isinstance(paths, list)
        or not all(isinstance(p, str) for p in paths)
        or not (markers is None or isinstance(markers, str))
        or not isinstance(full, bool)
    ):
        raise TypeError(raw)
    return frozenset(paths), markers, full


def cache_row(config: Config) -> dict[str, object]:
    """What the gate keeps of a validated config (JSON-ready; :class:`CachedConfig` reads it)."""
    from lanes.governor.policy.suites import suite_selection  # a cache miss only

    view = config.to_dict()
    row = {key: view[key] for key in _ROW_KEYS}
    root = str(config.root)
    shapes: dict[str, object] = {}
    for suite in config.suites.values():
        if suite.runner == "pytest":
            paths, markers, full = suite_selection(suite, root)
            shapes[suite.name] = {"paths": sorted(paths), "markers": markers, "full": full}
    row["shapes"] = shapes
    return row


def cache_path() -> str:
    return os.path.join(user_state_dir(), CACHE_FILE)


class _CacheMissError(ValueError):
    """The cache file is not one we wrote: treated as empty."""


class ConfigCache:
    """The cache file's rows (path -> {stamp, config}) and its one locked update."""

    __slots__ = ()

    def rows(self) -> dict[str, object]:
        """The cached rows; empty when the file is missing or not one we wrote."""
        from lanes._jsondoc import load_object  # after the screen, like json

        try:
            # Never blocks: a FIFO here would otherwise hang every test command.
            data = load_object(cache_path(), what="gate config cache", fail=_CacheMissError)
        except _CacheMissError as exc:
            debug_log("gate-config-cache", error=str(exc))
            return {}
        if data is None or data.get("format") != _FORMAT or data.get("version") != _VERSION:
            return {}
        projects = data.get("projects")
        return projects if isinstance(projects, dict) else {}

    def cached(self, key: str, stamp: str) -> CachedConfig | None:
        """``key``'s view when its row has ``stamp``; None on a miss or a bad row."""
        row = self.rows().get(key)
        if not (isinstance(row, dict) and row.get("stamp") == stamp):
            return None
        try:
            return CachedConfig(row["config"])
        except (KeyError, TypeError, ValueError) as exc:
            debug_log("gate-config-cache", error=f"bad row for {key}: {exc!r}")
            return None

    def update(
        self,
        rows: dict[str, dict[str, object]],
        words: dict[str, tuple[str, list[bytes]]] | None = None,
    ) -> None:
        """THE write: under the one lock, re-read (another hook may have written
        other rows), put ``rows`` (newest last), evict the oldest past the cap,
        write; ``words`` (path -> (stamp, words)) go to the screen's file with them."""
        import json  # a cache miss only: reading needs no json (nor re)

        from lanes._atomic import flocked, write_atomic  # a cache miss only
        from lanes.governor.screen.prescreen import read_suite_words
        from lanes.governor.screen.suite_words import write_rows

        try:
            os.makedirs(user_state_dir(), exist_ok=True)
            with flocked(os.path.join(user_state_dir(), _LOCK_FILE)):
                projects = self.rows()
                for key, row in rows.items():
                    projects.pop(key, None)
                    projects[key] = row
                while len(projects) > _MAX_PROJECTS:
                    projects.pop(next(iter(projects)))
                document = {"format": _FORMAT, "version": _VERSION, "projects": projects}
                write_atomic(cache_path(), json.dumps(document, sort_keys=True))
                if words is not None:
                    current = read_suite_words() or {}
                    current.update(words)
                    write_rows(current)
        except OSError as exc:
            debug_log("config-cache", error=str(exc))


def refresh(
    configs: list[tuple[str, str]], *, need: str | None = None, rebuild: bool = False
) -> Config | None:
    """Bring the one config cache up to date for ``configs`` ((path, stamp) of
    every pyproject.toml above a cwd, from the one walk).

    A file whose words row is stale — or ``need``, whose gate row is — is
    loaded strictly once, and both files are rewritten together under one
    lock (``rebuild``: ``need``'s gate row is bad whatever its stamp). Returns
    the freshly loaded config of ``need``, if it was loaded.
    """
    from lanes.governor.screen.prescreen import read_suite_words

    words = read_suite_words()
    if words is None:
        return None  # an unreadable word cache: the screen passes everything on anyway
    cache = ConfigCache()
    # The gate's rows are read only for ``need``: the hook's refresh of the
    # screen's words (every full-path call) costs one small os-level read.
    projects = cache.rows() if need is not None else {}

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
    from lanes.governor.config_loader import load  # the strict loader: a miss only

    loaded = {path: load(path, os.path.dirname(path)) for path, _stamp in todo}
    stamps = dict(todo)
    cache.update(
        {
            path: {"stamp": stamps[path], "config": cache_row(one.config)}
            for path, one in loaded.items()
            if one.valid
        },
        {path: (stamps[path], one.words) for path, one in loaded.items()},
    )
    debug_log("config-cache", refreshed=list(loaded))
    return loaded[need].config if need in loaded else None


def refresh_words(cwd: str | None) -> None:
    """Bring the screen's rows of every ``pyproject.toml`` above ``cwd`` up to date
    (the hook's full path calls it, so an edited config is noticed at once)."""
    if cwd is None:
        return
    from lanes.governor.screen.prescreen import pyprojects_above

    configs = pyprojects_above(cwd)
    if configs:
        refresh(configs)


def _nearest_pyproject(cwd: str) -> tuple[str, str] | None:
    """(path, "<mtime_ns>:<size>") of the nearest pyproject.toml at or above cwd."""
    from lanes.governor.screen.prescreen import walk_pyprojects

    found, _complete = walk_pyprojects(cwd, first=True)
    return found[0] if found else None


def gate_config(cwd: str) -> ConfigLike:
    """The config governing ``cwd``: from the cache when its pyproject.toml is unchanged."""
    cache = ConfigCache()
    found = _nearest_pyproject(cwd)
    if found is None:
        # A project without pyproject.toml (an npm or Go repository): the
        # defaults, cached per directory too — building them imports
        # lanes.config, which would otherwise cost two interpreter starts on
        # every test command.
        key = f"no-pyproject:{os.path.abspath(cwd)}"
        view = cache.cached(key, "absent")
        if view is not None:
            return view
        from lanes.governor.config_loader import load  # a miss only

        loaded = load(None, cwd)
        if loaded.valid:
            cache.update({key: {"stamp": "absent", "config": cache_row(loaded.config)}})
        return loaded.config
    path, stamp = found
    view = cache.cached(path, stamp)
    if view is not None:
        return view
    # A bad row for this very stamp must be rebuilt whatever the words say.
    row = cache.rows().get(path)
    bad = isinstance(row, dict) and row.get("stamp") == stamp
    config = refresh([found], need=path, rebuild=bad)
    if config is None:
        # Not refreshed (the word cache is unreadable): load it, uncached.
        from lanes.governor.config_loader import load  # a miss only

        config = load(path, os.path.dirname(path)).config
    return config
