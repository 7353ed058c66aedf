"""The one-row-per-suite table: what the lane prints and the report shows.

suite | collected | wall | CPU | peak memory | top offender | xdist verdict | Δ vs baseline

Each cell is a short string built from the suite's envelope entry, so every
reader (the terminal, the job summary, the HTML page) shows the same words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

if TYPE_CHECKING:
    from collections.abc import Sequence

    from lanes.payloads.timing import TimingArm, TimingRow, TimingStat, TimingSuite

__all__ = ["COLUMNS", "Column", "render", "row"]

# The keys of a row (lanes.payloads.timing.TimingRow), in the table's order.
Column = Literal[
    "suite", "collected", "wall", "cpu", "peak_memory", "top_offender", "xdist", "delta"
]
COLUMNS: Final[tuple[Column, ...]] = (
    "suite",
    "collected",
    "wall",
    "cpu",
    "peak_memory",
    "top_offender",
    "xdist",
    "delta",
)
_HEADERS: Final = (
    "suite",
    "collected",
    "wall",
    "CPU",
    "peak memory",
    "top offender",
    "xdist verdict",
    "Δ vs baseline",
)
_SHORT: Final = {"wall_ms": "wall", "cpu_ms": "CPU", "peak_rss_kib": "mem"}


def _seconds(figure: TimingStat) -> str:
    median = f"{figure['median'] / 1000:.1f}s"
    if figure["min"] == figure["max"]:
        return median
    return f"{median} [{figure['min'] / 1000:.1f}-{figure['max'] / 1000:.1f}]"


def _memory(measured: TimingArm) -> str:
    mib = measured["peak_rss_kib"]["median"] / 1024
    processes = len(measured["processes"])
    if processes > 1:
        return f"{mib:.0f} MiB (sum of {processes} processes)"
    return f"{mib:.0f} MiB"


def _collected(suite: TimingSuite) -> str:
    if suite["collected"] is None:
        return "—"
    text = f"{suite['collected']:,}"
    change = suite["comparison"]["collected"]
    if change and change["delta"]:
        sign = "+" if change["delta"] > 0 else "-"
        text = f"{change['baseline']:,} → {text} ({sign}{abs(change['delta']):,})"
    return text


def _offender(suite: TimingSuite) -> str:
    offenders = suite["offenders"]
    if not offenders or not offenders["tests"]:
        return "—"
    top = offenders["tests"][0]
    return f"{top['nodeid']} {top['ms'] / 1000:.1f}s"


def _xdist(suite: TimingSuite) -> str:
    block = suite["xdist"]
    if block is None:
        return f"not measured ({suite['xdist_skipped'] or 'skipped'})"
    detail = f"-n {block['recommended_n']}"
    if block["speedup"] is not None:
        detail += f", {block['speedup']:.2f}× at -n {block['workers']}"
    return f"{block['verdict']} ({detail})"


def _delta(suite: TimingSuite) -> str:
    comparison = suite["comparison"]
    if comparison["status"] == "no baseline":
        return "no baseline"
    if comparison["status"] == "not comparable":
        return "not comparable"
    parts = []
    for metric in comparison["metrics"]:
        pct = metric["delta_pct"]
        change = "n/a" if pct is None else f"{pct:+.1f}%"
        flag = "" if metric["flag"] == "within noise" else f" {metric['flag']}"
        parts.append(f"{_SHORT[metric['metric']]} {change}{flag}")
    if comparison["gate"]["failed"]:
        # CPU or wall clock: the REGRESSION line and the envelope's gate say which.
        parts.append("FAIL: over the regression gate")
    return ", ".join(parts)


def row(suite: TimingSuite) -> TimingRow:
    """The table row of one suite entry."""
    measured = suite["measured"]
    name = suite["name"] if suite["status"] == "passed" else f"{suite['name']} (FAILED)"
    return {
        "suite": name,
        "collected": _collected(suite),
        "wall": _seconds(measured["wall_ms"]),
        "cpu": _seconds(measured["cpu_ms"]),
        "peak_memory": _memory(measured),
        "top_offender": _offender(suite),
        "xdist": _xdist(suite),
        "delta": _delta(suite),
    }


def render(rows: Sequence[TimingRow]) -> str:
    """A plain-text table (one header line, a rule, one line per suite)."""
    cells = [list(_HEADERS), *[[r[c] for c in COLUMNS] for r in rows]]
    widths = [max(len(line[i]) for line in cells) for i in range(len(COLUMNS))]
    lines = [
        " | ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True))
        for line in cells
    ]
    lines.insert(1, "-+-".join("-" * width for width in widths))
    return "\n".join(line.rstrip() for line in lines)
