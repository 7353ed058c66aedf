"""Confirmation re-timing in a fork of the finished run: no start-up, no collection.

A spawned re-timing child (:mod:`lanes.slow.confirmation`) pays the
interpreter's, pytest's and the plugins' start-up, the conftests and the
offenders' collection again: ~0.4 s of CPU on toolz, most of what a confirmed
FAIL still cost over the plain run. A ``fork`` of the run itself, taken at
session end after every fixture was torn down, already has all of it: the
imported modules, the conftests, the collected items with their markers (the
hard stop's timeouts included). It runs the same :class:`Retimer` passes —
the standard test protocol, each pass setting up the fixtures again, module
and session scope included, as the spawned child does — and writes its
samples to the same file after each pass. The parent keeps the deadline: it
kills the fork if a re-timed test hangs, and reads what the finished passes
wrote.

One difference is deliberate: module-level state the suite's run built
(imports done inside tests, caches) is still there, so a re-timed test does
not pay a process's warm-up. A spawned child's first test paid it, which is
noise, not the test's own cost (confirmation.py: an attrs test re-timed at
1.56 s first in its child, 0.46-0.57 s otherwise).

The run forks only where that is safe, and re-times in a spawned child
otherwise, saying why (:func:`fork_refusal`, the envelope's ``retimed``):

- no ``os.fork`` (Windows);
- macOS: a process that loaded system frameworks can crash in a fork, which
  is why Python's own ``multiprocessing`` spawns there;
- an offender that is not an item of this process: under xdist the
  controller collects nothing, its workers ran the tests;
- a run stopped by ``-x``/``--maxfail`` or a plugin: pytest will not
  unset ``shouldfail``/``shouldstop``, and the fork would stop after one test;
- fixtures still set up at the session's end (a plugin's own run loop that
  left them; pytest's tears everything down, even when ``-x`` stops the
  run): their teardown belongs to the run, and a fork would set up over them;
- more than one thread alive: a fork copies only the calling thread, and a
  lock another thread held stays held in the child forever.

In the fork, standard output and error go to ``/dev/null`` and the terminal
reporter is unregistered (its progress lines would land in the run's
output); the run's count of failures is reset, as in a fresh process.
The fork ends with ``os._exit``: no ``atexit`` handler, no session finish, no
flush of a buffer the run will write itself.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes._measuring import measuring_environment
from lanes.slow.confirmation import Retimer
from lanes.slow.runqueue import RunQueueClock, available

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pytest

    from lanes.slow.confirmation import Plan
    from lanes.slow.stopwatch import Stopwatch

__all__ = ["fork_refusal", "retime_forked", "retime_here", "threads_alive"]

POLL: Final = 0.005
"""Seconds between two looks at whether the fork has ended: at most this much is added to
the run's wall time, and ~200 wake-ups a second cost the waiting parent next to no CPU."""
_TASKS: Final = "/proc/self/task"


def threads_alive() -> int:
    """This process's threads: the kernel's count where it shows one (threads started
    outside Python's ``threading`` included), else ``threading``'s."""
    try:
        return sum(1 for _task in Path(_TASKS).iterdir())
    except OSError:
        return threading.active_count()


def fork_refusal(session: pytest.Session, nodeids: Sequence[str]) -> str | None:
    """Why this run must re-time ``nodeids`` in a spawned child; ``None`` when it may fork."""
    if not hasattr(os, "fork"):
        return f"no fork on {sys.platform}"
    if sys.platform == "darwin":
        return "macOS: a forked process can crash in system frameworks (Python spawns there too)"
    items = {item.nodeid for item in session.items}
    elsewhere = [nodeid for nodeid in nodeids if nodeid not in items]
    if elsewhere:
        return (
            f"{len(elsewhere)} of the offenders ran in another process (xdist workers), "
            f"first {elsewhere[0]}"
        )
    stopped = session.shouldfail or session.shouldstop
    if stopped:
        # pytest refuses to unset either: the fork would stop after one test.
        return f"the run was stopped ({stopped}): a fork of it would stop after one test"
    stack = getattr(getattr(session, "_setupstate", None), "stack", None)
    if not isinstance(stack, dict):
        return (
            "pytest's setup state is not readable here: whether fixtures are torn down is unknown"
        )
    if stack:
        return "fixtures are still set up at the session's end: their teardown is the run's"
    threads = threads_alive()
    if threads > 1:
        return f"{threads} threads alive: a fork copies only this one, and the locks others hold"
    return None


def retime_forked(
    session: pytest.Session,
    plan: Plan,
    nodeids: Sequence[str],
    stopwatch: Stopwatch,
    deadline: float,
) -> None:
    """Run the :class:`Retimer`'s passes over ``nodeids`` in a fork; kill it at ``deadline``."""
    wanted = set(nodeids)
    chosen: dict[str, pytest.Item] = {}
    for item in session.items:
        if item.nodeid in wanted:
            chosen.setdefault(item.nodeid, item)  # --keep-duplicates: one item per node id
    # In node-id order, as the spawned child collects them from its command line.
    items = [chosen[nodeid] for nodeid in sorted(chosen)]
    # What the run printed so far must not be printed again by the fork.
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            # The fork writes nothing where the run writes.
            devnull = os.open(os.devnull, os.O_RDWR)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            retime_here(session, plan, items, stopwatch)
        finally:
            # Never the run's own exit path, whatever happened above. The
            # parent reads the samples file, not this status; non-zero, so
            # that reaching this branch in the run's own process (a bug, or a
            # mutant of the test above) fails the run instead of passing it.
            os._exit(1)
    _wait(pid, deadline)


def retime_here(
    session: pytest.Session, plan: Plan, items: Sequence[pytest.Item], stopwatch: Stopwatch
) -> None:
    """The :class:`Retimer`'s passes over ``items`` of a finished ``session``, as a fresh
    process would run them: no progress lines (the terminal reporter leaves), the run's
    failure count reset, the run-queue clock on. What the fork runs."""
    manager = session.config.pluginmanager
    terminal = manager.get_plugin("terminalreporter")
    if terminal is not None:
        manager.unregister(terminal)
    os.environ.update(measuring_environment())
    session.testsfailed = 0
    clock = None
    if available():
        clock = RunQueueClock()
        manager.register(clock, "lanes-slow-runqueue")
    retimer = Retimer(plan, stopwatch, clock)
    manager.register(retimer, "lanes-slow-retimer")
    retimer.run(session, items)


def _wait(pid: int, deadline: float) -> None:
    """Until the fork ends, or kill it at ``deadline`` seconds (or when this wait is interrupted)."""
    if pid <= 0:
        # os.kill(0) would signal this whole process group, os.kill(-1) every
        # process this user may signal: found by a mutant that ran the fork's
        # branch in the parent and killed its whole mutation sweep.
        msg = f"not a child's process id: {pid!r}"
        raise ValueError(msg)
    end = time.monotonic() + deadline
    ended = False
    try:
        while time.monotonic() < end:
            if os.waitpid(pid, os.WNOHANG)[0]:
                ended = True
                return
            time.sleep(POLL)
    finally:
        if not ended:  # past the deadline, or interrupted (Ctrl-C): it must not outlive the run
            import signal  # noqa: PLC0415  # only a fork past its deadline, or an interrupted wait

            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
