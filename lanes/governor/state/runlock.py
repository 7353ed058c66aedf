"""The kernel run lock: an ``fcntl.flock`` held by the pytest process for its whole run.

Seed 001 chose a JSON lockfile (:mod:`lanes.governor.state.lock`) because a
PreToolUse hook exits before pytest starts and so cannot hold an advisory lock
across the run; it then has to guess whether the owner still lives (a TTL, a
pid, a start time), and a wrapper between the agent and the hook (``uv run
lanes hook``, npx, a bogus ``CLAUDE_PID``) makes that guess wrong.
The governor's pytest plugin *is* the run, so it holds the lock itself: the
kernel releases a ``flock`` when the last descriptor closes — on exit, on a
crash, on SIGKILL — with no TTL and no liveness guess.

``<state>/test-run.flock`` (``StatePaths.flock``) is never deleted (deleting a flocked file lets a
newcomer lock a fresh inode while the holder still holds the old one: two
holders). Its content names the holder — suite, agent, session, pid, start
time, host, command — written by the holder after it has the lock and
truncated by it before it lets go, so a reader that finds the lock held knows
whom to name. A reader that finds it free ignores the text (a SIGKILLed
holder leaves its text behind; the lock itself is what counts).

The hook reads the same file before a run starts (:func:`probe`) for early
advice; the JSON lock stays for the runs pytest cannot hold (non-Python
runners, ``runner = "command"`` suites).
"""

from __future__ import annotations

from lanes._jsondoc import loads_object

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook imports probe()
if TYPE_CHECKING:
    from collections.abc import Mapping

    from lanes.governor.state.env import Environment

__all__ = ["Holder", "KernelLock", "acquire", "probe"]

# Descriptive fields a holder writes; a reader shows what it finds.
_FIELDS = ("suite", "agent", "session", "pid", "started_ts", "host", "command")


class Holder:
    """Who holds the kernel lock, as its holder wrote it (empty fields unknown)."""

    __slots__ = ("fields",)

    def __init__(self, fields: Mapping[str, object]) -> None:
        self.fields = {name: fields.get(name) for name in _FIELDS}

    @classmethod
    def parse(cls, text: str) -> Holder:
        """The holder in ``text``; an unknown one when the text is not a record
        (a holder between its lock and its write, or damage)."""

        class _NotHolderError(ValueError):
            pass

        def fail(message: str) -> _NotHolderError:
            return _NotHolderError(message)

        try:
            return cls(loads_object(text, what="run lock holder", fail=fail))
        except _NotHolderError:
            return cls({})

    def describe(self, now: float) -> str:
        """One line naming the holder, for a refusal or ``lanes governor status``."""
        agent = str(self.fields["agent"] or "an unknown agent")
        suite = str(self.fields["suite"] or "a heavy run")
        parts = [f"{agent} (pid {self.fields['pid'] or '?'}"]
        session = str(self.fields["session"] or "")
        if session:
            parts.append(f", session …{session[-4:]}")
        host = str(self.fields["host"] or "")
        if host:
            parts.append(f", host {host}")
        parts.append(f") is running {suite}")
        started = self.fields["started_ts"]
        if isinstance(started, int | float) and not isinstance(started, bool):
            parts.append(f" for {max(0, int(now - started))} s")
        command = str(self.fields["command"] or "").strip()
        if command:
            parts.append(f" (`{command[:120]}`)")
        return "".join(parts)

    def __repr__(self) -> str:
        return f"Holder({self.fields!r})"


class KernelLock:
    """The held lock: an open descriptor with an exclusive ``flock``.
    :meth:`release` (or the process's end, whatever its cause) frees it."""

    __slots__ = ("_env", "_fd", "path")

    def __init__(self, env: Environment, fd: int, path: str) -> None:
        self._env = env
        self._fd: int | None = fd
        self.path = path

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Clear the holder's text, then let go. Idempotent."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            # Truncated while still held: a reader never sees our name on a
            # lock we no longer hold (except after a crash, where the lock
            # itself says it is free).
            self._env.flock_write(fd, "")
        except OSError:
            pass  # the lock still frees below; only the stale text remains
        finally:
            self._env.flock_close(fd)


def acquire(
    env: Environment, path: str, holder: Mapping[str, object]
) -> tuple[KernelLock | None, Holder]:
    """Take the lock at once or not at all: ``(lock, holder)`` — the lock when
    taken (``holder`` is then ours), else None and the holder that has it.

    Never waits: an agent told at once who holds the lock can do something
    else; one blocked in a shell call hits its tool timeout and learns nothing.
    The world (descriptors, flock) is ``env``'s: the torture lane models it.
    """
    import json

    fd = env.flock_open(path, create=True)
    # A reader probing with a shared lock (the hook, `lanes governor status`)
    # holds it for microseconds: a few retries keep such a probe from
    # refusing a run that nobody holds.
    for attempt in range(5):
        if env.flock_try(fd, exclusive=True):
            break
        text = env.flock_read(fd)
        if text.strip() or attempt == 4:
            env.flock_close(fd)
            return None, Holder.parse(text)
        env.flock_retry_pause()
    record = {name: holder.get(name) for name in _FIELDS}
    try:
        env.flock_write(fd, json.dumps(record, sort_keys=True) + "\n")
    except OSError:
        env.flock_close(fd)
        raise
    return KernelLock(env, fd, path), Holder(record)


def probe(env: Environment, path: str) -> Holder | None:
    """The holder when the lock is held right now, else None (also when the
    file is missing or cannot be opened). Takes a shared lock for an instant;
    never creates the file."""
    try:
        fd = env.flock_open(path, create=False)
    except OSError:
        return None
    try:
        try:
            free = env.flock_try(fd, exclusive=False)
        except OSError:
            return None
        return None if free else Holder.parse(env.flock_read(fd))
    finally:
        # Closing drops the shared lock too: no separate unlock needed.
        env.flock_close(fd)
