"""The slow lane's view: where each tier's tests sit against the budget, what failed and its fix, the pins."""

from __future__ import annotations

import math
import shlex
from typing import TYPE_CHECKING, Final

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
    ms,
    table,
    text,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from lanes.payloads.slow import SlowData, SlowPin, SlowPinState, SlowTier
    from lanes.report.views._blocks import Column, Level

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

PIN_MEANING: Mapping[SlowPinState, str] = {
    "holding": "over the tier budget, within its ceiling: the waiver is doing its job",
    "removable": "within the tier budget run after run: the pin protects nothing — unpin it",
    "within-budget": "within the tier budget lately, not yet for enough runs in a row to unpin",
    "over-ceiling": "past its ceiling, not yet failing: speed it up or raise the ceiling",
    "broken": "past fail_factor × its ceiling: the run fails",
    "not-run": "did not run in this session (deselected, or gone: run lanes slow check)",
}
_PIN_STATUS: Mapping[SlowPinState, Level] = {
    "holding": "pass",
    "within-budget": "info",
    "removable": "info",
    "over-ceiling": "warn",
    "broken": "fail",
}


# The ceiling `lanes slow pin` defaults to, restated from lanes.slow.verdicts
# (suggested_ceiling) and lanes.slow.tier_figures (round_up): a view imports
# payload types, never lane code. tests/report/test_report_slow_view.py ties
# the two.
_CEILING_HEADROOM: Final = 1.25


def _suggested_ceiling(seconds: float) -> float:
    """``seconds`` with a quarter on top, rounded up to two significant figures."""
    seconds *= _CEILING_HEADROOM
    if seconds <= 0:
        return 0.01
    exponent = math.floor(math.log10(seconds)) - 1
    step = 10.0**exponent
    return round(math.ceil(seconds / step - 1e-9) * step, max(0, -exponent))


