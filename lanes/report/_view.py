"""Envelopes -> plain display strings, shared by the Markdown and HTML templates.

Everything a template shows is decided here, so the two outputs cannot drift
apart and the templates stay layout only. Strings are left raw: escaping is
the template environment's job (HTML autoescape, Markdown finalize).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanes.envelope import nesting_exceeds
from lanes.report._history import absent_lanes, freshness, lane_history
from lanes.report.views import lane_detail, side_kind
from lanes.report.views._blocks import shown_path

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence
    from datetime import datetime

    from lanes.report._collect import Entry, Status
    from lanes.report._history import History, LaneHistory
    from lanes.report.views._blocks import Block, Finding

__all__ = ["LaneView", "ReportView", "build_view", "data_rows", "shown_path"]

ICONS: dict[Status, str] = {"pass": "✅", "fail": "❌", "error": "💥", "invalid": "⚠️"}

# The data view must stay readable for any lane: nested tables become dotted
# keys, long lists and long values are cut, and the row count is capped.
MAX_ROWS = 60
MAX_LIST_ITEMS = 10
MAX_VALUE_CHARS = 200
MAX_DEPTH = 4
# Nesting below MAX_DEPTH that is still shown as one line of JSON.
_MAX_SHOWN_NESTING = 50

# What went wrong in each known lane: these keys lead its data table.
FIRST: Mapping[str, tuple[str, ...]] = {
    "fuzz": ("failures",),
    "slow": ("offenders",),
    "torture": ("violations", "nondeterminism"),
}


@dataclass(frozen=True)
class LaneView:
    file: str
    lane: str
    status: Status
    icon: str
    result: str = ""
    stage: str = ""
    duration: str = ""
    duration_ms: int = 0
    """The envelope's own figure: exports use it, never the display text above."""
    started_at: str = ""
    subject: str = ""
    seed: str = ""
    config_hash: str = ""
    config_hash_short: str = ""
    group_id: str = ""
    error: str = ""
    rows: tuple[tuple[str, str], ...] = ()
    problems: tuple[str, ...] = ()
    hidden_problems: int = 0
    anchor: str = ""
    side: str | None = None
    """"self-check" or "replay" for a side run; None for the lane's main envelope."""
    blocks: tuple[Block, ...] = ()
    """The lane's own view (empty: the generic data table is the view)."""
    findings: tuple[Finding, ...] = ()
    freshness: str = ""
    stale: bool = False
    history: LaneHistory | None = None
    commit: str | None = None
    """The full commit the lane measured (None outside git)."""
    dirty: bool = False
    current: bool = True
    """False for an envelope of another commit or run than the newest one (see _current_run)."""

    @property
    def counts(self) -> bool:
        """Whether this envelope decides the report's verdict (a replay or a stale one never does)."""
        return self.side != "replay" and self.current

    @property
    def label(self) -> str:
        """The lane's name, plus its file when that is not ``<lane>.json`` (shards)."""
        if self.status == "invalid":
            return self.file  # the name inside cannot be trusted
        return self.lane if self.file == f"{self.lane}.json" else f"{self.lane} ({self.file})"


@dataclass(frozen=True)
class ReportView:
    title: str
    lanes: tuple[LaneView, ...]
    counts: Mapping[str, int]
    ok: bool
    directory: str
    notes: tuple[str, ...] = field(default=())
    history: History | None = None
    current_run: str = ""
    """The run the verdict is about, in words (empty when every envelope is of it)."""

    @property
    def main(self) -> tuple[LaneView, ...]:
        return tuple(lane for lane in self.lanes if lane.side is None and lane.current)

    @property
    def side(self) -> tuple[LaneView, ...]:
        return tuple(lane for lane in self.lanes if lane.side is not None and lane.current)

    @property
    def other_runs(self) -> tuple[LaneView, ...]:
        """Stale envelopes of another commit or run: shown, never deciding the verdict."""
        return tuple(lane for lane in self.lanes if not lane.current)


def format_duration(ms: int) -> str:
    if ms < 1000:
        return f"{ms} ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s"


def _subject(subject: Mapping[str, Any]) -> str:
    commit = subject["commit"]
    if commit is None:
        return "not a git checkout"
    parts = [str(commit)[:12]]
    if subject["branch"]:
        parts.append(f"on {subject['branch']}")
    if subject["dirty"]:
        parts.append("(dirty tree)")
    return " ".join(parts)


def _seed(seed: object) -> str:
    if seed is None:
        return "—"
    if isinstance(seed, dict):
        start, count = seed["start"], seed["count"]
        return f"{count} seeds from {start}" if count != 1 else str(start)
    return str(seed)


