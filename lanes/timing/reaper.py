"""Run one command and account for its whole process tree: ``python -m lanes.timing.reaper``.

    python -m lanes.timing.reaper RESULT.json -- COMMAND [ARG ...]

``getrusage(RUSAGE_CHILDREN)`` counts only descendants that were *waited
for*: a grandchild whose parent exits first (an xdist worker still shutting
down after its controller returned, a daemon a test started) is re-parented
to init and its CPU time is lost. This small process therefore makes itself
a *child subreaper* (Linux ``prctl(PR_SET_CHILD_SUBREAPER)``), so orphans of
the tree are re-parented to it; it waits for the command, then for every
orphan, and writes the tree's totals as JSON:

- ``exit_code``: the command's own exit code (negative: killed by that signal);
- ``wall_s``: spawn to the command's exit (orphans still running after it are
  not wall time of the suite);
- ``user_s``/``system_s``/``maxrss_kib``: ``RUSAGE_CHILDREN`` after every
  descendant was reaped — this process's own start-up is not included;
- ``orphans``: how many descendants outlived their parent and were reaped here.

Off Linux the subreaper is unavailable: orphans' time is then not counted,
and ``subreaper`` is false in the result. SIGINT and SIGTERM are forwarded to
the command, so interrupting the lane stops the suite.

Standard library only; imports nothing from lanekit.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import FrameType

_PR_SET_CHILD_SUBREAPER = 36


def _become_subreaper() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":  # RESULT -- COMMAND
        print(
            "usage: python -m lanes.timing.reaper RESULT.json -- COMMAND [ARG ...]", file=sys.stderr
        )
        return 2
    result, command = argv[0], argv[2:]
    subreaper = _become_subreaper()
    started = time.perf_counter()
    try:
        child = subprocess.Popen(command)
    except OSError as exc:
        with open(result, "w", encoding="utf-8") as handle:  # noqa: PTH123  # stdlib-lean helper
            json.dump({"error": f"{type(exc).__name__}: {exc.strerror or exc}"}, handle)
        return 127

    def forward(signum: int, _frame: FrameType | None) -> None:
        # The suite decides how to stop (pytest prints its summary on SIGINT).
        if child.poll() is None:
            child.send_signal(signum)

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, forward)
    code = child.wait()
    wall = time.perf_counter() - started
    orphans = 0
    while True:
        try:
            os.wait4(-1, 0)
        except ChildProcessError:
            break
        orphans += 1
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = {
        "exit_code": code,
        "wall_s": wall,
        "user_s": usage.ru_utime,
        "system_s": usage.ru_stime,
        "maxrss_kib": usage.ru_maxrss,
        "orphans": orphans,
        "subreaper": subreaper,
    }
    with open(result, "w", encoding="utf-8") as handle:  # noqa: PTH123  # stdlib-lean helper
        json.dump(report, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
