"""The verify ledger v2: which suite passed or failed on which exact tree.

``<state>/verify-ledger.json`` maps a suite name to its latest result::

    {"unit": {"status": "PASS", "ts": 1781060000.0, "git_head": "<40 hex>",
              "dirty_digest": "clean", "agent": "claude",
              "session_tail": "0c5e1a2b", "duration_ms": 5120, "source": "hook"}}

Freshness rule: a PASS is fresh iff its status is PASS, its age is at most the
suite's ``max_age``, its ``git_head`` equals HEAD and its ``dirty_digest``
equals the current digest. An entry missing either key (a v1 record, keyed by
time only) is always stale: a time-keyed PASS would vouch for a tree it never saw.

Readers tolerate a missing or corrupt file (empty ledger, a debug-log line);
writers mutate under an ``flock`` on a sidecar file and replace atomically.
All I/O goes through :class:`~lanes.governor.state.env.Environment`.
"""

from __future__ import annotations

from lanes._jsondoc import loads_object
from lanes.errors import LanesError
from lanes.governor.state.debug import debug_log
from lanes.governor.state.numbers import finite_float

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from typing import Final, Literal

    Outcome = Literal["PASS", "FAIL"]

    from lanes.governor.state.env import Environment

__all__ = [
    "CLEAN",
    "LedgerEntry",
    "LedgerError",
    "TreeState",
    "freshness",
    "parse_ledger",
    "read",
    "record",
]

CLEAN: Final = "clean"

_OUTCOMES: Final = ("PASS", "FAIL")


class LedgerError(LanesError, ValueError):
    """The ledger file (or one entry in it) is not what lanekit writes."""


class TreeState:
    """HEAD plus a digest of every difference from it (``"clean"`` when none)."""

    __slots__ = ("dirty_digest", "git_head")

    def __init__(self, git_head: str, dirty_digest: str) -> None:
        self.git_head = git_head
        self.dirty_digest = dirty_digest

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TreeState):
            return NotImplemented
        return (self.git_head, self.dirty_digest) == (other.git_head, other.dirty_digest)

    def __hash__(self) -> int:
        return hash((self.git_head, self.dirty_digest))

    def __repr__(self) -> str:
        return f"TreeState(git_head={self.git_head!r}, dirty_digest={self.dirty_digest!r})"

    def to_dict(self) -> dict[str, str]:
        return {"git_head": self.git_head, "dirty_digest": self.dirty_digest}


class LedgerEntry:
    """One suite's latest result. ``git_head``/``dirty_digest`` are None for v1 entries."""

    __slots__ = (
        "agent",
        "dirty_digest",
        "duration_ms",
        "git_head",
        "session_tail",
        "source",
        "status",
        "ts",
    )

    def __init__(
        self,
        *,
        status: Outcome,
        ts: float,
        git_head: str | None,
        dirty_digest: str | None,
        agent: str = "",
        session_tail: str = "",
        duration_ms: int | None = None,
        source: str = "hook",
    ) -> None:
        self.status: Outcome = status
        self.ts = ts
        self.git_head = git_head
        self.dirty_digest = dirty_digest
        self.agent = agent
        self.session_tail = session_tail
        self.duration_ms = duration_ms
        # Who recorded it: "hook" (a post event judged the shell command) or
        # "runner" (the pytest plugin judged what ran); the hook's post event
        # never overwrites the runner's record of the same run.
        self.source = source

    @classmethod
    def from_dict(cls, suite: str, data: object) -> LedgerEntry:
        """Validate one entry; :class:`LedgerError` naming the suite and field."""

        def bad(what: str) -> LedgerError:
            return LedgerError(
                f"verify ledger entry {suite!r}: {what}",
                hint="re-run the suite (or `lanes governor record SUITE pass|fail`) to overwrite it",
            )

        if not isinstance(data, dict):
            msg = f"expected a JSON object, got {type(data).__name__}"
            raise bad(msg)
        status = data.get("status")
        if status not in _OUTCOMES:
            msg = f"status must be 'PASS' or 'FAIL', got {status!r}"
            raise bad(msg)
        raw_ts = data.get("ts")
        ts = finite_float(raw_ts)
        if ts is None:
            msg = f"ts must be a finite number of seconds, got {raw_ts!r}"
            raise bad(msg)
        strings: dict[str, str | None] = {}
        for key in ("git_head", "dirty_digest", "agent", "session_tail", "source"):
            value = data.get(key)
            if value is not None and not isinstance(value, str):
                msg = f"{key} must be a string, got {value!r}"
                raise bad(msg)
            strings[key] = value
        duration = data.get("duration_ms")
        if duration is not None and (
            isinstance(duration, bool) or not isinstance(duration, int) or duration < 0
        ):
            msg = f"duration_ms must be a non-negative integer or null, got {duration!r}"
            raise bad(msg)
        return cls(
            status=status,
            ts=ts,
            git_head=strings["git_head"],
            dirty_digest=strings["dirty_digest"],
            agent=strings["agent"] or "",
            session_tail=strings["session_tail"] or "",
            duration_ms=duration,
            source=strings["source"] or "hook",
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "status": self.status,
            "ts": self.ts,
            "git_head": self.git_head,
            "dirty_digest": self.dirty_digest,
            "agent": self.agent,
            "session_tail": self.session_tail,
            "duration_ms": self.duration_ms,
            "source": self.source,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LedgerEntry):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable record: compare by value, never hash

    def __repr__(self) -> str:
        return f"LedgerEntry({self.to_dict()!r})"


