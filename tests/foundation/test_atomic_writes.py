"""``lanes._atomic``: replace-or-nothing writes, symlink refusal, the flock."""

from __future__ import annotations

import errno
import fcntl
import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from lanes._atomic import flocked, read_text_nofollow, write_atomic

if TYPE_CHECKING:
    from pathlib import Path


def test_write_creates_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    write_atomic(target, "one")
    write_atomic(target, b"two")
    assert target.read_text(encoding="utf-8") == "two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_replace_keeps_the_inode_swap_semantics(tmp_path: Path) -> None:
    # A reader holding the old file keeps the old content: replace, not truncate.
    target = tmp_path / "state.json"
    write_atomic(target, "old")
    with target.open(encoding="utf-8") as reader:
        write_atomic(target, "new")
        assert reader.read() == "old"
    assert target.read_text(encoding="utf-8") == "new"


def test_failed_write_leaves_no_droppings(tmp_path: Path) -> None:
    # The destination is a directory, so os.replace fails after the temp file
    # was written: the temp file must go.
    target = tmp_path / "occupied"
    (target / "child").mkdir(parents=True)
    with pytest.raises(OSError, match=r"Is a directory|Directory not empty"):
        write_atomic(target, "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["occupied"]


def test_mode(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "f", "x", mode=0o600)
    finally:
        os.umask(old)
    assert (tmp_path / "f").stat().st_mode & 0o777 == 0o600


def test_read_missing_is_none(tmp_path: Path) -> None:
    assert read_text_nofollow(tmp_path / "absent") is None


def test_read_refuses_a_symlink(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("do not trust me", encoding="utf-8")
    (tmp_path / "ledger.json").symlink_to(secret)
    with pytest.raises(OSError, match="Too many levels of symbolic links") as raised:
        read_text_nofollow(tmp_path / "ledger.json")
    assert raised.value.errno == errno.ELOOP


def test_read_undecodable_bytes_are_replaced(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"ok\xff")
    assert read_text_nofollow(tmp_path / "f") == "ok\ufffd"


HOLDER = """
import sys
from lanes._atomic import flocked
with flocked(sys.argv[1]):
    print("locked", flush=True)
    sys.stdin.readline()
"""


@pytest.mark.integration
def test_flock_excludes_another_process(tmp_path: Path) -> None:
    lock = tmp_path / "state.lock"
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        assert holder.stdin is not None
        assert holder.stdout is not None
        try:
            assert holder.stdout.readline() == "locked\n"
            fd = os.open(lock, os.O_RDWR)
            try:
                with pytest.raises(BlockingIOError):
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                holder.stdin.write("\n")
                holder.stdin.flush()
                assert holder.wait(timeout=60) == 0
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released with the holder
            finally:
                os.close(fd)
        finally:
            if holder.poll() is None:
                holder.kill()


def test_flock_is_reentrant_across_blocks(tmp_path: Path) -> None:
    lock = tmp_path / "state.lock"
    with flocked(lock):
        pass
    with flocked(lock):  # released on exit, so a second block gets it
        pass
    assert lock.exists()


def test_flock_refuses_a_symlinked_lock_file(tmp_path: Path) -> None:
    (tmp_path / "target").write_text("", encoding="utf-8")
    (tmp_path / "state.lock").symlink_to(tmp_path / "target")
    with (
        pytest.raises(OSError, match="Too many levels of symbolic links") as raised,
        flocked(tmp_path / "state.lock"),
    ):
        pass
    assert raised.value.errno == errno.ELOOP
