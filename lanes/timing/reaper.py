"""Run one command and account for its whole process tree.

    python -I -S path/to/reaper.py RESULT.json -- COMMAND [ARG ...]

(run by file, isolated and without site: it needs only the standard library,
and the measured project's directory must not shadow it).

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
import os
import resource
import signal
import sys
import time

# Neither subprocess nor json: their imports (re, selectors, threading) would
# cost this helper more CPU than everything else it does, on every measured run.
TYPE_CHECKING = False
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


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:  # noqa: PTH123  # stdlib-lean helper
        handle.write(text)


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":  # RESULT -- COMMAND
        print("usage: python -I -S reaper.py RESULT.json -- COMMAND [ARG ...]", file=sys.stderr)
        return 2
    result, command = argv[0], argv[2:]
    subreaper = _become_subreaper()
    started = time.perf_counter()
    try:
        child = os.posix_spawnp(command[0], command, os.environ)
    except OSError as exc:
        import json  # noqa: PLC0415  # only on this path: the message needs escaping

        _write(result, json.dumps({"error": f"{type(exc).__name__}: {exc.strerror or exc}"}))
        return 127

    def forward(signum: int, _frame: FrameType | None) -> None:
        # The suite decides how to stop (pytest prints its summary on SIGINT).
        try:  # noqa: SIM105  # contextlib would be one more import on every run
            os.kill(child, signum)
        except ProcessLookupError:
            pass  # it has already exited; the wait below returns

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, forward)
    _pid, status = os.waitpid(child, 0)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    orphans = 0
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
        orphans += 1
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    _write(
        result,
        f'{{"exit_code": {code}, "wall_s": {wall!r}, "user_s": {usage.ru_utime!r}, '
        f'"system_s": {usage.ru_stime!r}, "maxrss_kib": {usage.ru_maxrss}, '
        f'"orphans": {orphans}, "subreaper": {"true" if subreaper else "false"}}}',
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
