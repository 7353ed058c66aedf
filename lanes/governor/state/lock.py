"""The run lock: at most one heavy test run per repository at a time.

``<state>/test-run.lock`` is a JSON file, not an ``flock``: the PreToolUse hook
that takes it exits long before the test run ends, so nothing could hold an
advisory lock across the run. ``<state>/test-run.lock.guard`` is the sidecar
``flock`` that makes read-check-write atomic between racing hooks.

Liveness rule. A lock is *held* iff the file exists, ``now - started_ts <
ttl`` and its owner is not provably dead. Provably dead means: recorded on this
host and this boot, and its pid is gone or now belongs to a process with a
different start time (pid reuse). Everything we cannot prove — another host,
another boot id, an unreadable start time — counts as alive: the lock errs
towards over-holding (a sibling waits, bounded by the TTL), never towards two
heavy runs at once.

Every observation and mutation goes through :class:`~lanes.governor.state.env.Environment`,
so the torture lane drives exactly this code through a modelled world.
"""

from __future__ import annotations

from lanes._jsondoc import loads_object
from lanes.errors import LanesError
from lanes.governor.state.debug import debug_log
from lanes.governor.state.env import UNKNOWN_START
from lanes.governor.state.numbers import finite_float

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Final, Literal

    Status = Literal["held", "expired", "owner-dead", "absent", "unreadable"]
    # Why acquire() answered as it did (see AcquireResult): a closed set the
    # type checker verifies. A Literal, not an Enum, for the same reason as
    # gate.Step: enum is off the hook's path, and this alias costs nothing.
    Why = Literal[
        "free", "own-session", "expired", "owner-dead", "unreadable", "held", "raced", "unguarded"
    ]

    from lanes.governor.state.env import Environment

__all__ = [
    "DEFAULT_TTL",
    "AcquireResult",
    "LockError",
    "LockRecord",
    "LockState",
    "acquire",
    "inspect",
    "owner_dead",
    "parse_lock",
    "release",
]

DEFAULT_TTL: Final = 1800


_FIELDS: Final = (
    "suite",
    "agent",
    "session_tail",
    "agent_pid",
    "agent_start",
    "boot_id",
    "host",
    "started_ts",
    "token",
    "command",
)
_INT_FIELDS: Final = ("agent_pid",)
_NUMBER_FIELDS: Final = ("started_ts",)


class LockError(LanesError, ValueError):
    """The lock file's text is not a lock record."""


class LockRecord:
    """Who holds the run lock, since when, for what."""

    __slots__ = _FIELDS

    def __init__(
        self,
        *,
        suite: str,
        agent: str,
        session_tail: str,
        agent_pid: int,
        agent_start: str,
        boot_id: str,
        host: str,
        started_ts: float,
        token: str,
        command: str,
    ) -> None:
        self.suite = suite
        self.agent = agent
        self.session_tail = session_tail
        self.agent_pid = agent_pid
        self.agent_start = agent_start
        self.boot_id = boot_id
        self.host = host
        self.started_ts = started_ts
        self.token = token
        self.command = command

    def to_dict(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in _FIELDS}

    def serialise(self) -> str:
        import json  # a writer: the read path stays free of json (and re)

        return json.dumps(self.to_dict(), sort_keys=True) + "\n"

    def age(self, now: float) -> float:
        return now - self.started_ts

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LockRecord):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable record: compare by value, never hash

    def __repr__(self) -> str:
        return f"LockRecord({self.to_dict()!r})"


def _bad(what: str, hint: str = "") -> LockError:
    return LockError(
        f"run lock file is not a lock record: {what}",
        hint=hint
        or "the file was not written by lanekit or is damaged; `lanes governor unlock` removes it",
    )


def parse_lock(text: str) -> LockRecord:
    """Parse a lock file's text; :class:`LockError` for anything else."""
    data = loads_object(text, what="the text", fail=_bad)
    values: dict[str, object] = {}
    for name in _FIELDS:
        if name not in data:
            msg = f"missing field {name!r}"
            raise _bad(msg)
        value = data[name]
        if name in _INT_FIELDS:
            # bool is an int subclass; `"agent_pid": true` is damage, not pid 1.
            # A pid beyond a C int cannot exist, and os.kill() would raise
            # OverflowError on it rather than answer.
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**31:
                msg = f"{name} must be an integer from 0 to 2**31-1, got {value!r}"
                raise _bad(msg)
        elif name in _NUMBER_FIELDS:
            number = finite_float(value)
            if number is None:
                msg = f"{name} must be a finite number, got {value!r}"
                raise _bad(msg)
            value = number
        elif not isinstance(value, str):
            msg = f"{name} must be a string, got {value!r}"
            raise _bad(msg)
        values[name] = value
    # Extra keys are tolerated: a newer lanekit may add fields, and an older
    # reader must still honour its lock rather than call it garbage.
    return LockRecord(**values)  # type: ignore[arg-type]  # each field type-checked above


