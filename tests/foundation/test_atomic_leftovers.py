"""What killed writers leave behind: temp files never collide with a later
writer, and stale ones of ours are cleaned by the next write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING

from lanes._atomic import STALE_TEMP_SECONDS, remove_stale_temps, write_atomic

if TYPE_CHECKING:
    from pathlib import Path


def _age(path: Path, seconds: float) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past), follow_symlinks=False)


def test_a_leftover_with_our_pid_never_blocks_the_write(tmp_path: Path) -> None:
    # A killed hook left temp files under the pid this process now has (pid
    # reuse): the next write must still succeed.
    target = tmp_path / "verify-ledger.json"
    for counter in range(1, 2001):
        (tmp_path / f".{target.name}.{os.getpid()}.{counter}.tmp").write_text("x")
    write_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "new"


def test_a_killed_writer_leaves_a_temp_file_that_the_next_write_removes(tmp_path: Path) -> None:
    target = tmp_path / "economy.json"
    script = (
        "import os, sys\n"
        "from lanes import _atomic\n"
        "def stop(*_):\n"
        "    os.kill(os.getpid(), 9)\n"
        "os.fsync = lambda fd: stop()\n"  # killed between write and rename
        f"_atomic.write_atomic({str(target)!r}, 'half')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], check=False, timeout=60)
    assert proc.returncode == -signal.SIGKILL
    leftovers = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert len(leftovers) == 1
    write_atomic(target, "fresh")
    assert leftovers[0].exists()  # young: it might be a writer still at work
    _age(leftovers[0], STALE_TEMP_SECONDS + 5)
    write_atomic(target, "fresh")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["economy.json"]


def test_cleanup_removes_only_stale_regular_files_of_ours(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    ours = tmp_path / ".state.json.123.00aa11bb22cc33dd.tmp"
    young = tmp_path / ".state.json.124.00aa11bb22cc33de.tmp"
    other_file = tmp_path / ".other.json.123.00aa11bb22cc33dd.tmp"
    not_our_shape = tmp_path / ".state.json.backup.tmp"
    link = tmp_path / ".state.json.125.00aa11bb22cc33df.tmp"
    victim = tmp_path / "victim"
    for path in (ours, young, other_file, not_our_shape, victim):
        path.write_text("x")
    link.symlink_to(victim)
    for path in (ours, other_file, not_our_shape, link):
        _age(path, STALE_TEMP_SECONDS + 5)
    assert remove_stale_temps(target) == [ours.name]
    assert victim.exists()
    assert link.is_symlink()
    assert {p.name for p in tmp_path.iterdir()} == {
        young.name,
        other_file.name,
        not_our_shape.name,
        link.name,
        victim.name,
    }


def test_cleanup_of_a_missing_directory_is_quiet(tmp_path: Path) -> None:
    assert remove_stale_temps(tmp_path / "absent" / "state.json") == []
