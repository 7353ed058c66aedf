"""Inline SVG charts: no script, no network, readable without colour.

Every chart is an ``<svg role="img">`` whose ``<title>`` names it and whose
``<desc>`` carries the text alternative (the same figures in words), so a
screen reader or a text browser loses nothing; values are written next to
their marks, and the state a colour shows (over budget, a miss) is also shown
by a dashed outline and a word. Charts scale to the page (``viewBox``, width
100%), so they never make it wider than the screen.

All text that reaches the markup goes through :func:`html.escape` here: the
templates insert the finished SVG as is.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Bar", "Segment", "bar_chart", "sparkline", "stacked_bars"]

WIDTH = 640
ROW = 26
LABEL_W = 200
VALUE_W = 110
_FONT = 'font-family="system-ui, sans-serif" font-size="12"'
# Colours chosen to differ in lightness too (readable in greyscale).
COLOURS = {
    "ok": "#1a7f37",
    "fine": "#6fdd8b",
    "near": "#0969da",
    "warn": "#bf8700",
    "bad": "#cf222e",
    "info": "#57606a",
}


def _open(title: str, summary: str, height: int) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {WIDTH} {height}" '
        f'width="100%" preserveAspectRatio="xMinYMin meet" class="chart" {_FONT}>'
        f"<title>{escape(title)}</title><desc>{escape(summary)}</desc>"
    )


def _clip(label: str, chars: int = 30) -> str:
    return label if len(label) <= chars else label[: chars - 1] + "…"


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    shown: str
    """The value as text, written after the bar."""
    state: str = "ok"
    """ok, warn, bad or info: colour, and for warn/bad a dashed outline and a word."""
    word: str = ""
    """The word written after a warn/bad bar's value (default: band / over)."""


_WORD = {"warn": "band", "bad": "over"}


def bar_chart(
    title: str,
    summary: str,
    bars: Sequence[Bar],
    *,
    marker: float | None = None,
    marker_label: str = "",
) -> str:
    """Horizontal bars from zero; ``marker`` draws a labelled vertical line (a budget, a goal)."""
    height = ROW * len(bars) + (30 if marker is not None else 10)
    top = max([bar.value for bar in bars] + [marker or 0.0, 1e-12])
    span = WIDTH - LABEL_W - VALUE_W
    parts = [_open(title, summary, height)]
    for index, bar in enumerate(bars):
        y = 5 + index * ROW
        width = max(1.0, span * max(bar.value, 0.0) / top)
        dashed = ' stroke="#1f2328" stroke-dasharray="4 2"' if bar.state in _WORD else ""
        word = f" ({bar.word or _WORD[bar.state]})" if bar.state in _WORD else ""
        parts.append(
            f'<text x="{LABEL_W - 6}" y="{y + 14}" text-anchor="end">{escape(_clip(bar.label))}</text>'
            f'<rect x="{LABEL_W}" y="{y + 2}" width="{width:.1f}" height="{ROW - 8}" '
            f'fill="{COLOURS.get(bar.state, COLOURS["info"])}"{dashed}/>'
            f'<text x="{LABEL_W + width + 4:.1f}" y="{y + 14}">{escape(bar.shown + word)}</text>'
        )
    if marker is not None:
        x = LABEL_W + span * marker / top
        bottom = ROW * len(bars) + 8
        parts.append(
            f'<line x1="{x:.1f}" y1="2" x2="{x:.1f}" y2="{bottom}" stroke="#1f2328" '
            f'stroke-dasharray="2 2"/><text x="{x:.1f}" y="{bottom + 14}" '
            f'text-anchor="middle">{escape(marker_label)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class Segment:
    label: str
    count: int
    state: str


def stacked_bars(title: str, summary: str, rows: Sequence[tuple[str, Sequence[Segment]]]) -> str:
    """One 100% bar per row, split into labelled segments (a distribution over buckets)."""
    # The legend carries each bucket's total, so small segments stay readable.
    legend: dict[tuple[str, str], int] = {}
    for _name, segments in rows:
        for segment in segments:
            key = (segment.label, segment.state)
            legend[key] = legend.get(key, 0) + segment.count
    height = ROW * len(rows) + 24 + 18 * ((len(legend) + 1) // 2)
    span = WIDTH - LABEL_W - 10
    parts = [_open(title, summary, height)]
    for index, (name, segments) in enumerate(rows):
        y = 5 + index * ROW
        total = sum(segment.count for segment in segments) or 1
        x = float(LABEL_W)
        parts.append(
            f'<text x="{LABEL_W - 6}" y="{y + 14}" text-anchor="end">{escape(_clip(name))}</text>'
        )
        for segment in segments:
            if segment.count <= 0:
                continue
            width = span * segment.count / total
            dashed = ' stroke="#1f2328" stroke-dasharray="4 2"' if segment.state in _WORD else ""
            parts.append(
                f'<rect x="{x:.1f}" y="{y + 2}" width="{width:.1f}" height="{ROW - 8}" '
                f'fill="{COLOURS.get(segment.state, COLOURS["info"])}" fill-opacity="0.85"{dashed}>'
                f"<title>{escape(f'{segment.label}: {segment.count}')}</title></rect>"
            )
            if width > 24:  # room for the count inside the segment
                parts.append(
                    f'<text x="{x + width / 2:.1f}" y="{y + 14}" text-anchor="middle" '
                    f'fill="{"#1f2328" if segment.state == "fine" else "#fff"}">'
                    f"{segment.count}</text>"
                )
            x += width
    legend_y = ROW * len(rows) + 20
    for index, ((label, state), count) in enumerate(legend.items()):
        lx = LABEL_W + (index % 2) * 220
        ly = legend_y + (index // 2) * 18
        dashed = ' stroke="#1f2328" stroke-dasharray="3 2"' if state in _WORD else ""
        parts.append(
            f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" '
            f'fill="{COLOURS.get(state, COLOURS["info"])}"{dashed}/>'
            f'<text x="{lx + 16}" y="{ly}">{escape(f"{label}: {count:,}")}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def sparkline(title: str, summary: str, values: Sequence[float], *, shown_last: str) -> str:
    """A small trend line over runs, oldest left; the last value is written out."""
    width, height, pad = 220, 40, 4
    low, high = min(values), max(values)
    spread = (high - low) or 1.0
    step = (width - 2 * pad - 70) / max(1, len(values) - 1)

    def point(index: int, value: float) -> tuple[float, float]:
        if high == low:  # a flat series sits in the middle, not on the floor
            return pad + index * step, height / 2
        return pad + index * step, height - pad - (value - low) / spread * (height - 2 * pad)

    points = [point(index, value) for index, value in enumerate(values)]
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    last_x, last_y = points[-1]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" class="spark" {_FONT}>'
        f"<title>{escape(title)}</title><desc>{escape(summary)}</desc>"
        f'<polyline points="{path}" fill="none" stroke="#0969da" stroke-width="1.5"/>'
        + "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2" fill="#0969da"/>' for x, y in points)
        + f'<text x="{last_x + 6:.1f}" y="{min(max(last_y + 4, 12), height - 2):.1f}">'
        f"{escape(shown_last)}</text></svg>"
    )
