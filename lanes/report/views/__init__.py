"""Per-lane views of the report: each answers the question a reviewer has of its lane.

A view reads one envelope's ``data`` and returns a :class:`Detail` (blocks to
show, findings for JUnit/CTRF/annotations, key figures for the history). A
lane without a view, or a payload a view cannot read, gets the generic
key/value view: a report never hides a lane because its shape changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lanes.report.views._blocks import Callout, Detail, Facts
from lanes.report.views.affected import affected_view
from lanes.report.views.bench import bench_view
from lanes.report.views.fuzz import fuzz_view
from lanes.report.views.mutation import mutation_view
from lanes.report.views.slow import slow_view
from lanes.report.views.timing import timing_view
from lanes.report.views.torture import torture_view

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = ["SIDE_MODES", "VIEWS", "lane_detail", "side_kind"]

# Each view takes its own lane's payload type (slow_view: SlowData): Any, as
# no one type covers them all; lane_detail hands a view only data that matched
# its lane's schema, generated from that type.
VIEWS: Mapping[str, Callable[[Any], Detail]] = {
    "affected": affected_view,
    "bench": bench_view,
    "fuzz": fuzz_view,
    "mutation": mutation_view,
    "slow": slow_view,
    "timing": timing_view,
    "torture": torture_view,
}

# Envelopes of these modes are side runs (a replay of one case or seed, a
# self-check on planted bugs): shown in their own group, never as the lane's
# main verdict — a leftover replay is not a crashed lane.
SIDE_MODES: Mapping[str, str] = {
    "self-check": "self-check",
    "replay": "replay",
    "promote": "replay",
    "seed": "replay",
    "schedule": "replay",
}


def side_kind(file: str, data: Mapping[str, Any]) -> str | None:
    """``"self-check"`` or ``"replay"`` for a side run, None for a lane's main envelope."""
    mode = data.get("mode")
    if isinstance(mode, str) and mode in SIDE_MODES:
        return SIDE_MODES[mode]
    stem = file.removesuffix(".json")
    for suffix, kind in (("-self-check", "self-check"), ("-replay", "replay")):
        if stem.endswith(suffix):
            return kind
    return None


def lane_detail(lane: str, data: Mapping[str, Any]) -> Detail | None:
    """The lane's own view, or None (generic view) for an unknown lane.

    The one place that tolerates old, foreign or partial payloads: a view is
    handed only data that matches its lane's payload type (the schema
    generated from it), so views read their typed data directly. Anything
    else — an envelope of an older lanekit, a crashed lane's partial data —
    gets the generic key/value table with a note saying why.
    """
    view = VIEWS.get(lane)
    if view is None:
        return None
    from lanes.envelope import payload_problems  # noqa: PLC0415  # jsonschema: only when a view runs

    problems = payload_problems(lane, data)
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return Detail(
            blocks=(
                Callout(
                    "warn",
                    f"this {lane} envelope's data does not match the {lane} lane's payload type "
                    f"({first.path.replace('$', 'data', 1)}: {first.message}{more}); "
                    "it was probably written by another lanekit version or by a lane that "
                    "crashed; its data is shown as a table below",
                ),
                Facts(()),
            )
        )
    return view(data)