_LEDGER_HINT = "delete the ledger file; the next suite run records a fresh one"


def _ledger_error(message: str) -> LedgerError:
    return LedgerError(message, hint=_LEDGER_HINT)


def parse_ledger(text: str) -> dict[str, LedgerEntry]:
    """Parse the ledger strictly: :class:`LedgerError` on the first bad entry."""
    data = loads_object(text, what="verify ledger", fail=_ledger_error)
    return {str(suite): LedgerEntry.from_dict(str(suite), raw) for suite, raw in data.items()}


def read(env: Environment, path: str) -> dict[str, LedgerEntry]:
    """The ledger, or an empty one when it is missing or corrupt (fail open).

    A damaged entry is dropped on its own: one bad suite must not cost the
    others their results.
    """
    try:
        text = env.read(path)
    except OSError as exc:
        debug_log("ledger-unreadable", path=path, error=str(exc))
        return {}
    if text is None:
        return {}
    try:
        data = loads_object(text, what="verify ledger", fail=_ledger_error)
    except LedgerError as exc:
        debug_log("ledger-corrupt", path=path, error=exc.message[:200])
        return {}
    entries: dict[str, LedgerEntry] = {}
    for suite, raw in data.items():
        try:
            entries[str(suite)] = LedgerEntry.from_dict(str(suite), raw)
        except LedgerError as exc:
            debug_log("ledger-entry-dropped", path=path, error=exc.message)
    return entries


def record(env: Environment, path: str, guard: str, suite: str, entry: LedgerEntry) -> None:
    """Set ``suite``'s entry: read-modify-replace under the sidecar ``guard``.

    The guard serialises writers, so two suites finishing at once both land;
    the atomic replace means a reader sees the old ledger or the new one.
    """
    import json  # a writer: the read path stays free of json (and re)

    with env.locked(guard):
        entries = read(env, path)
        entries[suite] = entry
        document = {name: item.to_dict() for name, item in sorted(entries.items())}
        env.replace(path, json.dumps(document, indent=2, sort_keys=True) + "\n")


def freshness(
    entry: LedgerEntry | None, tree: TreeState | None, now: float, max_age: float
) -> tuple[bool, str]:
    """(fresh, reason): why a suite's entry does or does not vouch for ``tree``.

    Reasons: ``fresh``, ``no entry``, ``FAIL``, ``no tree state (v1 entry)``,
    ``HEAD moved``, ``tree changed``, ``too old``, ``not in a git tree``.
    """
    if entry is None:
        return False, "no entry"
    if entry.status != "PASS":
        return False, "FAIL"
    if not entry.git_head or not entry.dirty_digest:
        return False, "no tree state (v1 entry)"
    if tree is None:
        return False, "not in a git tree"
    if entry.git_head != tree.git_head:
        return False, "HEAD moved"
    if entry.dirty_digest != tree.dirty_digest:
        return False, "tree changed"
    if now - entry.ts > max_age:
        return False, "too old"
    return True, "fresh"
