"""Contention-free re-timing: wall-clock minus the time the test waited for a CPU.

Confirmation re-timing (:mod:`lanes.slow.confirmation`) exists to tell a slow
test from a loaded machine. Re-timing alone is not enough when the load is
sustained — a competing busy loop stretches every sample — so in the
confirmation child each test's setup and call are measured as wall-clock
*minus* the time its thread spent runnable but waiting on the run queue
(Linux ``/proc/thread-self/schedstat``, second field). A test that sleeps,
waits on a socket or on a child process still pays that time in full: only
CPU contention is taken out. Where the file does not exist (not Linux) the
samples are plain wall-clock.

Only the confirmation child pays for this (two small file reads per phase);
the suite run itself is never slowed down.

Known limit: on a loaded Linux 6.18 the kernel's run delay once held 0.57 s
of a ``time.sleep(0.6)`` (a sleeping task left queued, counted as waiting),
so a test that sleeps can lose a sample to it. That errs towards
*unconfirmed*, never towards a false failure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import pytest

if TYPE_CHECKING:
    from collections.abc import Generator

__all__ = ["RunQueueClock", "available"]

_SCHEDSTAT: Final = "/proc/thread-self/schedstat"


def _waited() -> float:
    """Seconds this thread has spent runnable but not running, since it started."""
    with open(_SCHEDSTAT, encoding="ascii") as stat:  # noqa: PTH123  # the hot path of a per-phase probe: no Path object
        return int(stat.read().split()[1]) / 1e9


def available() -> bool:
    try:
        _waited()
    except (OSError, ValueError, IndexError):
        return False
    return True


class RunQueueClock:
    """Per test: seconds waited for a CPU during setup and during the call."""

    def __init__(self) -> None:
        self.setup: dict[str, float] = {}
        self.call: dict[str, float] = {}

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        before = _waited()
        try:
            return (yield)
        finally:
            self.setup[item.nodeid] = _waited() - before

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        before = _waited()
        try:
            return (yield)
        finally:
            self.call[item.nodeid] = _waited() - before
