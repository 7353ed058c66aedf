"""A broken ``[tool.lanes]`` is told to the agent once, as advice.

The governor fails open on a config it cannot load: it governs with the
defaults (the full-sweep gate still applies; no suites, so no dedup and no
auto-record). Silently, that looked like the governor simply not working —
visible only with ``LANES_DEBUG``. Now the first post hook after the config
broke (or after each edit that leaves it broken) adds one advice line naming
the file, the error and its hint; later calls stay quiet until the file
changes again.

Detection costs nothing extra on a healthy project: the config cache marks a
file it could not load with the screen's "everything" word in the word cache
this package keeps (see :mod:`lanes.governor.config_cache`), and only then is the
strict loader run, once per file version, for the message. Which versions were told is kept in
``$XDG_STATE_HOME/lanekit/config-notices.tsv`` (path, stamp).
"""

from __future__ import annotations

import os

from lanes.governor.screen.prescreen import EVERYTHING, read_suite_words, walk_pyprojects
from lanes.governor.state.debug import debug_log, user_state_dir

__all__ = ["NOTICES_FILE", "advice_once"]

NOTICES_FILE = "config-notices.tsv"
# Rows kept: enough for every checkout a user works in.
_MAX_ROWS = 64
_MAX_MESSAGE = 600


def _notices_path() -> str:
    return os.path.join(user_state_dir(), NOTICES_FILE)


def _told() -> list[str]:
    try:
        fd = os.open(_notices_path(), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return []
    try:
        data = os.read(fd, 1 << 16)
    except OSError:
        return []
    finally:
        os.close(fd)
    return data.decode("utf-8", "replace").splitlines()


def _remember(row: str, rows: list[str]) -> None:
    from lanes._atomic import write_atomic  # only when telling

    kept = [*rows[-(_MAX_ROWS - 1) :], row]
    try:
        os.makedirs(user_state_dir(), exist_ok=True)
        write_atomic(_notices_path(), "\n".join(kept) + "\n")
    except OSError as exc:
        debug_log("config-notice", error=str(exc))


def _problem(pyproject: str) -> str:
    """The strict loader's complaint about ``pyproject``, one paragraph."""
    from pathlib import Path

    from lanes.config import load_config
    from lanes.errors import LanesError

    try:
        load_config(Path(pyproject))
    except LanesError as exc:
        return f"{exc.message} (hint: {exc.hint})"
    except Exception as exc:  # noqa: BLE001  # e.g. a RecursionError on hostile nesting
        return f"{type(exc).__name__}: {str(exc)[:200]}"
    return ""


def advice_once(cwd: str | None) -> str | None:
    """The advice for a broken config governing ``cwd``, the first time this
    version of the file is seen broken; None otherwise."""
    if cwd is None:
        return None
    found, _ = walk_pyprojects(cwd, first=True)
    if not found:
        return None
    path, stamp = found[0]
    words = read_suite_words() or {}
    row = words.get(path)
    if row is None or row[0] != stamp or row[1] != [EVERYTHING]:
        return None  # loaded fine (or not cached yet: the next call knows)
    key = f"{path}\t{stamp}"
    rows = _told()
    if key in rows:
        return None
    problem = _problem(path)
    _remember(key, rows)
    if not problem:
        return None
    text = " ".join(problem.split())
    if len(text) > _MAX_MESSAGE:
        text = text[: _MAX_MESSAGE - 3] + "..."
    return (
        f"lanekit: [tool.lanes] in {path} cannot be loaded, so the test governor runs "
        f"with its defaults (no suites: no dedup, no auto-record): {text} "
        "This is said once per version of the file."
    )