def _scalar(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}"
    if value == "":
        return '""'  # a blank cell reads as "missing"
    return str(value)


def _cut(text: str) -> str:
    text = " ".join(text.split("\n")) if "\n" in text else text
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def _compact(value: object) -> str:
    """What is left below MAX_DEPTH, as one line of JSON."""
    # json.loads accepts more nesting than json.dumps can write back on some
    # interpreters (RecursionError); an explicit limit keeps a valid envelope
    # from crashing the report, the same way on every Python.
    if nesting_exceeds(value, _MAX_SHOWN_NESTING):
        return "(nested too deeply to show)"
    return _cut(json.dumps(value, sort_keys=True))


def _flatten(value: object, name: str, depth: int) -> Iterator[tuple[str, str]]:
    if isinstance(value, dict) and value and depth < MAX_DEPTH:
        for key, item in value.items():
            yield from _flatten(item, f"{name}.{key}" if name else str(key), depth + 1)
    elif isinstance(value, list) and any(isinstance(item, dict | list) for item in value):
        if depth >= MAX_DEPTH:
            yield name, _compact(value)
            return
        for index, item in enumerate(value[:MAX_LIST_ITEMS]):
            yield from _flatten(item, f"{name}[{index}]", depth + 1)
        if len(value) > MAX_LIST_ITEMS:
            yield name, f"… {len(value) - MAX_LIST_ITEMS} more of {len(value)} items"
    elif isinstance(value, list):
        shown = ", ".join(_scalar(item) for item in value[:MAX_LIST_ITEMS])
        more = f" … ({len(value)} items)" if len(value) > MAX_LIST_ITEMS else ""
        yield name, _cut(f"[{shown}]{more}")
    elif isinstance(value, dict):
        yield name, "{}" if not value else _compact(value)
    elif isinstance(value, str) and value.startswith("/") and "\n" not in value:
        # A lane may record a file it read by its absolute path (the mutation
        # lane's merged_from): the report travels as an artifact and never
        # shows the machine's directories.
        yield name, _cut(shown_path(Path(value)))
    else:
        yield name, _cut(_scalar(value))


def data_rows(data: Mapping[str, Any], *, first: Sequence[str] = ()) -> tuple[tuple[str, str], ...]:
    """A readable key/value view of any lane's ``data`` (dotted keys, capped).

    Keys in ``first`` lead, so what went wrong is never cut off by the cap.
    """
    rows: list[tuple[str, str]] = []
    if not data:
        return ()
    ordered = {key: data[key] for key in first if key in data} | dict(data)
    for row in _flatten(ordered, "", 0):
        if len(rows) == MAX_ROWS:
            rows.append(("…", "more keys not shown; see the envelope file"))
            break
        rows.append(row)
    return tuple(rows)


def _lane_view(
    entry: Entry, *, anchor: str, history: History | None, now: datetime | None
) -> LaneView:
    envelope = entry.envelope
    if envelope is None:
        return LaneView(
            file=entry.file,
            lane=entry.lane,
            status="invalid",
            icon=ICONS["invalid"],
            problems=entry.problems,
            hidden_problems=entry.problem_count - len(entry.problems),
            anchor=anchor,
        )
    error = envelope["error"]
    config_hash = str(envelope["config_hash"])
    data = envelope["data"]
    side = side_kind(entry.file, data)
    detail = lane_detail(entry.lane, data)
    fresh, stale = freshness(entry.lane, envelope, now) if now is not None else ("", False)
    return LaneView(
        file=entry.file,
        lane=entry.lane,
        status=entry.status,
        icon=ICONS[entry.status],
        result=str(envelope["result"]),
        stage=str(envelope["stage"]),
        duration=format_duration(int(envelope["duration_ms"])),
        duration_ms=int(envelope["duration_ms"]),
        started_at=str(envelope["started_at"]),
        subject=_subject(envelope["subject"]),
        commit=envelope["subject"]["commit"],
        dirty=bool(envelope["subject"]["dirty"]),
        seed=_seed(envelope["seed"]),
        config_hash=config_hash,
        config_hash_short=config_hash[: len("sha256:") + 12],
        group_id=str(envelope["group_id"]),
        error="" if error is None else f"{error['type']}: {error['message']}",
        rows=data_rows(data, first=FIRST.get(entry.lane, ())),
        anchor=anchor,
        side=side,
        blocks=detail.blocks if detail is not None else (),
        findings=detail.findings if detail is not None else (),
        freshness=fresh,
        stale=stale and side is None,
        history=None
        if history is None or side is not None
        else lane_history(history, entry.file, envelope),
    )


