"""A file swapped while the digest hashes it can neither hang the hook nor
be followed elsewhere.

Between listing an untracked file (``lstat``: a regular file) and opening it,
another process may put a FIFO there (opening one for reading waits for a
writer, forever) or a symbolic link to an endless device (reading it never
ends). The open refuses to follow a link and never waits, so every
interleaving answers. Here a real child process keeps swapping the entry
while the digest hashes it thousands of times: any interleaving where the
open follows the link or waits on the FIFO leaves the hashing thread stuck,
and the test fails at its deadline instead of hanging the suite.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
import threading
import time
from collections import Counter
from typing import TYPE_CHECKING

import pytest

# The one seam: only a file swapped between lstat and open reaches these
# flags, and no public call stops in between.
from lanes.governor.state.tree import _file_digest

if TYPE_CHECKING:
    from pathlib import Path

# Cycles the entry through a file, a link to /dev/zero, a file, a FIFO, each
# made beside it and put in place by an atomic rename (so each lasts as long
# as making the next one), until killed or a minute has passed.
SWAPPER = """
import os, sys, time
path = sys.argv[1]
tmp = path + ".swap"
def regular():
    with open(tmp, "wb") as handle:
        handle.write(b"x")
makers = [regular, lambda: os.symlink("/dev/zero", tmp), regular, lambda: os.mkfifo(tmp)]
end = time.monotonic() + 60
while time.monotonic() < end:
    for make in makers:
        make()
        os.replace(tmp, path)
"""

# Enough swaps caught mid-hash (each kind) for any unsafe open to have been hit.
CAUGHT = 5
# How long to keep trying for them: on a loaded machine the swapper runs
# beside the hashing only now and then.
TRYING = 10.0
# Far above TRYING: past it, the hashing is stuck on a FIFO or on /dev/zero.
DEADLINE = 20.0


def _hash_until_caught(path: Path, regular_mode: int, caught: Counter[str]) -> None:
    """Hash ``path`` until the swapper has been caught mid-hash often enough.

    A link swapped in after ``lstat`` makes the open fail ("?"); a FIFO makes
    it read nothing (the mode bits of the file ``lstat`` saw, no content)."""
    link = hashlib.sha256(b"?").digest()
    fifo = hashlib.sha256(b"F%o\0" % regular_mode).digest()
    end = time.monotonic() + TRYING
    while time.monotonic() < end and min(caught["link"], caught["fifo"]) < CAUGHT:
        tag = _file_digest(str(path))
        if tag == link:
            caught["link"] += 1
        elif tag == fifo:
            caught["fifo"] += 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="swaps in a link to /dev/zero")
def test_a_file_swapped_for_a_fifo_or_a_link_while_hashed_never_hangs(tmp_path: Path) -> None:
    probe = tmp_path / "probe"
    probe.write_bytes(b"x")  # made as the swapper makes its files: the same umask
    regular_mode = stat.S_IMODE(os.lstat(probe).st_mode)
    path = tmp_path / "swapped"
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(path)])
    try:
        while not path.exists():
            assert swapper.poll() is None, "the swapping process ended before it started"
        caught: Counter[str] = Counter()
        worker = threading.Thread(
            target=_hash_until_caught,
            args=(path, regular_mode, caught),
            daemon=True,  # a stuck hash must not keep the test process alive
        )
        worker.start()
        worker.join(DEADLINE)
        assert not worker.is_alive(), (
            f"hashing a swapped file hung (a FIFO waited on, or a link followed); caught {caught}"
        )
    finally:
        swapper.kill()
        swapper.wait()
