"""The two baseline-ratchet lanes: mutation (score vs baseline, new survivors) and timing (Δ per suite).

Both payloads were still settling when these views were written, so they read
defensively: each field is looked up under the names the lanes use, a module
table may be a list of rows or a mapping by name, and whatever is missing
shows as "—" (the generic data table below the view shows everything).
"""

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
    from collections.abc import Mapping, Sequence

__all__ = ["mutation_view", "timing_view"]


def _first(row: Mapping[str, Any], *keys: str) -> object:
    for key in keys:
        if key in row and row[key] is not None:
            return row[key]
    return None


def _rows(value: object) -> list[Mapping[str, Any]]:
    """A table as a list of rows, whether stored as a list or as {name: row}."""
    if isinstance(value, dict):
        return [
            {"name": name, **row} if "name" not in row else row
            for name, row in value.items()
            if isinstance(row, dict)
        ]
    return items(value)


def _score(value: object) -> float | None:
    """A score as a fraction 0 to 1 (stored either as a fraction or as a percentage)."""
    number = num(value)
    if number is None:
        return None
    return number / 100 if number > 1 else number


def _shown(score: float | None) -> str:
    return "—" if score is None else f"{score * 100:.1f}%"


# ---------------------------------------------------------------- mutation


def _survivor_rows(
    data: Mapping[str, Any], modules: Sequence[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    survivors = items(_first(data, "new_survivors"))
    for module in modules:
        for survivor in items(module.get("new_survivors")):
            survivors.append({"module": module.get("name"), **survivor})
    return survivors


def _survivor_file_line(survivor: Mapping[str, Any]) -> tuple[str | None, int | None]:
    file = _first(survivor, "file", "path")
    line = num(_first(survivor, "line", "lineno"))
    return (str(file) if isinstance(file, str) else None, int(line) if line is not None else None)


def mutation_view(data: Mapping[str, Any]) -> Detail:
    modules = _rows(_first(data, "modules", "scores"))
    total = _score(_first(data, "score", "total_score"))
    baseline_total = _score(_first(data, "baseline_score", "baseline"))
    blocks: list[Block] = [
        Facts(
            (
                ("mode", text(data.get("mode"))),
                ("score", _shown(total)),
                ("baseline", _shown(baseline_total)),
                ("modules", str(len(modules))),
                ("shards", text(_first(data, "shards", "expected_shards"))),
            )
        )
    ]
    bars: list[Bar] = []
    rows: list[tuple[str, ...]] = []
    status: list[str] = []
    for module in modules:
        score = _score(_first(module, "score"))
        base = _score(_first(module, "baseline", "baseline_score"))
        worse = score is not None and base is not None and score < base
        bars.append(
            Bar(
                text(module.get("name")),
                (score or 0.0) * 100,
                _shown(score),
                "bad" if worse else "ok",
            )
        )
        delta = "—" if score is None or base is None else f"{(score - base) * 100:+.1f} pts"
        rows.append(
            (
                text(module.get("name")),
                _shown(score),
                _shown(base),
                delta,
                text(_first(module, "killed")),
                text(_first(module, "survived", "survivors"))
                if not isinstance(module.get("survivors"), list)
                else str(len(module["survivors"])),
                text(_first(module, "verdict", "status")),
            )
        )
        status.append("fail" if worse else "pass")
    if bars:
        words = ", ".join(f"{bar.label} {bar.shown}" for bar in bars)
        blocks.append(
            Chart(
                "Mutation score per module",
                f"Share of mutants the tests killed, per module: {words}.",
                bar_chart(
                    "Mutation score per module", words, bars, marker=100.0, marker_label="100%"
                ),
            )
        )
        blocks.append(
            table(
                "Modules: score against the baseline",
                ("module", "score", "baseline", "Δ", "killed", "survived", "verdict"),
                rows,
                status=status,
                code=(0,),
            )
        )
    survivors = _survivor_rows(data, modules)
    findings: list[Finding] = []
    if survivors:
        blocks.append(
            Callout(
                "fail",
                f"{len(survivors)} new surviving mutant(s): a change the tests do not notice",
            )
        )
        blocks.append(
            table(
                "New survivors",
                ("module", "mutant", "where", "description"),
                [
                    (
                        text(s.get("module")),
                        text(_first(s, "mutant", "name", "id")),
                        ":".join(str(p) for p in _survivor_file_line(s) if p is not None) or "—",
                        text(_first(s, "description", "diff", "operator")),
                    )
                    for s in survivors
                ],
                status=["fail"] * len(survivors),
                code=(1, 2),
            )
        )
        for s in survivors:
            file, line = _survivor_file_line(s)
            findings.append(
                Finding(
                    name=f"surviving mutant {text(_first(s, 'mutant', 'name', 'id'))}",
                    suite="mutation",
                    failed=True,
                    message=text(_first(s, "description", "diff", "operator")),
                    file=file,
                    line=line,
                )
            )
    drift = items(data.get("drift"))
    if drift:
        blocks.append(
            Callout(
                "warn",
                "provenance drift (not comparable with the baseline): "
                + "; ".join(
                    f"{text(d.get('field'))} {text(d.get('baseline'))} → {text(d.get('current'))}"
                    for d in drift
                ),
            )
        )
    figures: dict[str, float] = {"new survivors": float(len(survivors))}
    if total is not None:
        figures["score (%)"] = round(total * 100, 2)
    for module in modules:
        score = _score(module.get("score"))
        if score is not None:
            figures[f"{text(module.get('name'))} score (%)"] = round(score * 100, 2)
    return Detail(blocks=tuple(blocks), findings=tuple(findings), figures=figures)


# ------------------------------------------------------------------ timing


def _median(value: object) -> float | None:
    return num(mapping(value).get("median")) if isinstance(value, dict) else num(value)


def _comparison(suite: Mapping[str, Any]) -> Mapping[str, Any]:
    for key in ("delta", "comparison", "compare", "vs_baseline"):
        if isinstance(suite.get(key), dict):
            return mapping(suite[key])
    return {}


_FLAG_STATUS = {"regressed": "fail", "improved": "pass", "within noise": "info"}


def timing_view(data: Mapping[str, Any]) -> Detail:
    suites = _rows(data.get("suites"))
    blocks: list[Block] = [
        Facts(
            (
                ("mode", text(data.get("mode"))),
                ("suites", str(len(suites))),
                ("repeat", text(data.get("repeat"))),
            )
        )
    ]
    rows: list[tuple[str, ...]] = []
    status: list[str] = []
    bars: list[Bar] = []
    findings: list[Finding] = []
    figures: dict[str, float] = {}
    for suite in suites:
        name = text(suite.get("name"))
        measured = mapping(suite.get("measured"))
        comparison = _comparison(suite)
        metrics = {str(m.get("metric")): m for m in items(comparison.get("metrics"))}
        for key in ("wall_ms", "cpu_ms", "peak_rss_kib"):
            value = _median(measured.get(key))
            metric = metrics.get(key, {})
            delta = metric.get("delta_pct")
            shown_delta = "—" if num(delta) is None else f"{num(delta):+.1f}%"
            flag = text(metric.get("flag")) if metric else text(comparison.get("status"))
            shown_value = (
                text(value) + " KiB" if key == "peak_rss_kib" and value is not None else ms(value)
            )
            rows.append(
                (
                    name,
                    key.removesuffix("_ms").removesuffix("_kib"),
                    shown_value,
                    ms(metric.get("baseline"))
                    if key != "peak_rss_kib"
                    else text(metric.get("baseline")),
                    shown_delta,
                    flag,
                )
            )
            status.append(_FLAG_STATUS.get(str(metric.get("flag")), "info"))
            if value is not None:
                figures[f"{name} {key.replace('_', ' ')}"] = value
        wall = _median(measured.get("wall_ms"))
        if wall is not None:
            bars.append(
                Bar(
                    name,
                    wall,
                    ms(wall),
                    "bad" if mapping(comparison.get("gate")).get("failed") is True else "ok",
                )
            )
        gate = mapping(comparison.get("gate"))
        if gate.get("failed") is True:
            findings.append(
                Finding(
                    name=f"{name}: CPU time regressed",
                    suite="timing",
                    failed=True,
                    message=text(gate.get("reason")),
                )
            )
        if comparison.get("reason"):
            blocks.append(Callout("info", f"{name}: {text(comparison.get('reason'))}"))
        collected = mapping(comparison.get("collected"))
        if collected.get("flag") == "dropped":
            blocks.append(
                Callout(
                    "warn",
                    f"{name}: {text(collected.get('baseline'))} → {text(collected.get('current'))} tests collected (fewer than the baseline)",
                )
            )
    if bars:
        words = ", ".join(f"{bar.label} {bar.shown}" for bar in bars)
        blocks.append(
            Chart(
                "Wall clock per suite (median)",
                f"Median wall-clock time per suite: {words}.",
                bar_chart("Wall clock per suite (median)", words, bars),
            )
        )
    if rows:
        blocks.append(
            table(
                "Per suite against the baseline",
                ("suite", "metric", "median", "baseline", "Δ", "verdict"),
                rows,
                status=status,
            )
        )
    return Detail(blocks=tuple(blocks), findings=tuple(findings), figures=figures)