def owner_dead(env: Environment, record: LockRecord) -> bool:
    """True only on proof that the owning agent process no longer runs."""
    if record.host != env.host() or record.boot_id != env.boot_id():
        # Another machine's (or another boot's) process table is not ours to
        # read: a pid here says nothing about a pid there.
        return False
    start = env.process_start(record.agent_pid)
    if start is None:
        return True
    if start == UNKNOWN_START or record.agent_start in ("", UNKNOWN_START):
        return False
    # Same pid, different start time: the pid was reused by a newer process.
    return start != record.agent_start


class LockState:
    """What :func:`inspect` saw: a status and, when readable, the record."""

    __slots__ = ("age", "record", "status")

    def __init__(self, status: Status, record: LockRecord | None, age: float | None) -> None:
        self.status: Status = status
        self.record = record
        self.age = age

    def __repr__(self) -> str:
        return f"LockState(status={self.status!r}, record={self.record!r}, age={self.age!r})"


def _judge(env: Environment, text: str | None, ttl: float) -> LockState:
    if text is None:
        return LockState("absent", None, None)
    try:
        record = parse_lock(text)
    except LockError:
        return LockState("unreadable", None, None)
    age = record.age(env.now())
    # A start far in the future (a clock jumped back, or damage) would
    # otherwise hold forever; the TTL must bound every lock.
    if age >= ttl or age <= -ttl:
        return LockState("expired", record, age)
    if owner_dead(env, record):
        return LockState("owner-dead", record, age)
    return LockState("held", record, age)


def _read(env: Environment, lock_path: str) -> str | None:
    try:
        return env.read(lock_path)
    except OSError:
        # A planted symlink (ELOOP) or a directory in the lock's place: not a
        # lock record. Callers treat it like any other unreadable lock.
        return ""


def inspect(env: Environment, lock_path: str, *, ttl: float = DEFAULT_TTL) -> LockState:
    """The lock's status without the guard: for messages and ``lanes governor status``."""
    return _judge(env, _read(env, lock_path), ttl)


class AcquireResult:
    """The outcome of :func:`acquire`.

    ``why`` is one of: ``"free"`` (no lock was there), ``"own-session"`` (our
    session's lock, reclaimed), ``"expired"``, ``"owner-dead"``, ``"unreadable"``
    (a stale lock broken), ``"held"`` (not acquired; ``holder`` says by whom),
    ``"raced"`` (not acquired: the file appeared without the guard),
    ``"unguarded"`` (not acquired, no live holder: the guard cannot be taken
    and a stale lock cannot be broken without it; run unlocked).
    """

    __slots__ = ("acquired", "holder", "record", "why")

    def __init__(
        self,
        *,
        acquired: bool,
        holder: LockRecord | None,
        why: Why,
        record: LockRecord | None = None,
    ) -> None:
        self.acquired = acquired
        self.holder = holder
        self.why: Why = why
        self.record = record

    def __repr__(self) -> str:
        return (
            f"AcquireResult(acquired={self.acquired!r}, why={self.why!r}, "
            f"holder={self.holder!r}, record={self.record!r})"
        )


def acquire(
    env: Environment,
    lock_path: str,
    guard_path: str,
    *,
    suite: str,
    agent: str,
    session_tail: str,
    agent_pid: int,
    command: str,
    ttl: float = DEFAULT_TTL,
) -> AcquireResult:
    """Take the run lock unless someone else holds it.

    ``record`` of the result is the lock we wrote (its ``token`` releases it).
    When the guard cannot be taken (its sidecar is a directory, unreadable),
    see :func:`_acquire_unguarded`: a live holder still blocks.
    """

    def new_record() -> LockRecord:
        return LockRecord(
            suite=suite,
            agent=agent,
            session_tail=session_tail,
            agent_pid=agent_pid,
            agent_start=env.process_start(agent_pid) or UNKNOWN_START,
            boot_id=env.boot_id(),
            host=env.host(),
            started_ts=env.now(),
            token=env.new_token(),
            command=command,
        )

    entered = False
    try:
        with env.locked(guard_path):
            entered = True
            return _acquire_guarded(env, lock_path, session_tail, ttl, new_record)
    except OSError as exc:
        if entered:
            raise
        return _acquire_unguarded(env, lock_path, session_tail, ttl, new_record, error=exc)