def _distribution(data: SlowData) -> Chart | None:
    tiers = {t["name"]: t for t in data["tiers"]}
    # The ratchet's own verdicts decide the band and the failures (a test's ms
    # is rounded, and its own budget may differ from its tier's); the share of
    # the tier budget places everything else.
    band = {b["nodeid"] for b in data["band"]}
    over = {o["nodeid"] for o in data["offenders"]}
    within = len(_BUCKETS) - 1
    counts: dict[str, list[int]] = {name: [0] * (len(_BUCKETS) + 1) for name in tiers}
    for test in data["tests"]:
        # The ratchet lists every configured tier; the schema cannot say that
        # a test's tier is one of them.
        tier = tiers.get(test["tier"])
        if tier is None:
            continue
        nodeid = test["nodeid"]
        if nodeid in over:
            bucket = len(_BUCKETS)
        elif nodeid in band:
            bucket = within
        elif tier["budget_ms"] <= 0:
            continue
        else:
            share = min(test["ms"] / tier["budget_ms"], 1.0)
            bucket = next(i for i, (_, upper, _) in enumerate(_BUCKETS[:within]) if share <= upper)
        counts[test["tier"]][bucket] += 1
    rows = [
        (
            f"{name} ({ms(tiers[name]['budget_ms'])})",
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


def _offenders(data: SlowData) -> tuple[list[Block], list[Finding]]:
    offenders = data["offenders"]
    blocks: list[Block] = []
    findings = [
        Finding(
            name=o["nodeid"],
            suite="slow",
            failed=True,
            message=(
                f"took {ms(o['ms'])}, past the limit {ms(o['limit_ms'])} "
                f"(budget {ms(o['budget_ms'])}, tier {text(o['tier'])})"
            ),
            file=o["nodeid"].split("::", 1)[0] or None,
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
    fixes = [
        f"lanes slow pin {shlex.quote(o['nodeid'])} --reason '<why it is slow>' "
        f"--tracking '<issue>' --ceiling {_suggested_ceiling(o['ms'] / 1000):g}"
        for o in offenders
        if not o["pinned"]
    ]
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


def _recent(pin: SlowPin) -> str:
    """The pin's recent measurements and its streak within budget."""
    shown = ", ".join(ms(value) for value in pin["history_ms"][-5:])
    streak = f"{pin['streak']} in a row within budget"
    return f"{shown} ({streak})" if shown else streak


def _pins(data: SlowData) -> list[Block]:
    pins = data["pins"]
    if not pins:
        return []
    rows = [
        (
            text(p["nodeid"]),
            text(p["state"]),
            ms(p["ms"]),
            ms(p["ceiling_ms"]),
            _recent(p),
            text(p["reason"]),
            text(p["tracking"]),
            text(p["added"]),
        )
        for p in pins
    ]
    states = sorted({p["state"] for p in pins})
    meaning = "; ".join(f"{state}: {PIN_MEANING[state]}" for state in states)
    return [
        table(
            f"Pins ({len(pins)}; {data['pins_file']})",
            ("test", "state", "took", "ceiling", "recent runs", "reason", "tracking", "added"),
            rows,
            status=[_PIN_STATUS.get(p["state"], "info") for p in pins],
            code=(0,),
            note=meaning,
        )
    ]


def slow_view(data: SlowData) -> Detail:
    counts = data["counts"]
    pins = data["pins"]
    removable = sum(1 for p in pins if p["state"] == "removable")
    blocks: list[Block] = [
        Facts(
            (
                ("ratchet verdict", text(data["verdict"])),
                (
                    "tests judged",
                    (
                        f"{text(counts['judged'])} — {text(counts['ok'])} within budget, "
                        f"{text(counts['band'])} in the band, {text(counts['fail'])} past the limit"
                    ),
                ),
                ("limit", f"{text(data['fail_factor'])} × the tier budget"),
                ("pins", f"{len(pins)} ({removable} removable)"),
                ("xdist workers", text(data["workers"])),
            )
        )
    ]
    if data["partial"]:
        why = "; ".join(data["partial_reasons"])
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
    tiers = data["tiers"]
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
    band = data["band"]
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
    unconfirmed = data["unconfirmed"]
    if unconfirmed:
        blocks.append(
            table(
                "Unconfirmed (past the limit once, not in every re-timing: reported, not failing)",
                ("test", "tier", "took", "limit", "re-timings"),
                [
                    (
                        text(u["nodeid"]),
                        text(u["tier"]),
                        ms(u["ms"]),
                        ms(u["limit_ms"]),
                        ", ".join(ms(v) for v in u["samples_ms"]),
                    )
                    for u in unconfirmed
                ],
                status=["warn"] * len(unconfirmed),
                code=(0,),
            )
        )
    blocks.extend(_pins(data))
    blocks.extend(Callout("info", text(t["message"])) for t in data["tighten"])
    self_check = data["self_check"]
    if self_check is not None:
        ratchet_ok = self_check["observed"] == self_check["expected"]
        blocks.append(
            Callout(
                "pass" if ratchet_ok else "fail",
                "self-check: the ratchet failed the planted slow test, as it must"
                if ratchet_ok
                else "self-check FAILED: the ratchet did not fail the planted slow test",
            )
        )
        blocks.extend(
            Callout(
                "pass" if plant["caught"] else "fail",
                f"self-check: planted fault {'caught' if plant['caught'] else 'NOT caught'}: "
                f"{text(plant['fault'])} (expected {text(plant['expected'])}; the ratchet: "
                f"{text(plant['real'])}; the planted fault: {text(plant['planted'])})",
            )
            for plant in self_check.get("planted", [])
        )
    figures = _figures(data, tiers)
    return Detail(blocks=tuple(blocks), findings=tuple(findings), figures=figures)


def _figures(data: SlowData, tiers: list[SlowTier]) -> dict[str, float]:
    counts = data["counts"]
    figures: dict[str, float] = {
        "tests past the limit": float(counts["fail"]),
        "tests in the band": float(counts["band"]),
        "pins": float(len(data["pins"])),
    }
    for tier in tiers:
        figures[f"{text(tier['name'])} p90 (ms)"] = float(tier["p90_ms"])
    return figures
