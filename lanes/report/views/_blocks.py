"""The building blocks of a lane's view, and tolerant readers of envelope data.

A lane view is a tuple of blocks (facts, tables, charts, callouts, commands);
both templates render any block, so a lane decides *what* to show and never
how. Strings stay raw here: the HTML environment autoescapes them and the
Markdown one escapes them; only :class:`Chart` carries markup, built by
:mod:`lanes.report._charts` from escaped parts.

The readers (:func:`items`, :func:`num`, :func:`text`) never raise on a shape
they did not expect: the lanes' payloads evolve (and a hostile envelope may
hold anything the schema allows), so a missing or mistyped field shows as
"—", never as a crashed report.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    Column = tuple[str, str, Callable[[object], str]]
    """One column of a table read from JSON objects: (heading, key, format)."""

__all__ = [
    "MAX_TABLE_ROWS",
    "Block",
    "Callout",
    "Chart",
    "Commands",
    "Detail",
    "Facts",
    "Finding",
    "Table",
    "entry_table",
    "items",
    "mapping",
    "num",
    "path_text",
    "pct",
    "shown_path",
    "table",
    "text",
]

# A table longer than this shows its first rows and says how many it left out:
# the envelope file has them all.
MAX_TABLE_ROWS = 50
MAX_TEXT = 300
DASH = "—"

Level = Literal["fail", "miss", "warn", "info", "pass"]


@dataclass(frozen=True)
class Facts:
    """Key/value pairs, the lane's headline figures."""

    items: tuple[tuple[str, str], ...]
    kind: Literal["facts"] = "facts"


@dataclass(frozen=True)
class Table:
    """Rows under a caption; ``status`` (one per row, or empty) colours and labels rows."""

    caption: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    status: tuple[str, ...] = ()
    code: frozenset[int] = frozenset()
    """Column indexes shown as code (node ids, commands, paths)."""
    omitted: int = 0
    """Rows left out past :data:`MAX_TABLE_ROWS`."""
    note: str = ""
    state_column: bool = True
    """Show the row status as a word in a first column (off when a column already says it)."""
    kind: Literal["table"] = "table"


@dataclass(frozen=True)
class Chart:
    """An inline SVG (HTML only) and the text that says what it shows."""

    title: str
    summary: str
    svg: str
    kind: Literal["chart"] = "chart"


@dataclass(frozen=True)
class Callout:
    """A line that must not be missed (a MISS, a failed self-check, what a figure means)."""

    level: Level
    text: str
    kind: Literal["callout"] = "callout"


@dataclass(frozen=True)
class Commands:
    """Command lines to copy (repro, promote, pin)."""

    title: str
    lines: tuple[str, ...]
    kind: Literal["commands"] = "commands"


Block = Facts | Table | Chart | Callout | Commands


@dataclass(frozen=True)
class Finding:
    """One thing a CI test reporter should list: a lane verdict or one problem it found."""

    name: str
    suite: str
    failed: bool
    message: str = ""
    warning: bool = False
    """Reported without failing (a bench MISS): JUnit ``skipped``, CTRF ``other``."""
    file: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class Detail:
    """What a lane's view produced."""

    blocks: tuple[Block, ...] = ()
    findings: tuple[Finding, ...] = ()
    figures: Mapping[str, float] = field(default_factory=dict)
    """Key figures for the history (name -> number); absent ones are left out."""


# --------------------------------------------------------------- readers


def mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def items(value: object) -> list[Mapping[str, Any]]:
    """The dicts of a list (anything else is skipped)."""
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, dict)]


def num(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def text(value: object, *, limit: int = MAX_TEXT, lines: bool = False) -> str:
    """A display string for any scalar; "—" for missing; one line unless ``lines``."""
    if value is None:
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        shown = (
            f"{value:,.4g}" if abs(value) < 1e6 else f"{value:.3e}"
        )  # past a million, scientific
    elif isinstance(value, int):
        shown = f"{value:,}"
    elif isinstance(value, str):
        shown = value
    else:
        shown = type(value).__name__
    shown = "\n".join(shown.splitlines()) if lines else " ".join(shown.splitlines())
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def shown_path(path: Path | None) -> str:
    """``path`` as the report shows it: relative to the working directory, never the machine's.

    An absolute path names the machine (a home directory, a runner's
    workspace): the report travels as an artifact, so it shows the path from
    the project, or only the last two parts of one outside it.
    """
    if path is None:
        return ""
    if not path.is_absolute():
        return path.as_posix()
    with contextlib.suppress(ValueError, OSError):
        return path.relative_to(Path.cwd()).as_posix() or "."
    return "…/" + "/".join(path.parts[-2:])


def path_text(value: object) -> str:
    """A path from a payload as the report shows it (:func:`shown_path`): a
    lane may record where it read a file by its absolute path."""
    if isinstance(value, str) and value:
        return text(shown_path(Path(value)))
    return text(value)


def ms(value: object) -> str:
    """Milliseconds as a reader wants them (``840 ms``, ``3.2 s``)."""
    number = num(value)
    if number is None:
        return DASH
    if abs(number) < 1000:  # a second
        return (
            f"{number:,.0f} ms" if number >= 10 else f"{number:.3g} ms"
        )  # small values keep digits
    return f"{number / 1000:,.1f} s"


def pct(value: object, *, signed: bool = False) -> str:
    """A fraction (0.0312) as a percentage (``3.1%``)."""
    number = num(value)
    if number is None:
        return DASH
    return f"{number * 100:+.1f}%" if signed else f"{number * 100:.1f}%"


def table(
    caption: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    status: Sequence[str] = (),
    code: Sequence[int] = (),
    note: str = "",
    state_column: bool = True,
) -> Table:
    """A :class:`Table` capped at :data:`MAX_TABLE_ROWS` rows."""
    shown = tuple(tuple(row) for row in rows[:MAX_TABLE_ROWS])
    return Table(
        caption=caption,
        headers=tuple(headers),
        rows=shown,
        status=tuple(status[: len(shown)]),
        code=frozenset(code),
        omitted=max(0, len(rows) - MAX_TABLE_ROWS),
        note=note,
        state_column=state_column,
    )


def entry_table(
    caption: str,
    entries: Sequence[Mapping[str, Any]],
    columns: Sequence[Column],
    *,
    status: Sequence[str] = (),
    code: Sequence[int] = (),
    state_column: bool = True,
) -> Table:
    """A :func:`table` with a row per entry (an envelope's JSON object) and a
    column per ``(heading, key, format)``: the shape most lane views read."""
    return table(
        caption,
        [heading for heading, _key, _show in columns],
        [tuple(show(entry.get(key)) for _heading, key, show in columns) for entry in entries],
        status=status,
        code=code,
        state_column=state_column,
    )
