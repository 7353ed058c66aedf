"""Progress of long lanes: a bar on a terminal, periodic lines in a log, never on stdout."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import threading
from typing import TYPE_CHECKING

import pytest

from lanes.progress import format_duration, progress
from tests.support.processes import lanes_command, run_lanes

if TYPE_CHECKING:
    from pathlib import Path


def test_a_log_gets_a_plain_line_with_count_rate_and_current_item(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LANES_PROGRESS_INTERVAL", "0")
    stream = io.StringIO()
    with progress("fuzz", total=10, unit="cases", stream=stream) as bar:
        bar.item("ledger")
        for _ in range(4):
            bar.advance()
    last = stream.getvalue().splitlines()[-1]
    assert last.startswith("fuzz: 4/10 cases (40%), ")
    assert "cases/s" in last
    assert last.endswith("now: ledger")
    assert "\x1b" not in stream.getvalue()  # no escape codes in a log


class _Heard(io.StringIO):
    """A log that signals its first line."""

    def __init__(self) -> None:
        super().__init__()
        self.heard = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if "\n" in text:
            self.heard.set()
        return written


def test_a_log_keeps_its_heartbeat_while_one_item_takes_long(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No count moves while one module is mutated for minutes: the log still gets its line."""
    monkeypatch.setenv("LANES_PROGRESS_INTERVAL", "0")
    stream = _Heard()
    with progress("mutation", total=3, unit="modules", stream=stream) as bar:
        bar.item("lanes.governor.lock")
        # Nothing advances; the ticker must write on its own (5 s is only a safety net).
        assert stream.heard.wait(timeout=5)
    first = stream.getvalue().splitlines()[0]
    assert first.startswith("mutation: 0/3 modules (0%)")
    assert first.endswith("now: lanes.governor.lock")


def test_an_unknown_total_shows_the_count_without_percent_or_eta(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LANES_PROGRESS_INTERVAL", "0")
    stream = io.StringIO()
    with progress("mutation", total=None, unit="mutants", stream=stream) as bar:
        bar.advance(3)
    last = stream.getvalue().splitlines()[-1]
    assert last.startswith("mutation: 3 mutants, ")
    assert "%" not in last
    assert "ETA" not in last


def test_a_short_phase_in_a_log_stays_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LANES_PROGRESS_INTERVAL", raising=False)  # default: every 10 s
    stream = io.StringIO()
    with progress("torture", total=5, unit="seeds", stream=stream) as bar:
        bar.advance(5)
    assert stream.getvalue() == ""


def test_lanes_progress_0_silences_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANES_PROGRESS", "0")
    monkeypatch.setenv("LANES_PROGRESS_INTERVAL", "0")
    stream = io.StringIO()
    with progress("fuzz", total=2, stream=stream) as bar:
        bar.advance(2)
    assert stream.getvalue() == ""


def test_a_garbage_interval_falls_back_to_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANES_PROGRESS_INTERVAL", "soon")
    stream = io.StringIO()
    with progress("fuzz", total=2, stream=stream) as bar:
        bar.advance(2)
    assert stream.getvalue() == ""  # 10 s default: a short phase prints nothing, no error


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0s"), (59.4, "59s"), (61, "1m01s"), (3600, "1h00m"), (7625, "2h07m"), (-1, "?")],
)
def test_durations_read_short(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


def _project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n\n[tool.lanes]\n')
    return tmp_path


@pytest.mark.integration
def test_lanes_fuzz_piped_to_a_file_writes_periodic_lines_on_stderr_only(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    env = {**os.environ, "LANES_PROGRESS_INTERVAL": "0"}
    done = run_lanes("fuzz", "--target", "ledger", "--iterations", "20", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    progress_lines = [line for line in done.stderr.splitlines() if line.startswith("fuzz: ")]
    assert progress_lines, done.stderr
    assert progress_lines[-1].startswith("fuzz: 20/20 cases (100%)")
    assert "now: ledger" in progress_lines[-1]
    # stdout is what it always was: scripts parse it.
    assert not any("cases (" in line for line in done.stdout.splitlines())
    assert done.stdout.splitlines()[0].startswith("ledger: 20 cases, 0 failures")


def _run_on_a_terminal(argv: list[str], cwd: Path, env: dict[str, str]) -> bytes:
    leader, follower = pty.openpty()
    with subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=follower, stdout=follower, stderr=follower
    ) as proc:
        os.close(follower)
        output = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            output += chunk
        proc.wait(timeout=120)
    os.close(leader)
    return output


@pytest.mark.integration
def test_lanes_fuzz_on_a_terminal_draws_a_bar_without_colour_under_no_color(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    env = {**os.environ, "TERM": "xterm-256color", "NO_COLOR": "1", "COLUMNS": "160"}
    env.pop("LANES_PROGRESS_INTERVAL", None)
    env.pop("LANES_PROGRESS", None)
    output = _run_on_a_terminal(
        [*lanes_command(), "fuzz", "--target", "ledger", "--iterations", "20"], project, env
    ).decode("utf-8", "replace")
    assert "20/20" in output  # the bar's done/total column
    assert "ETA" in output
    assert "ledger: 20 cases, 0 failures" in output
    assert "\x1b[3" not in output  # no foreground colour codes (bold is not colour)
