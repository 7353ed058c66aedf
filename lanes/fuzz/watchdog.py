"""Run fuzz cases in a worker process, so a hang is a finding and not a wedged lane.

The parent sends one case at a time over a pipe and waits at most the case's
budget for the verdict. A case that overruns is a *stall*: it is attributed to
the exact input that was sent, the worker is killed and a fresh one started,
and the run goes on. A worker that dies mid-case (``os._exit``, a segfault in
an extension) is a *crash*, attributed the same way.

Start-up is never charged to a case: a worker imports its target before it
reports ready, and the budget clock starts only when a case is handed to a
ready worker. A target module that takes seconds to import is slow to start,
not a stalled first case.

This module imports no Hypothesis: the worker process imports it, and should
pay only for the target under test.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any, Final, Literal

from lanes.errors import ConfigError, LanesError

if TYPE_CHECKING:
    from lanes.fuzz.targets import Target

__all__ = [
    "FAILURE_KINDS",
    "CaseOutcome",
    "OutcomeKind",
    "TargetFunction",
    "Watchdog",
    "WorkerStartError",
    "load_target",
    "run_case",
]

OutcomeKind = Literal[
    "ok", "rejected", "untyped", "empty-hint", "unexpected-rejection", "stall", "crash"
]
FAILURE_KINDS: Final[frozenset[str]] = frozenset(
    {"untyped", "empty-hint", "unexpected-rejection", "stall", "crash"}
)
# A target's callable: one generated input in, anything out.
TargetFunction = Callable[[Any], object]

# Mirrors lanes.fuzz.adapters.SCRATCH_ENV (not imported: the adapters pull in
# the config and envelope modules, which the watchdog itself never needs).
_SCRATCH_ENV: Final = "LANES_FUZZ_SCRATCH"
_MESSAGE_LIMIT: Final = 500
_TRACEBACK_FRAMES: Final = 6


@dataclass(frozen=True)
class CaseOutcome:
    """What one case did. ``elapsed`` is seconds inside the target (the budget for a stall)."""

    kind: OutcomeKind
    elapsed: float
    error_type: str | None = None
    message: str = ""
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.kind in FAILURE_KINDS

    def summary(self) -> str:
        """One line for a terminal: the kind and what was raised."""
        what = f"{self.error_type}: {self.message}" if self.error_type else self.message
        return f"{self.kind} ({what})" if what else self.kind


class WorkerStartError(LanesError, RuntimeError):
    """The worker process could not import its target or never reported ready."""


def _safe_str(exc: BaseException) -> str:
    # A hostile exception's __str__ can itself raise; the verdict must survive it.
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001  # any failure here only costs us the message
        text = f"<unprintable {type(exc).__name__}>"
    return text[:_MESSAGE_LIMIT]


def _short_traceback(exc: BaseException) -> str:
    frames = traceback.format_exception(exc, limit=-_TRACEBACK_FRAMES)
    return "".join(frames)[-4000:]


def run_case(
    func: TargetFunction, error_type: type[BaseException], target: Target, value: object
) -> CaseOutcome:
    """Call the target on ``value`` and judge the result (the one invariant).

    Shared by the worker and by the in-process replay that measures the
    watchdog's overhead, so both judge exactly alike.
    """
    started = time.perf_counter()
    try:
        func(value)
    except BaseException as exc:  # noqa: BLE001  # judging every exception is the point
        elapsed = time.perf_counter() - started
        return _judge(exc, error_type, target, elapsed)
    return CaseOutcome("ok", time.perf_counter() - started)


def _judge(
    exc: BaseException, error_type: type[BaseException], target: Target, elapsed: float
) -> CaseOutcome:
    name = type(exc).__name__
    message = _safe_str(exc)
    if not isinstance(exc, error_type):
        return CaseOutcome("untyped", elapsed, name, message, _short_traceback(exc))
    if not target.may_reject:
        return CaseOutcome("unexpected-rejection", elapsed, name, message, _short_traceback(exc))
    if target.hint_attribute:
        hint = getattr(exc, target.hint_attribute, None)
        if not isinstance(hint, str) or not hint.strip():
            detail = f"{target.hint_attribute} = {hint!r}"
            return CaseOutcome("empty-hint", elapsed, name, message, detail)
        return CaseOutcome("rejected", elapsed, name, message, hint[:_MESSAGE_LIMIT])
    return CaseOutcome("rejected", elapsed, name, message)


def load_target(target: Target) -> tuple[TargetFunction, type[BaseException]]:
    """The target's callable and error type, imported by reference."""
    from lanes.fuzz.targets import resolve  # noqa: PLC0415  # keeps the worker's imports minimal

    func = resolve(target.callable, what="function to fuzz", key=f"{target.origin} callable")
    error = resolve(target.error, what="error type", key=f"{target.origin} error")
    if not (isinstance(error, type) and issubclass(error, BaseException)):
        msg = f"{target.origin} error = {target.error!r} is {error!r}, not an exception class"
        raise ConfigError(
            msg, hint="point error at the exception class the parser raises on bad input"
        )
    if not callable(func):
        msg = f"{target.origin} callable = {target.callable!r} is {func!r}, which is not callable"
        raise ConfigError(msg, hint="point callable at a function taking one generated input")
    return func, error


