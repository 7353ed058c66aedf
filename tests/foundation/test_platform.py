"""On a platform without POSIX file locks, every command says so (exit 2), no traceback."""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from lanes.errors import LanesError, PlatformError

if TYPE_CHECKING:
    from pathlib import Path

# `sys.modules["fcntl"] = None` makes the module unimportable, as on Windows.
_WITHOUT_FCNTL = (
    "import sys; sys.modules['fcntl'] = None; "
    "from lanes.cli import main; sys.exit(main(sys.argv[1:]))"
)


@pytest.mark.integration  # a real interpreter without fcntl
def test_a_command_without_fcntl_is_a_clear_platform_error(tmp_path: Path) -> None:
    # `governor unlock` needs the file locks: before the check it crashed (exit 3, traceback).
    proc = subprocess.run(
        [sys.executable, "-c", _WITHOUT_FCNTL, "governor", "unlock"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "error: lanekit needs a POSIX system (fcntl file locks)" in proc.stderr
    assert "hint: run lanekit on Linux or macOS" in proc.stderr


def test_platform_error_is_a_lanes_error_and_an_os_error() -> None:
    assert issubclass(PlatformError, LanesError)
    assert issubclass(PlatformError, OSError)
