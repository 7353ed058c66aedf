"""Every exit path of ``lane_run``, each in a real child process.

The child is a small script using the public API; the parent reads the
envelope it left behind and checks it against the schema. Signals are sent
while the child is provably inside the lane: it prints ``ready`` and then
blocks on stdin, so there is no sleep and no race.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from tests.support.documents import read_envelope

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.integration

CHILD = r"""
import signal, sys
from pathlib import Path
from lanes.config import parse_config
from lanes.envelope import lane_run

# A child of a test runner may inherit SIGINT ignored (a background job) or
# SIGHUP ignored (a suite started under `nohup`); an interactive run has the
# default dispositions, which is the case under test. The suite must pass
# however CI starts it.
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGHUP, signal.SIG_DFL)
mode, root = sys.argv[1], Path(sys.argv[2])
config = parse_config({}, root=root)
if mode == "nohup":  # what `nohup lanes ...` does before the lane starts
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


def wait() -> None:
    print("ready", flush=True)
    sys.stdin.readline()


with lane_run("probe", config=config, seed=7) as run:
    run.data["mode"] = mode
    if mode == "pass":
        run.verdict(passed=True)
    elif mode == "fail":
        run.verdict(passed=False)
    elif mode == "raise":
        raise RuntimeError("boom <b>")
    elif mode in ("wait", "nohup"):
        wait()
        run.verdict(passed=True)
    elif mode == "nested":
        with lane_run("inner", config=config) as inner:
            wait()
            inner.verdict(passed=True)
        run.verdict(passed=True)
    # mode "no-verdict": the lane returns without saying pass or fail
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "LANES_"))}
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _child(tmp_path: Path, mode: str) -> subprocess.Popen[str]:
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    return subprocess.Popen(
        [sys.executable, str(script), mode, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )


def _run(tmp_path: Path, mode: str) -> tuple[int, str]:
    proc = _child(tmp_path, mode)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


def _signalled(tmp_path: Path, signum: signal.Signals, mode: str = "wait") -> tuple[int, str]:
    proc = _child(tmp_path, mode)
    assert proc.stdout is not None
    try:
        assert proc.stdout.readline() == "ready\n"
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err


def _envelope(tmp_path: Path, lane: str = "probe") -> dict[str, Any]:
    directory = tmp_path / "envelopes"
    # Atomic writes leave only finished files: no `.probe.json.<pid>.<n>.tmp`.
    assert [p.name for p in directory.iterdir() if not p.name.endswith(".json")] == []
    document = read_envelope(directory / f"{lane}.json")
    assert document["lane"] == lane
    return document


def test_pass(tmp_path: Path) -> None:
    code, err = _run(tmp_path, "pass")
    assert code == 0, err
    envelope = _envelope(tmp_path)
    assert (envelope["result"], envelope["stage"], envelope["error"]) == ("pass", "complete", None)
    assert envelope["data"] == {"mode": "pass"}
    assert envelope["seed"] == 7


def test_verdict_fail(tmp_path: Path) -> None:
    code, err = _run(tmp_path, "fail")
    assert code == 0, err  # a fail verdict is data, not a crash; the lane's CLI maps it to 1
    envelope = _envelope(tmp_path)
    assert (envelope["result"], envelope["stage"], envelope["error"]) == ("fail", "complete", None)


def test_exception(tmp_path: Path) -> None:
    code, err = _run(tmp_path, "raise")
    assert code == 1
    assert "RuntimeError: boom <b>" in err  # the exception still propagates
    envelope = _envelope(tmp_path)
    assert (envelope["result"], envelope["stage"]) == ("fail", "error")
    assert envelope["error"] == {"type": "RuntimeError", "message": "boom <b>"}
    assert envelope["data"] == {"mode": "raise"}


def test_no_verdict_is_an_error(tmp_path: Path) -> None:
    code, err = _run(tmp_path, "no-verdict")
    assert code == 0, err
    envelope = _envelope(tmp_path)
    assert (envelope["result"], envelope["stage"]) == ("fail", "error")
    assert envelope["error"]["type"] == "LanesError"
    assert "without a verdict" in envelope["error"]["message"]


def test_sigterm(tmp_path: Path) -> None:
    code, err = _signalled(tmp_path, signal.SIGTERM)
    # Killed by the signal itself (the shell shows 143), not a Python exit code.
    assert code == -signal.SIGTERM, err
    envelope = _envelope(tmp_path)
    assert (envelope["result"], envelope["stage"]) == ("fail", "error")
    assert envelope["error"] == {"type": "Terminated", "message": "terminated by SIGTERM"}


def test_sighup(tmp_path: Path) -> None:
    code, err = _signalled(tmp_path, signal.SIGHUP)
    assert code == -signal.SIGHUP, err
    assert _envelope(tmp_path)["error"]["message"] == "terminated by SIGHUP"


def test_sigint(tmp_path: Path) -> None:
    code, err = _signalled(tmp_path, signal.SIGINT)
    # An uncaught KeyboardInterrupt makes CPython re-raise SIGINT with the
    # default action, so the parent sees "killed by SIGINT" (the shell's 130).
    assert code == -signal.SIGINT, err
    envelope = _envelope(tmp_path)
    assert (envelope["result"], envelope["stage"]) == ("fail", "error")
    assert envelope["error"]["type"] == "KeyboardInterrupt"
    # Regression: the message was "" (str(KeyboardInterrupt()) is empty).
    assert envelope["error"]["message"] == "interrupted by SIGINT"


def test_sigterm_in_a_nested_lane_writes_both_envelopes(tmp_path: Path) -> None:
    # Regression: the inner lane re-delivered SIGTERM itself, killing the
    # process before the outer lane could write its envelope.
    code, err = _signalled(tmp_path, signal.SIGTERM, mode="nested")
    assert code == -signal.SIGTERM, err
    for lane in ("inner", "probe"):
        envelope = _envelope(tmp_path, lane)
        assert envelope["stage"] == "error"
        assert envelope["error"]["type"] == "Terminated"


def test_sigterm_while_reading_provenance(tmp_path: Path) -> None:
    # Regression: `git status` ran before the handlers were installed, so a
    # SIGTERM during a slow provenance read killed the lane with no envelope.
    # A fake `git` announces itself through a FIFO, then hangs.
    fifo = tmp_path / "git-started"
    os.mkfifo(fifo)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_git = bin_dir / "git"
    fake_git.write_text(f'#!/bin/sh\necho started > "{fifo}"\nexec sleep 60\n', encoding="utf-8")
    fake_git.chmod(0o755)
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    env = _env()
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    proc = subprocess.Popen(
        [sys.executable, str(script), "pass", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        # O_RDWR never blocks on a FIFO, so a child that never runs git (a
        # broken provenance reader) fails this test instead of hanging the suite.
        fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
        try:
            ready, _, _ = select.select([fd], [], [], 60)
            assert ready, "the lane never ran git for its provenance"
            assert os.read(fd, 100) == b"started\n"
        finally:
            os.close(fd)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGTERM, err
    envelope = _envelope(tmp_path)
    assert envelope["stage"] == "error"
    assert envelope["error"]["type"] == "Terminated"
    assert envelope["subject"] == {"commit": None, "dirty": False, "branch": None}


def test_an_ignored_signal_stays_ignored(tmp_path: Path) -> None:
    # Regression: lane_run replaced SIG_IGN with its own handler, so a lane
    # started under `nohup` died (with an error envelope) when the terminal
    # closed, which is exactly what the user had asked not to happen.
    proc = _child(tmp_path, "nohup")
    assert proc.stdout is not None
    assert proc.stdin is not None
    try:
        assert proc.stdout.readline() == "ready\n"
        proc.send_signal(signal.SIGHUP)
        # Still alive and still inside the lane: let it finish.
        proc.stdin.write("go on\n")
        proc.stdin.flush()
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    envelope = _envelope(tmp_path)
    assert (envelope["result"], envelope["stage"]) == ("pass", "complete")
