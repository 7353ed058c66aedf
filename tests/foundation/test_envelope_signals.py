"""``lane_run`` and the signals that stop a lane, run in this process.

The subprocess tests (test_envelope_exit_paths.py) show a real ``lanes``
process end by each signal; these run the same code in the test process
itself, so the mutation lane sees them exercise it. Where the process must
die of the signal, the lane runs in a forked copy of this process: it dies,
the test runner does not.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import TYPE_CHECKING, Any

import pytest

from lanes.config import parse_config
from lanes.envelope import Terminated, lane_run, read_envelope

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

CATCHABLE = (signal.SIGTERM, signal.SIGHUP)


@pytest.fixture(autouse=True)
def _default_dispositions() -> Iterator[None]:
    """SIGTERM and SIGHUP at their defaults, as in an interactive shell, then put back.

    A test runner started under `nohup` inherits SIGHUP ignored; the lane
    rightly leaves an ignored signal alone, which is a case of its own below.
    """
    before = {signum: signal.getsignal(signum) for signum in CATCHABLE}
    for signum in CATCHABLE:
        signal.signal(signum, signal.SIG_DFL)
    yield
    for signum, handler in before.items():
        signal.signal(signum, handler)


def _envelope(root: Path, lane: str = "probe") -> dict[str, Any]:
    return read_envelope(root / "envelopes" / f"{lane}.json")


def _forked(body: Callable[[], None]) -> int:
    """Run ``body`` in a forked copy of this process; its wait status.

    The child never returns into pytest: whatever ``body`` does, it ends in
    ``os._exit`` (status 1 when ``body`` raised) unless a signal ended it first.
    """
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            body()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return status


def test_while_a_lane_runs_sigterm_and_sighup_are_its_own_and_put_back_after(
    tmp_path: Path,
) -> None:
    seen: dict[signal.Signals, object] = {}
    with lane_run("probe", config=parse_config({}, root=tmp_path)) as run:
        seen = {signum: signal.getsignal(signum) for signum in CATCHABLE}
        run.verdict(passed=True)
    assert all(callable(handler) for handler in seen.values()), seen
    assert seen[signal.SIGTERM] is seen[signal.SIGHUP]
    assert {signum: signal.getsignal(signum) for signum in CATCHABLE} == dict.fromkeys(
        CATCHABLE, signal.SIG_DFL
    )


def test_a_signal_the_process_ignores_stays_ignored_in_the_lane(tmp_path: Path) -> None:
    # What `nohup lanes ...` asks for: survive the terminal closing.
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    with lane_run("probe", config=parse_config({}, root=tmp_path)) as run:
        during = signal.getsignal(signal.SIGHUP)
        term = signal.getsignal(signal.SIGTERM)
        run.verdict(passed=True)
    assert during is signal.SIG_IGN
    assert callable(term)
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def _in_thread(body: Callable[[], None]) -> BaseException | None:
    """Run ``body`` in a thread; what it raised, if anything."""
    raised: list[BaseException] = []

    def target() -> None:
        try:
            body()
        except BaseException as exc:  # noqa: BLE001  # handed back to the test to inspect
            raised.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive()
    return raised[0] if raised else None


def test_a_lane_off_the_main_thread_leaves_the_signal_handlers_alone(tmp_path: Path) -> None:
    # Python installs handlers only from the main thread; the lane still runs.
    seen: list[object] = []

    def lane() -> None:
        with lane_run("probe", config=parse_config({}, root=tmp_path)) as run:
            seen.append(signal.getsignal(signal.SIGTERM))
            run.verdict(passed=True)

    assert _in_thread(lane) is None
    assert seen == [signal.SIG_DFL]
    assert _envelope(tmp_path)["result"] == "pass"


@pytest.mark.parametrize("signum", CATCHABLE, ids=lambda s: s.name)
def test_terminated_off_the_main_thread_is_enveloped_and_raised_on(
    tmp_path: Path, signum: signal.Signals
) -> None:
    # Off the main thread no lane is the one that re-delivers the signal: the
    # request to stop reaches the caller, with the envelope written.
    def lane() -> None:
        with lane_run("probe", config=parse_config({}, root=tmp_path)):
            raise Terminated(signum)

    raised = _in_thread(lane)
    assert isinstance(raised, Terminated)
    assert raised.signum == signum
    envelope = _envelope(tmp_path)
    assert (envelope["stage"], envelope["result"]) == ("error", "fail")
    assert envelope["error"] == {"type": "Terminated", "message": f"terminated by {signum.name}"}


def _pass(root: Path, lane: str = "probe") -> None:
    with lane_run(lane, config=parse_config({}, root=root)) as run:
        run.verdict(passed=True)
    assert _envelope(root, lane)["result"] == "pass"


@pytest.mark.parametrize("signum", CATCHABLE, ids=lambda s: s.name)
def test_a_signalled_lane_replaces_its_last_envelope_and_dies_of_the_signal(
    tmp_path: Path, signum: signal.Signals
) -> None:
    _pass(tmp_path)  # last run's pass must not outlive a run that was stopped

    def stopped() -> None:
        with lane_run("probe", config=parse_config({}, root=tmp_path)) as run:
            run.data["step"] = 1
            signal.raise_signal(signum)
            run.verdict(passed=True)

    status = _forked(stopped)
    # Killed by the signal, as the parent (a shell, CI) expects: not an exit status.
    assert os.WIFSIGNALED(status), status
    assert os.WTERMSIG(status) == signum
    envelope = _envelope(tmp_path)
    assert (envelope["stage"], envelope["result"]) == ("error", "fail")
    assert envelope["error"] == {"type": "Terminated", "message": f"terminated by {signum.name}"}
    assert envelope["data"] == {"step": 1}


def test_sigterm_in_a_nested_lane_leaves_both_envelopes_and_the_outer_one_re_delivers(
    tmp_path: Path,
) -> None:
    _pass(tmp_path, "outer")
    _pass(tmp_path, "inner")

    def nested() -> None:
        config = parse_config({}, root=tmp_path)
        with lane_run("outer", config=config) as outer:
            with lane_run("inner", config=config):
                signal.raise_signal(signal.SIGTERM)
            outer.verdict(passed=True)

    status = _forked(nested)
    assert os.WIFSIGNALED(status), status
    assert os.WTERMSIG(status) == signal.SIGTERM
    for lane in ("inner", "outer"):
        envelope = _envelope(tmp_path, lane)
        assert envelope["stage"] == "error", lane
        assert envelope["error"] == {"type": "Terminated", "message": "terminated by SIGTERM"}


def test_a_signal_while_the_provenance_is_read_still_leaves_an_envelope(tmp_path: Path) -> None:
    # `git status` on a large tree takes seconds; a SIGTERM then must still
    # leave an envelope, with the provenance it did not get to read left empty.
    _pass(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_git = bin_dir / "git"
    # Its parent is the lane's process: the signal arrives while git "runs".
    fake_git.write_text("#!/bin/sh\nkill -TERM $PPID\nexec sleep 60\n", encoding="utf-8")
    fake_git.chmod(0o755)

    def slow_provenance() -> None:
        os.environ["PATH"] = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
        with lane_run("probe", config=parse_config({}, root=tmp_path)) as run:
            run.verdict(passed=True)

    status = _forked(slow_provenance)
    assert os.WIFSIGNALED(status), status
    assert os.WTERMSIG(status) == signal.SIGTERM
    envelope = _envelope(tmp_path)
    assert envelope["error"] == {"type": "Terminated", "message": "terminated by SIGTERM"}
    assert envelope["subject"] == {"commit": None, "dirty": False, "branch": None}
