"""The test economy's per-user store: ``$XDG_STATE_HOME/lanekit/economy.json``.

One row per project (its root path, or the cwd outside git) holding the
counters of its live agent sessions::

    {"format": "lanekit.economy", "version": 1,
     "projects": {"/src/app": {"sessions": [
         {"session": "9f1c...", "full_runs": 3, "filtered_runs": 4, "fires": 1,
          "first_fire": 1764460000.0, "last_seen": 1764460100.0}]}}}

Updates hold an ``fcntl.flock`` on a sidecar (``economy.json.lock``) around
read-modify-write and replace the file atomically, so two hooks of parallel
agents never lose each other's counts. A store that cannot be read fails open:
the caller gets :class:`Unreadable` and stays silent rather than count from a
guess.

Bounded without forgetting live sessions: a session unseen for
:data:`SESSION_IDLE_SECONDS` is over (an agent taking turns with nine others
is seen every few minutes), so it is dropped, and a project left without
sessions goes with it — a row per non-git cwd does not pile up. Past
:data:`MAX_SESSIONS` live sessions in one project, or :data:`MAX_PROJECTS`
projects, the least recently seen go first.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Final

from lanes._atomic import flocked, write_atomic
from lanes._jsondoc import loads_object, read_bytes
from lanes.governor.state.debug import user_state_dir

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "MAX_PROJECTS",
    "MAX_SESSIONS",
    "SESSION_IDLE_SECONDS",
    "SessionCounters",
    "Unreadable",
    "read_session",
    "store_path",
    "update_session",
]

FORMAT: Final = "lanekit.economy"
VERSION: Final = 1
# Sessions of one project counted at once: far more agents than a machine runs.
MAX_SESSIONS: Final = 64
MAX_PROJECTS: Final = 256
SESSION_IDLE_SECONDS: Final = 24 * 3600
# Far above the bounds above (about 150 bytes a session); a larger file is
# not ours to parse on every post event.
MAX_STORE_BYTES: Final = 8 << 20


class Unreadable(Exception):  # noqa: N818  # a state, like FileNotFoundError's siblings
    """The store exists but is not a store we can trust; the economy stays silent.

    ``corrupt`` marks a damaged store of ours (not JSON, wrong shape), which
    :func:`update_session` sets aside so counting can start again; a store we
    cannot open, or one of another version, is left alone.
    """

    def __init__(self, message: str, *, corrupt: bool = True) -> None:
        super().__init__(message)
        self.corrupt = corrupt


class SessionCounters:
    """One agent session's counters in one project."""

    __slots__ = ("filtered_runs", "fires", "first_fire", "full_runs", "last_seen", "session")

    def __init__(
        self,
        session: str,
        *,
        full_runs: int = 0,
        filtered_runs: int = 0,
        fires: int = 0,
        first_fire: float | None = None,
        last_seen: float = 0.0,
    ) -> None:
        self.session = session
        self.full_runs = full_runs
        self.filtered_runs = filtered_runs
        self.fires = fires
        self.first_fire = first_fire
        self.last_seen = last_seen

    def to_dict(self) -> dict[str, object]:
        return {
            "session": self.session,
            "full_runs": self.full_runs,
            "filtered_runs": self.filtered_runs,
            "fires": self.fires,
            "first_fire": self.first_fire,
            "last_seen": self.last_seen,
        }

    @classmethod
    def from_dict(cls, raw: object) -> SessionCounters:
        if not isinstance(raw, dict) or not isinstance(raw.get("session"), str):
            msg = f"session row must be an object with a session id, got {raw!r:.200}"
            raise Unreadable(msg)
        counts = [raw.get(key, 0) for key in ("full_runs", "filtered_runs", "fires")]
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts):
            msg = f"session row counters must be integers >= 0, got {raw!r:.200}"
            raise Unreadable(msg)
        first_fire = raw.get("first_fire")
        last_seen = raw.get("last_seen", 0.0)
        if first_fire is not None and not isinstance(first_fire, int | float):
            msg = f"first_fire must be a number or null, got {first_fire!r}"
            raise Unreadable(msg)
        if not isinstance(last_seen, int | float):
            msg = f"last_seen must be a number, got {last_seen!r}"
            raise Unreadable(msg)
        return cls(
            raw["session"],
            full_runs=counts[0],
            filtered_runs=counts[1],
            fires=counts[2],
            first_fire=None if first_fire is None else float(first_fire),
            last_seen=float(last_seen),
        )

    def __repr__(self) -> str:
        return f"SessionCounters({self.to_dict()!r})"


