"""Inline SVG charts: no script, no network, readable without colour.

Every chart is an ``<svg role="img">`` whose ``<title>`` names it and whose
``<desc>`` carries the text alternative (the same figures in words), so a
screen reader or a text browser loses nothing; values are written next to
their marks, and the state a colour shows (over budget, a miss) is also shown
by a dashed outline and a word. Charts scale down to the page (``viewBox``,
``max-width: 100%``), so they never make it wider than the screen, and never
scale up past their own width.

Readable on a phone: a chart is :data:`WIDTH` units wide with its text at
:data:`FONT_SIZE`, and each label sits on its own line above its bar (a label
column beside the bars left them a third of the width), so at 390 px — about
358 px of page — the text still renders at ~12 px. Text drawn on a coloured
bar takes the ink (:func:`ink`) with the higher contrast, at least 4.5:1.

All text that reaches the markup goes through :func:`html.escape` here: the
templates insert the finished SVG as is.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Bar", "Segment", "bar_chart", "contrast", "ink", "sparkline", "stacked_bars"]

WIDTH = 480
FONT_SIZE = 17
# One row: the label's line, then the bar (value written after it).
LABEL_H = 21
BAR_H = 20
ROW = LABEL_H + BAR_H + 8
PAD = 4
VALUE_W = 150
_FONT = f'font-family="system-ui, sans-serif" font-size="{FONT_SIZE}"'
DARK = "#1f2328"
LIGHT = "#ffffff"
# Colours chosen to differ in lightness too (readable in greyscale).
COLOURS = {
    "ok": "#1a7f37",
    "fine": "#6fdd8b",
    "near": "#0969da",
    "warn": "#bf8700",
    "bad": "#cf222e",
    "info": "#57606a",
}


def _luminance(colour: str) -> float:
    """WCAG 2 relative luminance of ``#rrggbb``."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    """WCAG 2 contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    high, low = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def ink(fill: str) -> str:
    """The text colour, dark or light, that reads best on ``fill``."""
    return max((DARK, LIGHT), key=lambda text: contrast(text, fill))


def _open(title: str, summary: str, height: int) -> str:
    # The width attribute is the chart's natural size; CSS (max-width: 100%)
    # only ever shrinks it, so desktop text is not blown up either.
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" preserveAspectRatio="xMinYMin meet" class="chart" '
        f"{_FONT}><title>{escape(title)}</title><desc>{escape(summary)}</desc>"
    )


def _clip(label: str, chars: int = 48) -> str:
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
    height = ROW * len(bars) + (LABEL_H + 10 if marker is not None else PAD * 2)
    top = max([bar.value for bar in bars] + [marker or 0.0, 1e-12])
    span = WIDTH - PAD - VALUE_W
    parts = [_open(title, summary, height)]
    for index, bar in enumerate(bars):
        y = PAD + index * ROW
        width = max(1.0, span * max(bar.value, 0.0) / top)
        dashed = f' stroke="{DARK}" stroke-dasharray="4 2"' if bar.state in _WORD else ""
        word = f" ({bar.word or _WORD[bar.state]})" if bar.state in _WORD else ""
        parts.append(
            f'<text x="{PAD}" y="{y + LABEL_H - 5}">{escape(_clip(bar.label))}</text>'
            f'<rect x="{PAD}" y="{y + LABEL_H}" width="{width:.1f}" height="{BAR_H}" '
            f'fill="{COLOURS.get(bar.state, COLOURS["info"])}"{dashed}/>'
            f'<text x="{PAD + width + 4:.1f}" y="{y + LABEL_H + BAR_H - 4}">'
            f"{escape(bar.shown + word)}</text>"
        )
    if marker is not None:
        x = PAD + span * marker / top
        bottom = ROW * len(bars) + PAD
        parts.append(
            f'<line x1="{x:.1f}" y1="{PAD}" x2="{x:.1f}" y2="{bottom}" stroke="{DARK}" '
            f'stroke-dasharray="2 2"/><text x="{x:.1f}" y="{bottom + LABEL_H - 2}" '
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
    line = LABEL_H + 2
    height = ROW * len(rows) + PAD * 2 + line * len(legend)
    span = WIDTH - 2 * PAD
    parts = [_open(title, summary, height)]
    for index, (name, segments) in enumerate(rows):
        y = PAD + index * ROW
        total = sum(segment.count for segment in segments) or 1
        x = float(PAD)
        parts.append(f'<text x="{PAD}" y="{y + LABEL_H - 5}">{escape(_clip(name))}</text>')
        for segment in segments:
            if segment.count <= 0:
                continue
            width = span * segment.count / total
            fill = COLOURS.get(segment.state, COLOURS["info"])
            dashed = f' stroke="{DARK}" stroke-dasharray="4 2"' if segment.state in _WORD else ""
            # Opaque: a translucent fill lightened the bar under a white count
            # to 2.6:1 contrast.
            parts.append(
                f'<rect x="{x:.1f}" y="{y + LABEL_H}" width="{width:.1f}" height="{BAR_H}" '
                f'fill="{fill}"{dashed}>'
                f"<title>{escape(f'{segment.label}: {segment.count}')}</title></rect>"
            )
            if width > 10 * len(str(segment.count)) + 8:  # room for the count inside
                parts.append(
                    f'<text x="{x + width / 2:.1f}" y="{y + LABEL_H + BAR_H - 4}" '
                    f'text-anchor="middle" fill="{ink(fill)}">{segment.count}</text>'
                )
            x += width
    # One legend entry a line: two columns did not fit a phone's width.
    legend_y = ROW * len(rows) + PAD + LABEL_H
    for index, ((label, state), count) in enumerate(legend.items()):
        ly = legend_y + index * line
        dashed = f' stroke="{DARK}" stroke-dasharray="3 2"' if state in _WORD else ""
        parts.append(
            f'<rect x="{PAD}" y="{ly - 13}" width="14" height="14" '
            f'fill="{COLOURS.get(state, COLOURS["info"])}"{dashed}/>'
            f'<text x="{PAD + 20}" y="{ly}">{escape(f"{label}: {count:,}")}</text>'
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
