"""The watchdog's worker process: ``python -m lanes.fuzz._worker FD``.

Speaks :class:`multiprocessing.connection.Connection` frames over the socket
inherited as ``FD``. Protocol, one case in flight at a time:

1. parent -> worker: ``(sys_path, target)``; the worker imports the target and
   answers ``("ready", pid)`` or ``("failed", message, hint)``;
2. parent -> worker: ``(case_id, value)``; worker -> parent:
   ``(case_id, CaseOutcome)``; repeat;
3. parent -> worker: ``None``, or the parent closes the socket: the worker exits.

A plain subprocess rather than ``multiprocessing``'s spawn, because spawn
re-runs the parent's ``__main__`` in the child, which breaks for ``python -``,
embedded interpreters and console scripts with side effects.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection

from lanes.errors import LanesError
from lanes.fuzz.watchdog import load_target, run_case

_ORPHAN_CHECK_SECONDS = 1.0


def _exit_when_orphaned(parent: int) -> None:
    """Exit once the parent is gone, even while a wedged case holds the main thread.

    A parent killed outright (SIGKILL, a CI timeout) cannot kill its worker;
    without this a worker stuck in a hang would outlive the lane forever.
    """
    while os.getppid() == parent:
        time.sleep(_ORPHAN_CHECK_SECONDS)
    # The parent would have removed our scratch directory; it cannot now.
    scratch = os.environ.get("LANES_FUZZ_SCRATCH")
    if scratch:
        shutil.rmtree(scratch, ignore_errors=True)
    os._exit(1)


def main(fd: int) -> int:
    # Ctrl-C reaches the whole process group; the parent handles it (and stops
    # this worker), so the worker must not die first with a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(
        target=_exit_when_orphaned, args=(os.getppid(),), name="orphan-check", daemon=True
    ).start()
    conn = Connection(fd)
    sys_path, target = conn.recv()
    sys.path[:] = sys_path
    try:
        func, error = load_target(target)
    except LanesError as exc:
        conn.send(("failed", exc.message, exc.hint))
        return 0
    conn.send(("ready", None))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return 0
        if message is None:
            return 0
        case_id, value = message
        conn.send((case_id, run_case(func, error, target, value)))


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1])))
