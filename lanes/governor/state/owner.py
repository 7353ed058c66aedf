"""Which process owns a run lock: the agent, not the hook's short-lived shell.

The hook runs as ``agent -> sh -c 'lanes hook' -> python``; the shell and the
hook exit within milliseconds, so a lock recording either would look
"owner dead" to the very next hook and be broken mid-run. The owner is
``CLAUDE_PID`` when the agent exports it, else the first ancestor of the hook
process that is not a shell (or a thin wrapper such as ``env``).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["SHELLS", "agent_pid", "parent_of"]

# Process names that are never the agent: shells and exec-style wrappers a
# hook command line may pass through.
SHELLS = frozenset(
    {
        "sh",
        "bash",
        "zsh",
        "dash",
        "fish",
        "ksh",
        "mksh",
        "pdksh",
        "tcsh",
        "csh",
        "ash",
        "busybox",
        "nu",
        "xonsh",
        "env",
        "nice",
        "timeout",
        "sudo",
        "doas",
    }
)
_MAX_DEPTH = 16


def _parent_from_ps(pid: int) -> tuple[int, str] | None:
    # Without /proc (macOS, the BSDs) ps is the portable way to walk up.
    import subprocess  # only where /proc is missing

    try:
        out = subprocess.run(
            ["ps", "-o", "ppid=", "-o", "comm=", "-p", str(pid)],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        ).stdout.split(None, 1)
    except (OSError, subprocess.SubprocessError):
        return None
    if len(out) != 2 or not out[0].isdigit():
        return None
    return int(out[0]), os.path.basename(out[1].strip())


def parent_of(pid: int) -> tuple[int, str] | None:
    """(ppid, command name) of ``pid``; None when unreadable."""
    if not os.path.isdir("/proc"):
        return _parent_from_ps(pid)
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    # The name sits in parentheses and may itself contain ") "; the fields
    # after the *last* ')' are fixed-position: state, then ppid.
    open_at, close_at = stat.find(b"("), stat.rfind(b")")
    if open_at < 0 or close_at < open_at:
        return None
    name = stat[open_at + 1 : close_at].decode("utf-8", errors="replace")
    fields = stat[close_at + 2 :].split()
    if len(fields) < 2 or not fields[1].isdigit():
        return None
    return int(fields[1]), name


def _is_shell(name: str) -> bool:
    # A login shell shows up as "-bash".
    return name.lstrip("-") in SHELLS


def agent_pid(environ: Mapping[str, str]) -> int:
    """The agent's pid: ``CLAUDE_PID``, else the first non-shell ancestor."""
    declared = environ.get("CLAUDE_PID", "").strip()
    if declared.isdigit() and int(declared) > 1:
        return int(declared)
    pid = os.getppid()
    for _ in range(_MAX_DEPTH):
        info = parent_of(pid)
        if info is None:
            # A vanished or unreadable process: the last pid we could name
            # is the best owner we have.
            return pid
        ppid, name = info
        if not _is_shell(name) or ppid <= 1:
            return pid
        pid = ppid
    return pid
