"""Progress for long lanes: a live bar on a terminal, a periodic line in a log.

Usage (one ``with`` per phase of work; everything goes to stderr, never stdout,
so a script that parses a lane's stdout sees exactly what it saw before)::

    from lanes.progress import progress

    with progress("fuzz", total=len(targets) * iterations, unit="cases") as bar:
        for target in targets:
            bar.item(target.name)           # what is being worked on now
            for _ in cases:
                bar.advance()               # one unit done (cheap: batched)
            bar.set((index + 1) * iterations)   # jump when a phase ends early

On a terminal (stderr is a TTY and ``TERM`` is not ``dumb``) it draws a rich
progress bar — done/total, rate, ETA, the current item — and removes it when
the ``with`` ends; rich is a lane dependency, never imported by the governor
or at ``import lanes``. Anywhere else (CI logs, ``2> file``) it prints one
plain line every ``LANES_PROGRESS_INTERVAL`` seconds (default 10) and a last
line when the phase ends::

    fuzz: 1200/5000 cases (24%), 310 cases/s, ETA 12s, now: ledger

``LANES_PROGRESS=0`` silences it; ``NO_COLOR`` (https://no-color.org) turns the
bar's colours off. ``total=None`` means "unknown": no percentage, no ETA.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol, TextIO

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["DEFAULT_INTERVAL_S", "Progress", "format_duration", "progress"]

DEFAULT_INTERVAL_S = 10.0
# How often a live bar is redrawn at most: advance() may run a million times,
# the terminal needs ten frames a second.
_FLUSH_S = 0.1


class _Sink(Protocol):
    def draw(self, done: int, item: str | None) -> None: ...

    def close(self, done: int, item: str | None) -> None: ...


def format_duration(seconds: float) -> str:
    """``42s``, ``3m05s``, ``2h07m``: short enough for a progress line."""
    if not math.isfinite(seconds) or seconds < 0:
        return "?"
    whole = round(seconds)
    if whole < 60:  # a minute
        return f"{whole}s"
    if whole < 3600:  # an hour
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


class Progress:
    """Counts work done; the sink decides how (and how often) it is shown."""

    def __init__(self, sink: _Sink | None) -> None:
        self._sink = sink
        self.done = 0
        self.current: str | None = None
        self._last_flush = time.monotonic()

    def advance(self, amount: int = 1) -> None:
        """``amount`` more units are done."""
        self.done += amount
        self._maybe_flush()

    def set(self, done: int) -> None:
        """The absolute count (a phase that ended early jumps to its end)."""
        self.done = done
        self._maybe_flush()

    def item(self, name: str) -> None:
        """What is being worked on now (a target, a seed, a module)."""
        self.current = name
        # At once: a log's heartbeat must name the item even if no count moves.
        self._flush()

    def _maybe_flush(self) -> None:
        if self._sink is not None and time.monotonic() - self._last_flush >= _FLUSH_S:
            self._flush()

    def _flush(self) -> None:
        if self._sink is not None:
            self._last_flush = time.monotonic()
            self._sink.draw(self.done, self.current)

    def _close(self) -> None:
        if self._sink is not None:
            self._sink.close(self.done, self.current)


class _LogLines:
    """One plain line every ``interval`` seconds, and one at the end.

    A ticker thread writes the lines, so a log keeps its heartbeat while one
    item (a mutated module, a stalled case) takes minutes without a count
    moving; ``draw`` only records the latest count.
    """

    def __init__(
        self, label: str, total: int | None, unit: str, interval: float, stream: TextIO
    ) -> None:
        self.label, self.total, self.unit = label, total, unit
        self.interval, self.stream = interval, stream
        self.started = time.monotonic()
        self.latest: tuple[int, str | None] = (0, None)
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name=f"progress-{label}", daemon=True)
        self._ticker.start()

    def line(self, done: int, item: str | None) -> str:
        elapsed = time.monotonic() - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        if self.total:
            head = f"{self.label}: {done}/{self.total} {self.unit} ({100 * done // self.total}%)"
        else:
            head = f"{self.label}: {done} {self.unit}"
        # Whole numbers once a rate is big enough to read, two digits below.
        speed = f"{rate:.0f}" if rate >= 10 else f"{rate:.2g}"
        parts = [head, f"{speed} {self.unit}/s"]
        if self.total and rate > 0 and done < self.total:
            parts.append(f"ETA {format_duration((self.total - done) / rate)}")
        parts.append(f"elapsed {format_duration(elapsed)}")
        if item:
            parts.append(f"now: {item}")
        return ", ".join(parts)

    def _tick(self) -> None:
        # A floor on the period: LANES_PROGRESS_INTERVAL=0 must not spin a core.
        while not self._stop.wait(max(self.interval, _FLUSH_S)):
            print(self.line(*self.latest), file=self.stream, flush=True)

    def draw(self, done: int, item: str | None) -> None:
        self.latest = (done, item)

    def close(self, done: int, item: str | None) -> None:
        self._stop.set()
        self._ticker.join()
        # The closing line only when the phase was long enough to have earned
        # periodic lines: a two-second run stays as quiet as before.
        if time.monotonic() - self.started >= self.interval:
            print(self.line(done, item), file=self.stream, flush=True)


class _RichBar:
    """A transient rich bar on stderr (rich honours ``NO_COLOR`` itself)."""

    def __init__(self, label: str, total: int | None, unit: str, stream: TextIO) -> None:
        from rich.console import Console  # noqa: PLC0415  # a lane dependency, only on a terminal
        from rich.progress import (  # noqa: PLC0415
            BarColumn,
            MofNCompleteColumn,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichProgress  # noqa: PLC0415

        self._bar = RichProgress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[speed_text]}"),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[item]}"),
            console=Console(file=stream),
            transient=True,
        )
        self._unit = unit
        self._task = self._bar.add_task(label, total=total, item="", speed_text="")
        self._started = time.monotonic()
        self._bar.start()

    def draw(self, done: int, item: str | None) -> None:
        elapsed = time.monotonic() - self._started
        speed = f"{done / elapsed:.0f} {self._unit}/s" if elapsed > 0 else ""
        self._bar.update(self._task, completed=done, item=item or "", speed_text=speed)

    def close(self, done: int, item: str | None) -> None:
        self.draw(done, item)
        self._bar.stop()


def _interval() -> float:
    raw = os.environ.get("LANES_PROGRESS_INTERVAL", "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_INTERVAL_S  # unset or garbage: progress is advisory, never an error
    return value if math.isfinite(value) and value >= 0 else DEFAULT_INTERVAL_S


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty() and os.environ.get("TERM", "") != "dumb"
    except (AttributeError, ValueError):  # a closed or fake stream
        return False


def _sink(label: str, total: int | None, unit: str, stream: TextIO) -> _Sink | None:
    if os.environ.get("LANES_PROGRESS", "1").strip().lower() in {"0", "false", "no", "off"}:
        return None
    if _is_terminal(stream):
        try:
            return _RichBar(label, total, unit, stream)
        except ImportError:
            pass  # rich absent (a bare governor install): the plain lines still work
    return _LogLines(label, total, unit, _interval(), stream)


@contextmanager
def progress(
    label: str, *, total: int | None, unit: str = "items", stream: TextIO | None = None
) -> Iterator[Progress]:
    """Show progress of ``label`` on ``stream`` (default: stderr) while the block runs."""
    bar = Progress(_sink(label, total, unit, sys.stderr if stream is None else stream))
    try:
        yield bar
    finally:
        bar._close()  # the context manager owns the sink's lifetime
