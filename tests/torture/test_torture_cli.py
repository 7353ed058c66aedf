"""``lanes torture`` end to end: output, exit codes, the envelope."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

import pytest

from lanes.cli import main
from lanes.torture.schedule import Schedule, dump_schedule
from lanes.torture.sweep import Settings, Variant, programs, run_seed
from tests.support.documents import read_envelope

if TYPE_CHECKING:
    from pathlib import Path

SIGNATURE = re.compile(r"^trace signature: ([0-9a-f]{32})$", re.MULTILINE)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.lanes.torture]\nruns = 3\nops = 15\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _envelope(project: Path) -> dict[str, Any]:
    return read_envelope(project / "envelopes" / "torture.json")


def test_sweep_passes_and_writes_a_valid_envelope(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["torture"]) == 0
    out = capsys.readouterr().out
    assert "3 seed(s) from 0" in out
    assert "two-client contention scenario: ok" in out
    document = _envelope(project)
    assert document["result"] == "pass"
    assert document["seed"] == {"start": 0, "count": 3}
    data = document["data"]
    assert isinstance(data, dict)
    assert data["mode"] == "sweep"
    assert data["executions"] == 6
    assert data["contention"]["held_blocks"] > 0
    assert data["contention"]["runner_locks"] > 0  # both lock layers were modelled
    assert data["violations"] == []
    assert data["self_check"] is None


def test_seed_replay_prints_the_same_signature_twice(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["torture", "--seed", "5"]) == 0
    first = SIGNATURE.findall(capsys.readouterr().out)
    assert main(["torture", "--seed", "5"]) == 0
    second = SIGNATURE.findall(capsys.readouterr().out)
    assert first == second
    assert len(first) == 1
    assert _envelope(project)["data"]["signature"] == first[0]


# Eight seeds of real processes racing for the lock, each variant planted: seconds,
# not the unit tier's 2.5 s.
@pytest.mark.integration
def test_self_check_catches_every_planted_bug(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 8 seeds: guardless-ignores-holder is caught by about 1 seed in 12 (its
    # first is seed 6 since the hook probes the kernel lock a second time,
    # seed 4 before: the added scheduling points move it), so 4 seeds caught
    # it by the seeds' luck, not by the check's strength.
    assert (
        main(["torture", "--runs", "1", "--ops", "40", "--self-check", "--self-check-runs", "8"])
        == 0
    )
    out = capsys.readouterr().out
    assert "self-check: planted bugs" in out
    self_check = _envelope(project)["data"]["self_check"]
    assert self_check["passed"] is True
    assert {row["bug"] for row in self_check["rows"]} >= {"no-ttl", "ledger-unlocked"}


def test_a_schedule_file_replays_from_the_command_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(clients=4, ops=40, scheduler="random", ttl=1800)
    result = run_seed(0, settings, Variant("no-ttl", ttl=1800))
    assert result.failed
    schedule = Schedule(0, "no-ttl", 1800, "liveness", programs(0, settings), tuple(result.choices))
    path = project / "s.json"
    path.write_text(dump_schedule(schedule), encoding="utf-8")
    assert main(["torture", "--schedule", str(path)]) == 1
    out = capsys.readouterr().out
    assert "liveness" in out
    assert SIGNATURE.search(out)
    data = _envelope(project)["data"]
    assert data["mode"] == "schedule"
    assert data["violations"][0]["invariant"] == "liveness"


def test_bad_schedule_file_is_a_usage_error_with_a_hint(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / "bad.json"
    path.write_text('{"format": "nope"}', encoding="utf-8")
    assert main(["torture", "--schedule", str(path)]) == 2
    err = capsys.readouterr().err
    assert "error: schedule file: missing" in err
    assert "hint: " in err


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "missing"])
def test_a_schedule_that_is_not_a_regular_file_is_refused_without_blocking(
    project: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    # `lanes torture --schedule FIFO` hung; /dev/zero was read without bound.
    path = project / "schedule.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    assert main(["torture", "--schedule", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"schedule file {str(path)!r}" in err
    assert ("does not exist" if kind == "missing" else "not a regular file") in err
    assert "hint: " in err


@pytest.mark.usefixtures("project")
def test_out_of_range_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["torture", "--clients", "1"]) == 2
    assert "--clients must be 2..64, got 1" in capsys.readouterr().err
