"""Reading a child's record: folded, judged whole or not, and matched with the spawns.

The child recorder (:mod:`lanes.affected.child`) writes a record as its
process runs, one JSON line per new fact; the recorder
(:mod:`lanes.affected.recorder`) reads them at the end of each test. A record
is whole when it reached its end (or an ``exec``), or when its process has
ended without one (killed): what it wrote is all it ran. A test is vouched
for only when every Python spawn, at every level, has a whole record
(:func:`unrecorded_spawns`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["process_ended", "read_record", "unrecorded_spawns"]


def unrecorded_spawns(root_pid: int, root_spawned: int, records: list[dict[str, Any]]) -> int:
    """How many project-code spawns of one test have no recorded process behind them.

    ``records`` are the child records of the test. A process's spawns are
    matched by the distinct pids whose recorded parent it is (an ``exec``
    keeps the pid: the image it became is the same child); a process that
    ended by ``exec`` of a program that left no record of the same pid counts
    as one more.
    """
    spawned: dict[int, int] = {root_pid: root_spawned}
    children: dict[int, set[int]] = {}
    images: dict[int, int] = {}
    execs: dict[int, int] = {}
    for record in records:
        pid, ppid = int(record["pid"]), int(record["ppid"])
        spawned[pid] = spawned.get(pid, 0) + int(record["spawned"])
        images[pid] = images.get(pid, 0) + 1
        execs[pid] = execs.get(pid, 0) + (1 if record["exec"] else 0)
        if ppid != pid:
            children.setdefault(ppid, set()).add(pid)
    missing = sum(max(0, n - len(children.get(pid, ()))) for pid, n in spawned.items())
    return missing + sum(1 for pid, n in execs.items() if n >= images[pid])


def process_ended(pid: int) -> bool:
    """Whether process ``pid`` has ended: gone, or a zombie nobody reaped yet.

    A process that has ended writes nothing more, so its record is final.
    Reuse of the pid by another process can only make an ended process look
    alive (its record then counts as cut short: unvouched), never the reverse:
    a live process holds its pid. Without ``/proc`` (macOS) a zombie looks
    alive.
    """
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # another user's process holds the pid now: cannot tell
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    # The state follows the command name's closing parenthesis (the name may hold one).
    state = stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3]
    return state in (b"Z", b"X")


def read_record(path: str) -> dict[str, Any] | None:
    """The record at ``path`` folded into one dict, or None when it is not whole.

    Whole: it reached its end (a normal exit, ``os._exit``) or its ``exec``,
    or its process has ended (killed) and what it wrote up to then is all it
    ran: unless its trace function was replaced (``retraced``, 3.11), when
    calls after that went unseen. A record whose process still runs may yet run
    code: None, as if absent. A torn last line (no newline: the write the kill
    interrupted, before its event happened) is skipped; any other bad line
    makes the record unreadable (None).
    """
    name = Path(path).name
    parts = name.split("-")
    pid = int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else 0
    # Before reading: a process found ended has written everything it will.
    ended = process_ended(pid)
    try:
        lines = Path(path).read_bytes().split(b"\n")
    except OSError:
        return None
    lines.pop()  # after the last newline: nothing, or a torn line
    try:
        record = json.loads(lines[0]) if lines else None
        if not isinstance(record, dict) or record.get("pid") != pid:
            return None
        for line in lines[1:]:
            fields = json.loads(line)
            for key, value in fields.items():
                _fold(record, key, value)
    except (ValueError, TypeError, AttributeError):
        return None
    if record.get("end") or record.get("exec") or (ended and not record.get("retraced")):
        return record
    return None


def _fold(record: dict[str, Any], key: str, value: object) -> None:
    """One line's field into the record: lists extend, flags or, counters add."""
    if isinstance(value, list):
        have = record.setdefault(key, [])
        have.extend(value)
    elif isinstance(value, bool):
        record[key] = bool(record.get(key)) or value
    elif isinstance(value, int):
        record[key] = int(record.get(key, 0)) + value
    else:
        msg = f"record field {key!r}: {value!r} is no list, flag or counter"
        raise TypeError(msg)