def _acquire_guarded(
    env: Environment,
    lock_path: str,
    session_tail: str,
    ttl: float,
    new_record: Callable[[], LockRecord],
) -> AcquireResult:
    text = _read(env, lock_path)
    state = _judge(env, text, ttl)
    why: Why = "free"
    if state.status == "held":
        holder = state.record
        # An empty tail identifies nobody: never let two session-less
        # callers reclaim each other's locks.
        if holder is None or not session_tail or holder.session_tail != session_tail:
            return AcquireResult(acquired=False, holder=holder, why="held")
        why = "own-session"
    elif state.status != "absent":
        why = state.status
    if text is not None:
        # Breaking happens only here, under the guard: every writer holds
        # the guard while it creates the file, so nobody is mid-write and
        # an unreadable file is damage, not a holder's half-written record.
        env.unlink(lock_path)
    record = new_record()
    if env.create_exclusive(lock_path, record.serialise()):
        return AcquireResult(acquired=True, holder=None, why=why, record=record)
    # Only a writer without the guard gets here (one whose guard cannot be
    # opened: it creates, but never breaks). Its file wins while it holds;
    # one already stale (written long after its timestamp) is broken here,
    # under the guard, as any other stale lock would be.
    raced = _judge(env, _read(env, lock_path), ttl)
    if raced.status in ("expired", "owner-dead"):
        env.unlink(lock_path)
        record = new_record()
        if env.create_exclusive(lock_path, record.serialise()):
            return AcquireResult(acquired=True, holder=None, why=raced.status, record=record)
        raced = _judge(env, _read(env, lock_path), ttl)
    return AcquireResult(acquired=False, holder=raced.record, why="raced")


def _acquire_unguarded(
    env: Environment,
    lock_path: str,
    session_tail: str,
    ttl: float,
    new_record: Callable[[], LockRecord],
    *,
    error: OSError,
) -> AcquireResult:
    """Without the guard: a live holder still blocks, a free lock is still taken
    (the exclusive create alone is atomic), but nothing is ever broken — that
    needs the guard. ``why="unguarded"`` (not acquired, no live holder): the
    caller runs without the lock rather than block until the guard is fixed.
    """
    debug_log("lock-guard-unavailable", path=lock_path, error=str(error))
    text = _read(env, lock_path)
    state = _judge(env, text, ttl)
    holder = state.record
    if state.status == "held" and (
        holder is None or not session_tail or holder.session_tail != session_tail
    ):
        return AcquireResult(acquired=False, holder=holder, why="held")
    if text is not None:
        return AcquireResult(acquired=False, holder=holder, why="unguarded")
    record = new_record()
    if not env.create_exclusive(lock_path, record.serialise()):
        raced = _judge(env, _read(env, lock_path), ttl)
        return AcquireResult(acquired=False, holder=raced.record, why="raced")
    return AcquireResult(acquired=True, holder=None, why="free", record=record)


def release(env: Environment, lock_path: str, guard_path: str, *, token: str) -> bool:
    """Delete the lock iff it carries ``token``; True when it was deleted.

    A run that outlived its TTL must not delete the lock a sibling has taken
    since: the token, checked under the guard, tells the two apart.
    """
    entered = False
    try:
        with env.locked(guard_path):
            entered = True
            return _release_own(env, lock_path, token)
    except OSError as exc:
        if entered:
            raise
        # The guard cannot be taken: leave the lock to its TTL (or to our
        # session's next run). Deleting it unguarded could delete a sibling's
        # lock taken between our read and our unlink — the torture lane found
        # exactly that — and a lock held too long is the safe side.
        debug_log("lock-release-skipped", path=lock_path, error=str(exc))
        return False


def _release_own(env: Environment, lock_path: str, token: str) -> bool:
    text = _read(env, lock_path)
    if not text:
        return False
    try:
        record = parse_lock(text)
    except LockError:
        return False
    if record.token != token:
        return False
    return env.unlink(lock_path)
