"""The timing lane's view: what each suite costs, and how that moved against the baseline (Δ)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lanes.report._charts import Bar, bar_chart
from lanes.report.views._blocks import (
    Block,
    Callout,
    Chart,
    Detail,
    Facts,
    Finding,
    items,
    mapping,
    ms,
    num,
    table,
    text,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["timing_view"]

_FLAG_STATUS = {"regressed": "fail", "improved": "pass", "within noise": "info"}
_TABLE_COLUMNS = (
    ("suite", "suite"),
    ("collected", "tests"),
    ("wall", "wall"),
    ("cpu", "CPU"),
    ("peak_memory", "peak memory"),
    ("top_offender", "top offender"),
    ("xdist", "xdist"),
    ("delta", "Δ vs baseline"),
)


def _metric_value(metric: str, value: object) -> str:
    if metric == "peak_rss_kib":
        number = num(value)
        return "—" if number is None else f"{number / 1024:,.1f} MiB"
    return ms(value)


def _median(arm: object, key: str) -> float | None:
    return num(mapping(mapping(arm).get(key)).get("median"))


def _suite_table(data: Mapping[str, Any], suites: list[Mapping[str, Any]]) -> Block | None:
    rows = items(data.get("table"))
    if not rows:
        return None
    by_name = {str(s.get("name")): s for s in suites}

    def status(row: Mapping[str, Any]) -> str:
        comparison = mapping(mapping(by_name.get(str(row.get("suite")))).get("comparison"))
        if mapping(comparison.get("gate")).get("failed") is True:
            return "fail"
        found = {str(m.get("flag")) for m in items(comparison.get("metrics"))}
        # A regressed figure the gate does not judge is worth a look, not a failure.
        return "warn" if "regressed" in found else "pass" if "improved" in found else "info"

    return table(
        "Suites",
        tuple(header for _, header in _TABLE_COLUMNS),
        [tuple(text(row.get(key)) for key, _ in _TABLE_COLUMNS) for row in rows],
        status=[status(row) for row in rows],
    )


def _deltas(suites: list[Mapping[str, Any]]) -> tuple[list[Block], list[Finding]]:
    rows: list[tuple[str, ...]] = []
    status: list[str] = []
    findings: list[Finding] = []
    blocks: list[Block] = []
    for suite in suites:
        name = text(suite.get("name"))
        comparison = mapping(suite.get("comparison"))
        if comparison.get("status") != "compared":
            blocks.append(
                Callout(
                    "info",
                    f"{name}: {text(comparison.get('status'))} — {text(comparison.get('reason'))}",
                )
            )
        for metric in items(comparison.get("metrics")):
            key = str(metric.get("metric"))
            delta_pct = num(metric.get("delta_pct"))
            rows.append(
                (
                    name,
                    key.removesuffix("_ms").removesuffix("_kib").replace("_", " "),
                    _metric_value(key, metric.get("baseline")),
                    _metric_value(key, metric.get("current")),
                    "—" if delta_pct is None else f"{delta_pct:+.1f}%",
                    _metric_value(key, metric.get("noise")),
                    text(metric.get("flag")),
                )
            )
            flag = _FLAG_STATUS.get(str(metric.get("flag")), "info")
            gated = key == "cpu_ms" and mapping(comparison.get("gate")).get("failed") is True
            status.append("warn" if flag == "fail" and not gated else flag)
        collected = mapping(comparison.get("collected"))
        if collected.get("flag") == "dropped":
            blocks.append(
                Callout(
                    "warn",
                    f"{name}: {text(collected.get('current'))} tests collected against "
                    f"{text(collected.get('baseline'))} in the baseline — tests went missing, or were deselected",
                )
            )
        gate = mapping(comparison.get("gate"))
        findings.append(
            Finding(
                name=f"{name}: CPU time against the baseline",
                suite="timing",
                failed=gate.get("failed") is True,
                message=text(gate.get("reason")) if gate.get("failed") is True else "",
            )
        )
        if gate.get("failed") is True:
            blocks.append(Callout("fail", f"{name}: {text(gate.get('reason'))}"))
    if rows:
        blocks.insert(
            0,
            table(
                "Against the baseline (medians; noise = the wider of the two runs' spreads)",
                ("suite", "metric", "baseline", "now", "Δ", "noise", "verdict"),
                rows,
                status=status,
                state_column=False,  # the verdict column says it
            ),
        )
    return blocks, findings


def timing_view(data: Mapping[str, Any]) -> Detail:
    suites = items(data.get("suites"))
    baseline = mapping(data.get("baseline"))
    record = mapping(data.get("record"))
    blocks: list[Block] = [
        Facts(
            (
                ("suites", str(len(suites))),
                (
                    "baseline",
                    f"{text(baseline.get('path'))}, recorded {text(baseline.get('recorded_at'))} "
                    f"at {text(baseline.get('commit'))[:12]}"
                    if baseline.get("present") is True
                    else f"{text(baseline.get('path'))}: none yet (lanes timing --record)",
                ),
                (
                    "host",
                    (
                        f"{text(mapping(data.get('fingerprint')).get('cpu_model'))}, "
                        f"{text(mapping(data.get('fingerprint')).get('cpu_count'))} CPUs"
                    ),
                ),
                (
                    "record",
                    "written"
                    if record.get("written") is True
                    else text(record.get("reason"))
                    if record.get("requested")
                    else "not asked",
                ),
            )
        )
    ]
    suite_table = _suite_table(data, suites)
    if suite_table is not None:
        blocks.append(suite_table)
    bars = [
        Bar(
            text(s.get("name")),
            _median(s.get("measured"), "wall_ms") or 0.0,
            ms(_median(s.get("measured"), "wall_ms")),
        )
        for s in suites
        if _median(s.get("measured"), "wall_ms") is not None
    ]
    if bars:
        words = ", ".join(f"{bar.label} {bar.shown}" for bar in bars)
        blocks.append(
            Chart(
                "Wall clock per suite (median)",
                f"Median wall-clock time of each suite: {words}.",
                bar_chart("Wall clock per suite (median)", words, bars),
            )
        )
    delta_blocks, findings = _deltas(suites)
    blocks.extend(delta_blocks)
    for suite in suites:
        xdist = mapping(suite.get("xdist"))
        if xdist.get("explanation"):
            blocks.append(
                Callout(
                    "info",
                    f"{text(suite.get('name'))} — {text(xdist.get('verdict'))}: {text(xdist.get('explanation'))}",
                )
            )
    self_check = data.get("self_check")
    if isinstance(self_check, dict):
        passed = self_check.get("passed") is True
        blocks.append(
            Callout(
                "pass" if passed else "fail",
                f"self-check: {text(self_check.get('summary'))}"
                if passed
                else f"self-check FAILED: {text(self_check.get('summary'))}",
            )
        )
    figures: dict[str, float] = {}
    for suite in suites:
        for key, label in (
            ("wall_ms", "wall (ms)"),
            ("cpu_ms", "CPU (ms)"),
            ("peak_rss_kib", "peak memory (KiB)"),
        ):
            value = _median(suite.get("measured"), key)
            if value is not None:
                figures[f"{text(suite.get('name'))} {label}"] = value
    return Detail(blocks=tuple(blocks), findings=tuple(findings), figures=figures)
