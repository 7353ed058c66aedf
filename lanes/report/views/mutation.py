"""The mutation lane's view: each module's score against its baseline, and the new survivors.

The lane writes several kinds of envelope (``data.kind``): ``check`` is the
verdict a reviewer reads (envelopes/mutation.json); ``merged`` and ``shard``
are steps on the way; ``self-check`` proves the lane can fail.
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
    from collections.abc import Mapping

__all__ = ["mutation_view"]

_VERDICT_STATUS = {"pass": "pass", "regression": "fail", "drift": "warn", "new": "info"}


def _score(value: object) -> str:
    number = num(value)
    return "—" if number is None else f"{number * 100:.1f}%"


def _delta(score: object, baseline: object) -> str:
    now, before = num(score), num(baseline)
    if now is None or before is None:
        return "—"
    return f"{(now - before) * 100:+.1f} pts"


def _modules(data: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    modules = data.get("modules")
    if not isinstance(modules, dict):
        return []
    return [(str(name), module) for name, module in modules.items() if isinstance(module, dict)]


def _gating(module: Mapping[str, Any]) -> str:
    if module.get("gating") is True:
        return "gating"
    if "stable_runs" in module:
        return f"graduating ({text(module.get('stable_runs'))}/{text(module.get('required_stable_runs'))} stable runs)"
    return "—"


def _score_chart(modules: list[tuple[str, Mapping[str, Any]]]) -> Chart | None:
    bars = [
        Bar(
            name,
            (num(module.get("score")) or 0.0) * 100,
            _score(module.get("score")),
            "bad" if module.get("verdict") == "regression" else "ok",
            "regression",
        )
        for name, module in modules
    ]
    if not bars:
        return None
    words = ", ".join(f"{bar.label} {bar.shown}" for bar in bars)
    return Chart(
        "Mutation score per module",
        f"Share of valid mutants the tests detect, per module: {words}.",
        bar_chart("Mutation score per module", words, bars, marker=100.0, marker_label="100%"),
    )


def _survivors(modules: list[tuple[str, Mapping[str, Any]]]) -> tuple[list[Block], list[Finding]]:
    rows: list[tuple[str, ...]] = []
    status: list[str] = []
    findings: list[Finding] = []
    for name, module in modules:
        gating = module.get("gating") is True
        for why, survivors in (
            ("regression", module.get("regressions")),
            ("new", module.get("new_survivors")),
        ):
            for survivor in items(survivors):
                path, line = survivor.get("path"), num(survivor.get("line"))
                where = f"{text(path)}:{line:.0f}" if line is not None else text(path)
                diff = str(survivor.get("diff") or "")
                changed = [
                    ln
                    for ln in diff.splitlines()
                    if ln[:1] in "+-" and ln[:3] not in ("+++", "---")
                ]
                rows.append(
                    (
                        name,
                        why,
                        where,
                        text(survivor.get("function")),
                        text("\n".join(changed[:4]) or diff, limit=400, lines=True),
                        f"{text(survivor.get('tests_total'))} ran",
                    )
                )
                failing = gating and why == "regression"
                status.append("fail" if failing else "warn")
                findings.append(
                    Finding(
                        name=f"{name}: surviving mutant {text(survivor.get('key'))}",
                        suite="mutation",
                        failed=failing,
                        warning=not failing,
                        message=(
                            f"{why} survivor in {text(survivor.get('function'))}: the tests "
                            f"({text(survivor.get('tests_total'))} ran) did not notice\n{diff}"
                        ),
                        file=str(path) if isinstance(path, str) and path else None,
                        line=int(line) if line is not None else None,
                    )
                )
    if not rows:
        return [], findings
    return [
        Callout(
            "fail" if "fail" in status else "warn",
            f"{len(rows)} surviving mutant(s) the baseline did not have: a change the tests do not "
            "notice (a regression fails the lane once its module is gating)",
        ),
        table(
            "Surviving mutants (new or regressed)",
            ("module", "kind", "where", "function", "change", "tests"),
            rows,
            status=status,
            code=(2, 4),
        ),
    ], findings


def _check(data: Mapping[str, Any]) -> Detail:
    modules = _modules(data)
    blocks: list[Block] = [
        Facts(
            (
                ("modules", str(len(modules))),
                ("baseline", text(data.get("baseline_path"))),
                ("merged from", text(data.get("merged_from"))),
            )
        )
    ]
    blocks.extend(Callout("fail", text(problem)) for problem in data.get("problems", []) or [])
    chart = _score_chart(modules)
    if chart is not None:
        blocks.append(chart)
    if modules:
        blocks.append(
            table(
                "Modules: score against the baseline",
                (
                    "module",
                    "score",
                    "baseline",
                    "Δ",
                    "verdict",
                    "ratchet",
                    "killed",
                    "survived",
                    "valid mutants",
                    "time",
                ),
                [
                    (
                        name,
                        _score(module.get("score")),
                        _score(module.get("baseline_score")),
                        _delta(module.get("score"), module.get("baseline_score")),
                        text(module.get("verdict")),
                        _gating(module),
                        text(mapping(module.get("counts")).get("killed")),
                        text(mapping(module.get("counts")).get("survived")),
                        text(module.get("total")),
                        ms(module.get("duration_ms")),
                    )
                    for name, module in modules
                ],
                status=[
                    _VERDICT_STATUS.get(str(module.get("verdict")), "info") for _, module in modules
                ],
                code=(0,),
            )
        )
    for name, module in modules:
        drift = items(module.get("drift"))
        if drift:
            blocks.append(
                Callout(
                    "warn",
                    f"{name}: provenance drift (reported, never failing): "
                    + "; ".join(
                        f"{text(d.get('field'))} {text(d.get('baseline'))} → {text(d.get('current'))}"
                        for d in drift
                    ),
                )
            )
    survivor_blocks, findings = _survivors(modules)
    blocks.extend(survivor_blocks)
    figures: dict[str, float] = {}
    for name, module in modules:
        score = num(module.get("score"))
        if score is not None:
            figures[f"{name} score (%)"] = round(score * 100, 2)
    figures["new survivors"] = float(sum(len(items(m.get("new_survivors"))) for _, m in modules))
    return Detail(blocks=tuple(blocks), findings=tuple(findings), figures=figures)


def _self_check(data: Mapping[str, Any]) -> Detail:
    checks = items(data.get("checks"))
    passed = bool(checks) and all(check.get("ok") is True for check in checks)
    return Detail(
        blocks=(
            Callout(
                "pass" if passed else "fail",
                "self-check: the lane failed every planted failure, as it must"
                if passed
                else "self-check FAILED: a planted failure went unnoticed",
            ),
            table(
                "Self-check",
                ("planted failure", "caught", "observed"),
                [(text(c.get("name")), text(c.get("ok")), text(c.get("observed"))) for c in checks],
                status=["pass" if c.get("ok") is True else "fail" for c in checks],
            ),
        )
    )


def _merged_or_shard(data: Mapping[str, Any]) -> Detail:
    modules = _modules(data)
    shards = items(data.get("shards"))
    blocks: list[Block] = [
        Facts(
            (
                ("kind", text(data.get("kind"))),
                ("shard", text(data.get("shard"))),
                ("expected shards", text(data.get("expect_shards"))),
                ("modules", str(len(modules) or len(shards))),
            )
        )
    ]
    blocks.extend(Callout("fail", text(problem)) for problem in data.get("problems", []) or [])
    if modules:
        blocks.append(
            table(
                "Merged module scores",
                ("module", "score", "killed", "survived", "valid mutants", "shards"),
                [
                    (
                        name,
                        _score(m.get("score")),
                        text(mapping(m.get("counts")).get("killed")),
                        text(mapping(m.get("counts")).get("survived")),
                        text(m.get("total")),
                        str(len(m.get("shards", []) or [])),
                    )
                    for name, m in modules
                ],
                code=(0,),
            )
        )
    if shards:
        blocks.append(
            table(
                "Shard",
                ("module", "shard", "mutants here", "generated (whole module)"),
                [
                    (
                        text(s.get("module")),
                        text(s.get("shard")),
                        str(len(items(s.get("mutants")))),
                        text(s.get("generated")),
                    )
                    for s in shards
                ],
                code=(0,),
            )
        )
    return Detail(blocks=tuple(blocks))


def mutation_view(data: Mapping[str, Any]) -> Detail:
    kind = data.get("kind")
    if kind == "self-check":
        return _self_check(data)
    if kind in ("merged", "shard"):
        return _merged_or_shard(data)
    return _check(data)
