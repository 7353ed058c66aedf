"""Earlier runs' envelopes: each key figure's trend and delta, drift, and freshness.

``lanes report --history DIR`` reads every valid envelope below DIR (any
depth: downloaded CI artifacts arrive one folder per run) and lines each of
this run's lanes up with its own earlier envelopes — same lane, same file
name, so a shard is compared with the same shard. From those it derives:

- **trends**: every key figure the lane's view names, oldest to newest, with
  the delta since the previous run;
- **drift**: the previous run decided its inputs differently (``config_hash``)
  or ran other tool versions, so a moved figure may not be a regression;
- **freshness**: how old this envelope is against the lane's cadence (the
  nightly lanes daily, mutation weekly), stale evidence being the classic
  way a green report lies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from lanes.report._charts import sparkline
from lanes.report._collect import read_entry
from lanes.report.views import lane_detail, side_kind

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

__all__ = [
    "CADENCE",
    "History",
    "LaneHistory",
    "Trend",
    "freshness",
    "lane_history",
    "load_history",
]

# How often each lane is expected to run (the workflows' schedules): older
# evidence is stale. Unknown lanes get the weekly default.
CADENCE: Mapping[str, timedelta] = {
    "bench": timedelta(days=1),
    "fuzz": timedelta(days=1),
    "slow": timedelta(days=1),
    "timing": timedelta(days=1),
    "torture": timedelta(days=1),
    "mutation": timedelta(days=7),
}
DEFAULT_CADENCE = timedelta(days=7)
# A history folder of a year of nightly artifacts is ~2,000 files; past this
# the oldest are ignored (and the report says so).
MAX_HISTORY_FILES = 5000
MAX_POINTS = 30


@dataclass(frozen=True)
class Trend:
    figure: str
    values: tuple[float, ...]
    """Oldest first; the last one is this run's."""
    delta: float | None
    """This run minus the previous run (None with no previous value)."""
    svg: str

    @property
    def previous(self) -> float | None:
        return self.values[-2] if len(self.values) > 1 else None

    @property
    def previous_text(self) -> str:
        return "—" if self.previous is None else _number(self.previous)

    @property
    def now_text(self) -> str:
        return _number(self.values[-1])

    @property
    def delta_text(self) -> str:
        if self.delta is None:
            return "new"
        if self.delta == 0:
            return "±0"
        previous = self.previous
        relative = (
            f" ({self.delta / abs(previous) * 100:+.1f}%)" if previous not in (None, 0) else ""
        )
        return f"{_number(self.delta, signed=True)}{relative}"


@dataclass(frozen=True)
class LaneHistory:
    runs: int
    """Earlier runs of this lane found in the history."""
    trends: tuple[Trend, ...]
    drift: tuple[str, ...]


@dataclass(frozen=True)
class History:
    directory: str
    envelopes: Mapping[tuple[str, str], tuple[dict[str, Any], ...]]
    """(lane, file name) -> valid envelopes, oldest first."""
    files: int
    invalid: int
    capped: bool


def _number(value: float, *, signed: bool = False) -> str:
    sign = "+" if signed else ""
    if value == int(value) and abs(value) < 1e15:  # exact integers stay integers
        return f"{int(value):{sign},}"
    return f"{value:{sign},.4g}"


def _started(envelope: Mapping[str, Any]) -> datetime | None:
    try:
        return datetime.fromisoformat(str(envelope["started_at"]))
    except (KeyError, ValueError):
        return None


def _series_key(file: str, envelope: Mapping[str, Any]) -> tuple[str, str]:
    return str(envelope["lane"]), file


def load_history(directory: Path, *, exclude_runs: frozenset[str] = frozenset()) -> History:
    """Every valid envelope under ``directory``; ``exclude_runs`` (run_ids) are this run's own."""
    paths = sorted(
        (
            path
            for path in directory.rglob("*.json")
            if not any(part.startswith(".") for part in path.relative_to(directory).parts)
            and path.is_file()
        ),
        key=lambda path: path.stat().st_mtime,
        reverse=True,
    )
    capped = len(paths) > MAX_HISTORY_FILES
    series: dict[tuple[str, str], list[dict[str, Any]]] = {}
    invalid = 0
    for path in paths[:MAX_HISTORY_FILES]:
        entry = read_entry(path)
        envelope = entry.envelope
        if envelope is None:
            invalid += 1
            continue
        if str(envelope["run_id"]) in exclude_runs or _started(envelope) is None:
            continue
        series.setdefault(_series_key(path.name, envelope), []).append(envelope)
    ordered = {
        key: tuple(sorted(found, key=lambda e: str(e["started_at"])))
        for key, found in series.items()
    }
    return History(
        directory=str(directory),
        envelopes=ordered,
        files=min(len(paths), MAX_HISTORY_FILES),
        invalid=invalid,
        capped=capped,
    )


