"""`lanes slow pin` reads the last slow envelope strictly: a FIFO there never hangs it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from tests.support.processes import run_lanes

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.integration
def test_a_fifo_at_the_slow_envelope_is_no_envelope(tmp_path: Path) -> None:
    # Regression: read_text() on a FIFO at envelopes/slow.json waited for a
    # writer forever (run_lanes' timeout turns a hang into a failure).
    (tmp_path / "pyproject.toml").write_text("[tool.lanes.slow]\nenabled = true\n")
    (tmp_path / "envelopes").mkdir()
    os.mkfifo(tmp_path / "envelopes" / "slow.json")
    pin = ["slow", "pin", "tests/test_a.py::test_a", "--reason", "waits for a real server"]
    proc = run_lanes(*pin, "--tracking", "#12", cwd=tmp_path, timeout=30)
    assert "Traceback" not in proc.stderr
    assert proc.returncode in (0, 1, 2), proc.stderr
