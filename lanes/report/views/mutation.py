"""The mutation lane's view: each module's score against its baseline, and the new survivors.

The lane writes several kinds of envelope (``data.kind``): ``check`` is the
verdict a reviewer reads (envelopes/mutation.json); ``merged`` and ``shard``
are steps on the way; ``self-check`` proves the lane can fail.
"""

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
    path_text,
    table,
    text,
)

if TYPE_CHECKING:
    from lanes.payloads.mutation import (
        MutationCheck,
        MutationCheckedModule,
        MutationData,
        MutationMerged,
        MutationSelfCheck,
        MutationShardRun,
    )

__all__ = ["mutation_view"]

_VERDICT_STATUS = {"pass": "pass", "regression": "warn", "drift": "warn", "new": "info"}


def _row_status(module: MutationCheckedModule) -> str:
    # FAIL only where the ratchet failed the lane: a red row under a lane that
    # passed (a score drop before graduation) told the reader two things.
    return "fail" if module["fails"] else _VERDICT_STATUS[module["verdict"]]


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def _delta(score: float | None, baseline: float | None) -> str:
    if score is None or baseline is None:
        return "—"
    return f"{(score - baseline) * 100:+.1f} pts"


def _gating(module: MutationCheckedModule) -> str:
    if module["gating"]:
        return "gating"
    runs = f"{text(module['stable_runs'])}/{text(module['required_stable_runs'])}"
    return f"score graduating ({runs} stable runs)"


def _score_chart(modules: list[tuple[str, MutationCheckedModule]]) -> Chart | None:
    bars = [
        Bar(
            name,
            (module["score"] or 0.0) * 100,
            _score(module["score"]),
            "bad" if module["fails"] else "ok",
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


def _survivors(
    modules: list[tuple[str, MutationCheckedModule]],
) -> tuple[list[Block], list[Finding]]:
    rows: list[tuple[str, ...]] = []
    status: list[str] = []
    findings: list[Finding] = []
    for name, module in modules:
        # The two lists are disjoint (the ratchet lists a regressed mutant
        # only as a regression): one row per surviving mutant.
        for why, survivors in (
            ("regression", module["regressions"]),
            ("new", module["new_survivors"]),
        ):
            for survivor in survivors:
                path, line = survivor["path"], survivor["line"]
                where = f"{text(path)}:{line}" if line is not None else text(path)
                diff = survivor["diff"]
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
                        text(survivor["function"]),
                        text("\n".join(changed[:4]) or diff, limit=400, lines=True),
                        f"{text(survivor['tests_total'])} ran",
                    )
                )
                failing = module["fails"] and why == "regression"
                status.append("fail" if failing else "warn")
                findings.append(
                    Finding(
                        name=f"{name}: surviving mutant {text(survivor['key'])}",
                        suite="mutation",
                        failed=failing,
                        warning=not failing,
                        message=(
                            f"{why} survivor in {text(survivor['function'])}: the tests "
                            f"({text(survivor['tests_total'])} ran) did not notice\n{diff}"
                        ),
                        file=path or None,
                        line=line,
                    )
                )
    if not rows:
        return [], findings
    return [
        Callout(
            "fail" if "fail" in status else "warn",
            f"{len(rows)} surviving mutant(s) the baseline did not have: a change the tests do not "
            "notice (a mutant killed in the baseline that survives now fails the lane)",
        ),
        table(
            "Surviving mutants (new or regressed)",
            ("module", "kind", "where", "function", "change", "tests"),
            rows,
            status=status,
            code=(2, 4),
        ),
    ], findings


def _check(data: MutationCheck) -> Detail:
    modules = list(data["modules"].items())
    blocks: list[Block] = [
        Facts(
            (
                ("modules", str(len(modules))),
                ("baseline", path_text(data.get("baseline_path"))),
                ("merged from", path_text(data["merged_from"])),
            )
        )
    ]
    blocks.extend(Callout("fail", text(problem)) for problem in data["problems"])
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
                        _score(module["score"]),
                        _score(module["baseline_score"]),
                        _delta(module["score"], module["baseline_score"]),
                        module["verdict"],
                        _gating(module),
                        text(module["counts"]["killed"]),
                        text(module["counts"]["survived"]),
                        text(module["total"]),
                        ms(module["duration_ms"]),
                    )
                    for name, module in modules
                ],
                status=[_row_status(module) for _, module in modules],
                code=(0,),
            )
        )
    for name, module in modules:
        if module["drift"]:
            blocks.append(
                Callout(
                    "warn",
                    f"{name}: provenance drift (reported, never failing): "
                    + "; ".join(
                        f"{text(d['field'])} {text(d['baseline'])} → {text(d['current'])}"
                        for d in module["drift"]
                    ),
                )
            )
    survivor_blocks, findings = _survivors(modules)
    blocks.extend(survivor_blocks)
    figures: dict[str, float] = {}
    for name, module in modules:
        score = module["score"]
        if score is not None:
            figures[f"{name} score (%)"] = round(score * 100, 2)
    figures["new survivors"] = float(sum(len(m["new_survivors"]) for _, m in modules))
    return Detail(blocks=tuple(blocks), findings=tuple(findings), figures=figures)


def _self_check(data: MutationSelfCheck) -> Detail:
    checks = data["checks"]
    passed = bool(checks) and all(check["ok"] for check in checks)
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
                [(text(c["name"]), text(c["ok"]), text(c["observed"])) for c in checks],
                status=["pass" if c["ok"] else "fail" for c in checks],
            ),
        )
    )


def _step_facts(kind: str, shard: str | None, expect: int | None, modules: int) -> Facts:
    return Facts(
        (
            ("kind", kind),
            ("shard", text(shard)),
            ("expected shards", text(expect)),
            ("modules", str(modules)),
        )
    )


def _merged(data: MutationMerged) -> Detail:
    modules = list(data["modules"].items())
    blocks: list[Block] = [_step_facts("merged", None, data["expect_shards"], len(modules))]
    blocks.extend(Callout("fail", text(problem)) for problem in data["problems"])
    if modules:
        blocks.append(
            table(
                "Merged module scores",
                ("module", "score", "killed", "survived", "valid mutants", "shards"),
                [
                    (
                        name,
                        _score(m["score"]),
                        text(m["counts"]["killed"]),
                        text(m["counts"]["survived"]),
                        text(m["total"]),
                        str(len(m["shards"])),
                    )
                    for name, m in modules
                ],
                code=(0,),
            )
        )
    return Detail(blocks=tuple(blocks))


def _shard(data: MutationShardRun) -> Detail:
    shards = data["shards"]
    blocks: list[Block] = [_step_facts("shard", data["shard"], None, len(shards))]
    if shards:
        blocks.append(
            table(
                "Shard",
                ("module", "shard", "mutants here", "generated (whole module)"),
                [
                    (text(s["module"]), s["shard"], str(len(s["mutants"])), text(s["generated"]))
                    for s in shards
                ],
                code=(0,),
            )
        )
    return Detail(blocks=tuple(blocks))


def mutation_view(data: MutationData) -> Detail:
    if data["kind"] == "self-check":
        return _self_check(data)
    if data["kind"] == "merged":
        return _merged(data)
    if data["kind"] == "shard":
        return _shard(data)
    return _check(data)
