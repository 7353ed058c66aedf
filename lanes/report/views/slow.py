"""The slow lane's view: where each tier's tests sit against the budget, what failed and its fix, the pins."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from lanes.report._charts import Segment, stacked_bars
from lanes.report.views._blocks import (
    Block,
    Callout,
    Chart,
    Commands,
    Detail,
    Facts,
    Finding,
    entry_table,
    items,
    mapping,
    ms,
    num,
    table,
    text,
)
from lanes.slow.verdicts import suggested_ceiling

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from lanes.report.views._blocks import Column

__all__ = ["slow_view"]

# A judged test's row, as the offender and band tables show it.
_JUDGED_COLUMNS: tuple[Column, ...] = (
    ("test", "nodeid", text),
    ("tier", "tier", text),
    ("took", "ms", ms),
    ("budget", "budget_ms", ms),
    ("limit", "limit_ms", ms),
)

# Where a test sits against its tier's budget: the buckets of the distribution chart.
_BUCKETS: tuple[tuple[str, float, str], ...] = (
    ("≤ ¼ budget", 0.25, "ok"),
    ("¼ to ½ budget", 0.5, "fine"),
    ("½ to 1× budget", 1.0, "near"),
    ("band (1× to limit)", float("inf"), "warn"),
)

PIN_MEANING: Mapping[str, str] = {
    "holding": "over the tier budget, within its ceiling: the waiver is doing its job",
    "removable": "within the tier budget run after run: the pin protects nothing — unpin it",
    "within-budget": "within the tier budget lately, not yet for enough runs in a row to unpin",
    "over-ceiling": "past its ceiling, not yet failing: speed it up or raise the ceiling",
    "broken": "past fail_factor × its ceiling: the run fails",
    "not-run": "did not run in this session (deselected, or gone: run lanes slow check)",
}
_PIN_STATUS = {
    "holding": "pass",
    "within-budget": "info",
    "removable": "info",
    "over-ceiling": "warn",
    "broken": "fail",
}


def _distribution(data: Mapping[str, Any]) -> Chart | None:
    tiers = {str(t.get("name")): t for t in items(data.get("tiers"))}
    # The ratchet's own verdicts decide the band and the failures (a test's ms
    # is rounded, and its own budget may differ from its tier's); the share of
    # the tier budget places everything else.
    band = {str(b.get("nodeid")) for b in items(data.get("band"))}
    over = {str(o.get("nodeid")) for o in items(data.get("offenders"))}
    within = len(_BUCKETS) - 1
    counts: dict[str, list[int]] = {name: [0] * (len(_BUCKETS) + 1) for name in tiers}
    for test in items(data.get("tests")):
        tier = tiers.get(str(test.get("tier")))
        budget, took = num(tier.get("budget_ms")) if tier else None, num(test.get("ms"))
        nodeid = str(test.get("nodeid"))
        if nodeid in over:
            bucket = len(_BUCKETS)
        elif nodeid in band:
            bucket = within
        elif budget is None or took is None or budget <= 0:
            continue
        else:
            share = min(took / budget, 1.0)
            bucket = next(i for i, (_, upper, _) in enumerate(_BUCKETS[:within]) if share <= upper)
        counts[str(test.get("tier"))][bucket] += 1
    rows = [
        (
            f"{name} ({ms(tiers[name].get('budget_ms'))})",
            [
                *(
                    Segment(label, n, state)
                    for (label, _, state), n in zip(_BUCKETS, c, strict=False)
                ),
                Segment("over the limit", c[-1], "bad"),
            ],
        )
        for name, c in counts.items()
        if sum(c)
    ]
    if not rows:
        return None
    words = "; ".join(
        f"{name}: " + ", ".join(f"{s.count} {s.label}" for s in segments if s.count)
        for name, segments in rows
    )
    return Chart(
        title="Tests per tier against the tier budget",
        summary=f"How close each tier's tests run to their budget. {words}.",
        svg=stacked_bars("Tests per tier against the tier budget", words, rows),
    )


def _offenders(data: Mapping[str, Any]) -> tuple[list[Block], list[Finding]]:
    offenders = items(data.get("offenders"))
    blocks: list[Block] = []
    findings = [
        Finding(
            name=str(o.get("nodeid")),
            suite="slow",
            failed=True,
            message=(
                f"took {ms(o.get('ms'))}, past the limit {ms(o.get('limit_ms'))} "
                f"(budget {ms(o.get('budget_ms'))}, tier {text(o.get('tier'))})"
            ),
            file=str(o.get("nodeid")).split("::", 1)[0] or None,
        )
        for o in offenders
    ]
    if not offenders:
        return blocks, findings
    blocks.append(
        entry_table(
            "Past the limit (the run fails)",
            offenders,
            (*_JUDGED_COLUMNS, ("pinned", "pinned", text)),
            status=["fail"] * len(offenders),
            code=(0,),
        )
    )
    fixes = []
    for o in offenders:
        took = num(o.get("ms"))
        if took is None or o.get("pinned") is True:
            continue
        ceiling = suggested_ceiling(took / 1000)
        fixes.append(
            f"lanes slow pin {shlex.quote(str(o.get('nodeid')))} --reason '<why it is slow>' "
            f"--tracking '<issue>' --ceiling {ceiling:g}"
        )
    blocks.append(
        Callout(
            "fail",
            f"{len(offenders)} test(s) past the limit. Fix each one: speed it up (a test that waits real time: poll at a budget-derived "
            "cadence or inject a clock), move it to a slower tier (a tier marker), or pin it "
            "with a reason:",
        )
    )
    if fixes:
        blocks.append(Commands("pin with a reason (a pin list may only shrink)", tuple(fixes)))
    return blocks, findings


def _recent(pin: Mapping[str, Any]) -> str:
    """The pin's recent measurements and its streak within budget."""
    history = pin.get("history_ms")
    shown = ", ".join(ms(value) for value in history[-5:]) if isinstance(history, list) else ""
    streak = num(pin.get("streak"))
    if streak is not None:
        shown += (
            f" ({streak:.0f} in a row within budget)"
            if shown
            else f"{streak:.0f} in a row within budget"
        )
    return shown or "—"