def store_path() -> str:
    return os.path.join(user_state_dir(), "economy.json")


def _load() -> dict[str, list[SessionCounters]]:
    """project root -> its sessions, most recent last. Raises :class:`Unreadable`."""
    try:
        # A symlink (ELOOP), a FIFO or directory, no permission, past the cap.
        text = read_bytes(store_path(), max_bytes=MAX_STORE_BYTES)
    except OSError as exc:
        msg = f"cannot read {store_path()}: {exc}"
        raise Unreadable(msg, corrupt=False) from None
    if text is None:
        return {}
    document = loads_object(text, what=store_path(), fail=Unreadable)
    if document.get("format") == FORMAT and document.get("version") != VERSION:
        # Another lanekit version's store: never clobber it.
        msg = f"{store_path()} is economy store version {document.get('version')!r}, not {VERSION}"
        raise Unreadable(msg, corrupt=False)
    rows = document.get("projects")
    if document.get("format") != FORMAT or not isinstance(rows, dict):
        msg = f"{store_path()} is not a version {VERSION} economy store"
        raise Unreadable(msg)
    projects: dict[str, list[SessionCounters]] = {}
    for root, row in rows.items():
        sessions = row.get("sessions") if isinstance(row, dict) else None
        if not isinstance(sessions, list):
            msg = f"project {root!r} has no sessions list"
            raise Unreadable(msg)
        projects[root] = [SessionCounters.from_dict(item) for item in sessions]
    return projects


def _dump(projects: dict[str, list[SessionCounters]]) -> str:
    document = {
        "format": FORMAT,
        "version": VERSION,
        "projects": {
            root: {"sessions": [s.to_dict() for s in sessions]}
            for root, sessions in projects.items()
        },
    }
    return json.dumps(document, indent=1, sort_keys=True) + "\n"


def read_session(root: str, session: str) -> SessionCounters | None:
    """The counters of ``session`` in project ``root`` (no lock: a snapshot).
    Raises :class:`Unreadable`."""
    for counters in _load().get(root, []):
        if counters.session == session:
            return counters
    return None


def update_session(
    root: str, session: str, now: float, change: Callable[[SessionCounters], None]
) -> SessionCounters:
    """Apply ``change`` to the session's counters under the store lock and save.

    A session seen for the first time starts at zero; sessions idle for
    :data:`SESSION_IDLE_SECONDS` are pruned on the way. Raises :class:`Unreadable`
    (nothing counted; a corrupt store is moved to ``economy.json.corrupt``) or
    ``OSError``.
    """
    path = store_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with flocked(path + ".lock"):
        try:
            projects = _load()
        except Unreadable as exc:
            if exc.corrupt:
                # Keep the evidence, start counting again from the next run.
                os.replace(path, path + ".corrupt")
            raise
        sessions = projects.setdefault(root, [])
        counters = next((s for s in sessions if s.session == session), None)
        if counters is None:
            counters = SessionCounters(session)
            sessions.append(counters)
        change(counters)
        counters.last_seen = now
        write_atomic(path, _dump(_pruned(projects, now)))
    return counters


def _pruned(
    projects: dict[str, list[SessionCounters]], now: float
) -> dict[str, list[SessionCounters]]:
    """Only live sessions, within the bounds, each project's most recent last."""
    live: dict[str, list[SessionCounters]] = {}
    for root, sessions in projects.items():
        kept = sorted(
            (s for s in sessions if now - s.last_seen <= SESSION_IDLE_SECONDS),
            key=lambda s: s.last_seen,
        )[-MAX_SESSIONS:]
        if kept:
            live[root] = kept
    recent = sorted(live, key=lambda root: live[root][-1].last_seen)[-MAX_PROJECTS:]
    return {root: live[root] for root in sorted(recent)}
