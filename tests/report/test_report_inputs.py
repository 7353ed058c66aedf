"""``lanes report`` and ``lanes envelope validate`` against hostile inputs: a missing or badly named ``--dir`` is a usage error
that creates nothing; a FIFO or a device never hangs or exhausts memory."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from lanes.cli import main
from tests.report.report_fixtures import write_lane

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_RUN_ID", "LANES_GROUP_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def test_a_missing_dir_is_a_usage_error_and_is_not_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "--dir", "nonexistent"]) == 2
    assert "error: --dir 'nonexistent' does not exist" in capsys.readouterr().err
    assert not (tmp_path / "nonexistent").exists()


def test_a_dir_with_a_non_utf8_name_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = os.fsdecode(b"env\xff\xfe")
    (tmp_path / name).mkdir()
    assert main(["report", "--dir", name]) == 2
    err = capsys.readouterr().err
    assert "not a valid UTF-8 name" in err
    assert "Traceback" not in err


@pytest.mark.integration
def test_a_fifo_among_the_envelopes_is_invalid_not_a_hang(tmp_path: Path) -> None:
    write_lane(tmp_path, "alpha", "pass")
    os.mkfifo(tmp_path / "envelopes" / "beta.json")
    proc = subprocess.run(
        [sys.executable, "-m", "lanes", "report"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stderr
    assert "not a regular file" in (tmp_path / "envelopes" / "summary.md").read_text("utf-8")


@pytest.mark.integration
@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_envelope_validate_refuses_devices_and_fifos(tmp_path: Path, target: str) -> None:
    if target == "fifo":
        os.mkfifo(tmp_path / "fifo")
    proc = subprocess.run(
        [sys.executable, "-m", "lanes", "envelope", "validate", target],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "is not a regular file" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