class Watchdog:
    """One worker process for one target, replaced whenever a case stalls or crashes it.

    ``last_roundtrip`` is the parent-side time of the last case that returned a
    verdict (pickle, send, run, receive): the watchdog's side of the overhead
    figure.
    """

    def __init__(self, target: Target, *, budget: float, startup_timeout: float = 120.0) -> None:
        self.target = target
        self.budget = target.budget if target.budget is not None else budget
        self.startup_timeout = startup_timeout
        self.restarts = 0
        self.last_roundtrip = 0.0
        self._process: subprocess.Popen[bytes] | None = None
        self._scratch: str | None = None
        self._conn: Connection | None = None
        self._next_id = 0

    def __enter__(self) -> Watchdog:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Start a worker and wait until it reports ready (idempotent)."""
        if self._process is not None:
            return
        # A private scratch directory per worker (for adapters that must
        # write the input to a file), removed when the worker goes.
        self._scratch = tempfile.mkdtemp(prefix="lanes-fuzz-")
        ours, theirs = socket.socketpair()
        with ours, theirs:
            process = subprocess.Popen(
                [sys.executable, "-m", "lanes.fuzz._worker", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                env={**os.environ, _SCRATCH_ENV: self._scratch},
                stdin=subprocess.DEVNULL,
                # A chatty parser must not interleave with the lane's report;
                # stderr stays, so a worker that cannot start says why.
                stdout=subprocess.DEVNULL,
            )
            conn = Connection(ours.detach())
        self._process, self._conn = process, conn
        # The worker imports what the parent can: same sys.path (pytest's
        # rootdir, a test's tmp_path, a user's src/ layout).
        conn.send((list(sys.path), self.target))
        if not conn.poll(self.startup_timeout):
            self._kill()
            msg = (
                f"fuzz worker for target {self.target.name!r} did not start "
                f"within {self.startup_timeout:g} s"
            )
            raise WorkerStartError(
                msg, hint="importing the target's module hangs; import it by hand to see where"
            )
        try:
            reply = conn.recv()
        except (EOFError, OSError):
            self._kill()
            msg = f"fuzz worker for target {self.target.name!r} died while starting"
            raise WorkerStartError(
                msg, hint="the worker's error is printed above; import the target's module by hand"
            ) from None
        if reply[0] == "failed":
            self._kill()
            raise ConfigError(reply[1], hint=reply[2])

    def run(self, value: object) -> CaseOutcome:
        """Judge one case within the budget; never raises for anything the target does."""
        self.start()
        assert self._conn is not None  # noqa: S101  # start() either set it or raised
        self._next_id += 1
        case_id = self._next_id
        # The clock includes pickling and sending: both are the watchdog's cost.
        sent = time.perf_counter()
        try:
            self._conn.send((case_id, value))
        except (BrokenPipeError, EOFError, OSError):
            return self._lost("crash", "the worker was gone before the case was sent")
        if not self._conn.poll(self.budget):
            return self._lost("stall", f"no verdict within the {self.budget:g} s case budget")
        try:
            reply_id, outcome = self._conn.recv()
        except (EOFError, OSError):
            exitcode = self._process.wait(timeout=10) if self._process is not None else None
            return self._lost("crash", f"the worker died during the case (exit code {exitcode})")
        self.last_roundtrip = time.perf_counter() - sent
        if reply_id != case_id:  # pragma: no cover - the protocol is strictly one case in flight
            msg = f"fuzz worker answered case {reply_id}, expected {case_id}"
            raise RuntimeError(msg)
        assert isinstance(outcome, CaseOutcome)  # noqa: S101  # our own worker sent it
        return outcome

    def _lost(self, kind: Literal["stall", "crash"], message: str) -> CaseOutcome:
        self._kill()
        self.restarts += 1
        return CaseOutcome(kind, self.budget if kind == "stall" else 0.0, None, message)

    def _kill(self) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if conn is not None:
            conn.close()
        if process is not None and process.poll() is None:
            # SIGKILL: a wedged target may ignore or block SIGTERM.
            process.kill()
        if process is not None:
            process.wait(timeout=10)
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def close(self) -> None:
        """Stop the worker politely (it exits on the sentinel), forcefully if it must."""
        process, conn = self._process, self._conn
        if process is None or conn is None:
            return
        with contextlib.suppress(OSError):
            conn.send(None)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=2)
        self._kill()