def _title(counts: Mapping[str, int], total: int) -> str:
    if total == 0:
        return "no lane ran"
    parts = [f"{counts[status]} {word}" for status, word in _WORDS if counts.get(status)]
    return ", ".join(parts)


_WORDS: Sequence[tuple[Status, str]] = (
    ("fail", "failed"),
    ("error", "crashed"),
    ("invalid", "invalid"),
    ("pass", "passed"),
)


_RunKey = tuple[str | None, bool, str | None]


def _run_key(lane: LaneView) -> _RunKey:
    """What makes two envelopes evidence about the same tree.

    A clean commit is one tree, whichever run measured it (`nox -s slow` then
    `nox -s timing` are both current). A dirty tree may have changed between
    runs, so only envelopes of the same run (group_id) are known to have
    measured the same code. Outside git there is no tree identity to compare
    at all: those envelopes are taken together, as before.
    """
    if lane.dirty:
        return (lane.commit, True, lane.group_id)
    return (lane.commit, False, None)


def _current_run(lanes: Sequence[LaneView]) -> tuple[_RunKey | None, str]:
    """The newest envelope's run key, and that run in words."""
    valid = [lane for lane in lanes if lane.status != "invalid"]
    if not valid:
        return None, ""
    # RFC 3339 UTC strings of one writer: text order is time order.
    newest = max(valid, key=lambda lane: lane.started_at)
    key = _run_key(newest)
    if newest.commit is None:
        words = "envelopes written outside git"
    else:
        tree = "a dirty tree of " if newest.dirty else ""
        words = f"{tree}commit {newest.commit[:12]}"
        if newest.dirty:
            words += f", run {newest.group_id}"
    return key, words


def build_view(
    entries: Sequence[Entry],
    *,
    directory: str,
    history: History | None = None,
    now: datetime | None = None,
) -> ReportView:
    """The report's content; ``history`` adds trends and drift, ``now`` freshness."""
    views = [
        _lane_view(entry, anchor=f"lane-{index}", history=history, now=now)
        for index, entry in enumerate(entries, start=1)
    ]
    # Envelopes left from an earlier commit or run next to fresh ones are the
    # classic way a report lies: an old red lane decided the headline until
    # the user cleaned the directory by hand. The newest envelope's commit
    # (and, for a dirty tree, its run) is the current one; the others are
    # shown as stale and decide nothing.
    key, current_run = _current_run(views)
    views = [
        lane if lane.status == "invalid" or _run_key(lane) == key else replace(lane, current=False)
        for lane in views
    ]
    # Current main envelopes first, then side runs (replays, self-checks),
    # then the stale ones.
    lanes = tuple(sorted(views, key=lambda lane: (not lane.current, lane.side is not None)))
    counted = [lane for lane in lanes if lane.counts]
    counts: dict[str, int] = {}
    for lane in counted:
        counts[lane.status] = counts.get(lane.status, 0) + 1
    notes: list[str] = []
    old = [lane.label for lane in lanes if not lane.current]
    if old:
        notes.append(
            f"this report is about {current_run}, the newest envelope's; "
            f"{len(old)} envelope(s) of another commit or run are listed as stale and do not "
            f"decide its verdict ({', '.join(old)}): re-run those lanes, or remove their files"
        )
        # A green headline over a red lane of the last commit reads as "all
        # well" to a reader who skips the stale list: name the red ones.
        red = [
            lane.label for lane in lanes if not lane.current and lane.status in ("fail", "error")
        ]
        if red:
            notes.append(
                f"{len(red)} stale envelope(s) failed or crashed ({', '.join(red)}): this "
                "verdict does not cover them; re-run those lanes to know how they do now"
            )
    else:
        current_run = ""
    stale = [lane.label for lane in lanes if lane.stale and lane.current]
    if stale:
        notes.append(f"stale evidence (older than the lane's cadence): {', '.join(stale)}")
    # Only replays: a stale envelope also decides nothing, but it has its own
    # note (counting it here called four stale lanes "replay envelopes").
    replays = sum(1 for lane in lanes if lane.side == "replay" and lane.current)
    if replays:
        notes.append(
            f"{replays} replay envelope(s) of single cases or seeds are listed under side runs; "
            "they do not decide this report's verdict"
        )
    if history is not None and now is not None:
        present = [(lane.lane, lane.file) for lane in lanes if lane.status != "invalid"]
        notes.extend(absent_lanes(history, present, now))
    ok = bool(counted) and all(lane.status == "pass" for lane in counted)
    return ReportView(
        title=_title(counts, len(counted)),
        lanes=lanes,
        counts=counts,
        ok=ok,
        directory=directory,
        notes=tuple(notes),
        history=history,
        current_run=current_run,
    )