def _pins(data: Mapping[str, Any]) -> list[Block]:
    pins = items(data.get("pins"))
    if not pins:
        return []
    rows = [
        (
            text(p.get("nodeid")),
            text(p.get("state")),
            ms(p.get("ms")),
            ms(p.get("ceiling_ms")),
            _recent(p),
            text(p.get("reason")),
            text(p.get("tracking")),
            text(p.get("added")),
        )
        for p in pins
    ]
    states = sorted({str(p.get("state")) for p in pins})
    meaning = "; ".join(
        f"{state}: {PIN_MEANING[state]}" for state in states if state in PIN_MEANING
    )
    return [
        table(
            f"Pins ({len(pins)}; {data.get('pins_file', 'baselines/slow-tests.json')})",
            ("test", "state", "took", "ceiling", "recent runs", "reason", "tracking", "added"),
            rows,
            status=[_PIN_STATUS.get(str(p.get("state")), "info") for p in pins],
            code=(0,),
            note=meaning,
        )
    ]


def slow_view(data: Mapping[str, Any]) -> Detail:
    counts = mapping(data.get("counts"))
    pins = items(data.get("pins"))
    removable = sum(1 for p in pins if p.get("state") == "removable")
    blocks: list[Block] = [
        Facts(
            (
                ("ratchet verdict", text(data.get("verdict"))),
                (
                    "tests judged",
                    (
                        f"{text(counts.get('judged'))} — {text(counts.get('ok'))} within budget, "
                        f"{text(counts.get('band'))} in the band, {text(counts.get('fail'))} past the limit"
                    ),
                ),
                ("limit", f"{text(data.get('fail_factor'))} × the tier budget"),
                ("pins", f"{len(pins)} ({removable} removable)"),
                ("xdist workers", text(data.get("workers"))),
            )
        )
    ]
    if data.get("partial") is True:
        reasons = data.get("partial_reasons")
        why = "; ".join(str(r) for r in reasons) if isinstance(reasons, list) and reasons else ""
        blocks.append(
            Callout(
                "warn",
                "a partial run: its verdict says nothing about the tests it did not judge"
                + (f" ({why})" if why else ""),
            )
        )
    chart = _distribution(data)
    if chart is not None:
        blocks.append(chart)
    tiers = items(data.get("tiers"))
    if tiers:
        blocks.append(
            entry_table(
                "Tiers",
                tiers,
                (
                    ("tier", "name", text),
                    ("budget", "budget_ms", ms),
                    ("tests", "count", text),
                    ("p50", "p50_ms", ms),
                    ("p90", "p90_ms", ms),
                    ("max", "max_ms", ms),
                    ("slowest", "slowest", text),
                ),
                code=(6,),
            )
        )
    offender_blocks, findings = _offenders(data)
    blocks.extend(offender_blocks)
    band = items(data.get("band"))
    if band:
        blocks.append(
            entry_table(
                "In the band (over budget, under the limit: reported, not failing)",
                band,
                _JUDGED_COLUMNS,
                status=["warn"] * len(band),
                code=(0,),
            )
        )
    unconfirmed = items(data.get("unconfirmed"))
    if unconfirmed:
        blocks.append(
            table(
                "Unconfirmed (past the limit once, not in every re-timing: reported, not failing)",
                ("test", "tier", "took", "limit", "re-timings"),
                [
                    (
                        text(u.get("nodeid")),
                        text(u.get("tier")),
                        ms(u.get("ms")),
                        ms(u.get("limit_ms")),
                        ", ".join(ms(v) for v in u.get("samples_ms", []))
                        if isinstance(u.get("samples_ms"), list)
                        else "—",
                    )
                    for u in unconfirmed
                ],
                status=["warn"] * len(unconfirmed),
                code=(0,),
            )
        )
    blocks.extend(_pins(data))
    blocks.extend(Callout("info", text(t.get("message"))) for t in items(data.get("tighten")))
    self_check = data.get("self_check")
    if isinstance(self_check, dict):
        passed = self_check.get("passed") is True
        blocks.append(
            Callout(
                "pass" if passed else "fail",
                "self-check: the ratchet failed the planted slow test, as it must"
                if passed
                else "self-check FAILED: the ratchet did not fail the planted slow test",
            )
        )
    figures = _figures(data, tiers)
    return Detail(blocks=tuple(blocks), findings=tuple(findings), figures=figures)


def _figures(data: Mapping[str, Any], tiers: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    counts = mapping(data.get("counts"))
    figures: dict[str, float] = {}
    for key, label in (("fail", "tests past the limit"), ("band", "tests in the band")):
        value = num(counts.get(key))
        if value is not None:
            figures[label] = value
    figures["pins"] = float(len(items(data.get("pins"))))
    for tier in tiers:
        p90 = num(tier.get("p90_ms"))
        if p90 is not None:
            figures[f"{text(tier.get('name'))} p90 (ms)"] = p90
    return figures
