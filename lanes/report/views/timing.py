"""The timing lane's view: what each suite costs, and how that moved against the baseline (Δ)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanes.report._charts import Bar, bar_chart
from lanes.report.views._blocks import (
    Block,
    Callout,
    Chart,
    Detail,
    Facts,
    Finding,
    ms,
    table,
    text,
)

if TYPE_CHECKING:
    from lanes.payloads.timing import TimingData, TimingMetricName, TimingRow, TimingSuite

__all__ = ["timing_view"]

_FLAG_STATUS = {"regressed": "fail", "improved": "pass", "within noise": "info"}
_TABLE_HEADERS = (
    "suite",
    "tests",
    "wall",
    "CPU",
    "peak memory",
    "top offender",
    "xdist",
    "Δ vs baseline",
)
_FIGURES: tuple[tuple[TimingMetricName, str], ...] = (
    ("wall_ms", "wall (ms)"),
    ("cpu_ms", "CPU (ms)"),
    ("peak_rss_kib", "peak memory (KiB)"),
)


def _metric_value(metric: TimingMetricName, value: int) -> str:
    if metric == "peak_rss_kib":
        return f"{value / 1024:,.1f} MiB"
    return ms(value)


def _cells(row: TimingRow) -> tuple[str, ...]:
    return tuple(
        text(cell)
        for cell in (
            row["suite"],
            row["collected"],
            row["wall"],
            row["cpu"],
            row["peak_memory"],
            row["top_offender"],
            row["xdist"],
            row["delta"],
        )
    )


def _suite_table(data: TimingData) -> Block | None:
    rows = data["table"]
    if not rows:
        return None
    by_name = {suite["name"]: suite for suite in data["suites"]}

    def status(row: TimingRow) -> str:
        # A failed suite's row is named "<suite> (FAILED)": it matches no suite
        # and shows as info, as it always has.
        suite = by_name.get(row["suite"])
        if suite is None:
            return "info"
        comparison = suite["comparison"]
        if comparison["gate"]["failed"]:
            return "fail"
        found = {metric["flag"] for metric in comparison["metrics"]}
        # A regressed figure the gate does not judge is worth a look, not a failure.
        return "warn" if "regressed" in found else "pass" if "improved" in found else "info"

    return table(
        "Suites",
        _TABLE_HEADERS,
        [_cells(row) for row in rows],
        status=[status(row) for row in rows],
    )


def _deltas(suites: list[TimingSuite]) -> tuple[list[Block], list[Finding]]:
    rows: list[tuple[str, ...]] = []
    status: list[str] = []
    findings: list[Finding] = []
    blocks: list[Block] = []
    for suite in suites:
        name = text(suite["name"])
        comparison = suite["comparison"]
        gate = comparison["gate"]
        if comparison["status"] != "compared":
            blocks.append(
                Callout("info", f"{name}: {comparison['status']} — {text(comparison['reason'])}")
            )
        for metric in comparison["metrics"]:
            key = metric["metric"]
            delta_pct = metric["delta_pct"]
            rows.append(
                (
                    name,
                    key.removesuffix("_ms").removesuffix("_kib").replace("_", " "),
                    _metric_value(key, metric["baseline"]),
                    _metric_value(key, metric["current"]),
                    "—" if delta_pct is None else f"{delta_pct:+.1f}%",
                    _metric_value(key, metric["noise"]),
                    metric["flag"],
                )
            )
            flag = _FLAG_STATUS[metric["flag"]]
            gated = key == "cpu_ms" and gate["failed"]
            status.append("warn" if flag == "fail" and not gated else flag)
        collected = comparison["collected"]
        if collected is not None and collected["flag"] == "dropped":
            blocks.append(
                Callout(
                    "warn",
                    f"{name}: {text(collected['current'])} tests collected against "
                    f"{text(collected['baseline'])} in the baseline — tests went missing, or were deselected",
                )
            )
        findings.append(
            Finding(
                name=f"{name}: CPU time against the baseline",
                suite="timing",
                failed=gate["failed"],
                message=text(gate["reason"]) if gate["failed"] else "",
            )
        )
        if gate["failed"]:
            blocks.append(Callout("fail", f"{name}: {text(gate['reason'])}"))
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


def _record(data: TimingData) -> str:
    record = data["record"]
    if record["written"]:
        return "written"
    return text(record["reason"]) if record["requested"] else "not asked"


def timing_view(data: TimingData) -> Detail:
    suites = data["suites"]
    baseline = data["baseline"]
    fingerprint = data["fingerprint"]
    blocks: list[Block] = [
        Facts(
            (
                ("suites", str(len(suites))),
                (
                    "baseline",
                    f"{text(baseline['path'])}, recorded {text(baseline['recorded_at'])} "
                    f"at {text(baseline['commit'])[:12]}"
                    if baseline["present"]
                    else f"{text(baseline['path'])}: none yet (lanes timing --record)",
                ),
                (
                    "host",
                    f"{text(fingerprint['cpu_model'])}, {text(fingerprint['cpu_count'])} CPUs",
                ),
                ("record", _record(data)),
            )
        )
    ]
    suite_table = _suite_table(data)
    if suite_table is not None:
        blocks.append(suite_table)
    bars = [
        Bar(
            text(suite["name"]),
            float(suite["measured"]["wall_ms"]["median"]),
            ms(suite["measured"]["wall_ms"]["median"]),
        )
        for suite in suites
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
        # Envelopes written before the lane sized its runs carry no sizing.
        sizing = suite.get("sizing")
        if sizing is not None:
            how = "chosen" if sizing["chosen_by"] == "automatic" else "configured"
            blocks.append(
                Callout("info", f"{text(suite['name'])} — runs {how}: {text(sizing['reason'])}")
            )
    for suite in suites:
        xdist = suite["xdist"]
        if xdist is not None and xdist["explanation"]:
            blocks.append(
                Callout(
                    "info",
                    f"{text(suite['name'])} — {xdist['verdict']}: {text(xdist['explanation'])}",
                )
            )
    self_check = data["self_check"]
    if self_check is not None:
        passed = self_check["passed"]
        summary = text(self_check["summary"])
        blocks.append(
            Callout(
                "pass" if passed else "fail",
                f"self-check: {summary}" if passed else f"self-check FAILED: {summary}",
            )
        )
    figures = {
        f"{text(suite['name'])} {label}": float(suite["measured"][key]["median"])
        for suite in suites
        for key, label in _FIGURES
    }
    return Detail(blocks=tuple(blocks), findings=tuple(findings), figures=figures)