def _figures(file: str, envelope: Mapping[str, Any]) -> Mapping[str, float]:
    data = envelope["data"]
    if side_kind(file, data) is not None:
        return {}
    detail = lane_detail(str(envelope["lane"]), data)
    figures = dict(detail.figures) if detail is not None else {}
    figures["duration (s)"] = round(int(envelope["duration_ms"]) / 1000, 1)
    return {key: value for key, value in figures.items() if math.isfinite(value)}


def _drift(previous: Mapping[str, Any], current: Mapping[str, Any]) -> tuple[str, ...]:
    notes: list[str] = []
    if previous["config_hash"] != current["config_hash"]:
        notes.append(
            f"configuration changed since the previous run ({str(previous['config_hash'])[:19]}… → "
            f"{str(current['config_hash'])[:19]}…): figures may have moved because the inputs did"
        )
    before, now = previous["generated_by"], current["generated_by"]
    for key in ("version", "python"):
        if before.get(key) != now.get(key):
            label = "lanekit" if key == "version" else key
            notes.append(f"{label} {before.get(key)} → {now.get(key)}")
    tools_before, tools_now = before.get("tools") or {}, now.get("tools") or {}
    notes.extend(
        f"{tool} {tools_before.get(tool, 'absent')} → {tools_now.get(tool, 'absent')}"
        for tool in sorted(set(tools_before) | set(tools_now))
        if tools_before.get(tool) != tools_now.get(tool)
    )
    return tuple(notes)


def lane_history(history: History, file: str, envelope: Mapping[str, Any]) -> LaneHistory | None:
    """This lane's earlier runs lined up with ``envelope`` (None when it has none)."""
    started = _started(envelope)
    earlier = [
        e
        for e in history.envelopes.get(_series_key(file, envelope), ())
        if started is None or ((s := _started(e)) is not None and s < started)
    ][-(MAX_POINTS - 1) :]
    if not earlier:
        return None
    past = [_figures(file, e) for e in earlier]
    now = _figures(file, envelope)
    trends: list[Trend] = []
    for figure, value in now.items():
        values = [p[figure] for p in past if figure in p] + [value]
        previous = past[-1].get(figure)
        delta = None if previous is None else value - previous
        trends.append(
            Trend(
                figure=figure,
                values=tuple(values),
                delta=delta,
                svg=sparkline(
                    f"{figure}: trend over {len(values)} runs",
                    f"{figure} over the last {len(values)} runs, oldest first: "
                    + ", ".join(_number(v) for v in values),
                    values,
                    shown_last=_number(value),
                ),
            )
        )
    return LaneHistory(runs=len(earlier), trends=tuple(trends), drift=_drift(earlier[-1], envelope))


def _age(delta: timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    if seconds < 3600:  # an hour
        return f"{seconds // 60} min"
    if seconds < 2 * 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} d"


def freshness(lane: str, envelope: Mapping[str, Any], now: datetime) -> tuple[str, bool]:
    """("age 3 h against a daily cadence", stale?) for this envelope at ``now``."""
    started = _started(envelope)
    if started is None:
        return "age unknown", True
    cadence = CADENCE.get(lane, DEFAULT_CADENCE)
    age = now - started
    stale = age > cadence
    word = "daily" if cadence == timedelta(days=1) else f"every {_age(cadence)}"
    return f"{_age(age)} old, runs {word}", stale


def absent_lanes(
    history: History, present: Sequence[tuple[str, str]], now: datetime
) -> tuple[str, ...]:
    """Lanes the history knows that this run did not produce: their evidence is getting old."""
    notes = []
    for (lane, file), envelopes in sorted(history.envelopes.items()):
        if (lane, file) in present or side_kind(file, envelopes[-1]["data"]) is not None:
            continue
        last = _started(envelopes[-1])
        when = f"{_age(now - last)} ago" if last is not None else "at an unknown time"
        notes.append(f"{lane} ({file}) did not run this time; its last envelope is from {when}")
    return tuple(notes)


def utc_now() -> datetime:
    return datetime.now(UTC)
