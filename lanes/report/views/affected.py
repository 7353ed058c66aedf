"""The affected selector's view: what changed, what it selected and why, what ran, how it proved itself."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanes.report.views._blocks import (
    Block,
    Callout,
    Detail,
    Facts,
    Finding,
    ms,
    pct,
    table,
    text,
)

if TYPE_CHECKING:
    from lanes.payloads.affected import (
        AffectedData,
        AffectedPlan,
        AffectedRecall,
        AffectedRun,
        AffectedSelfCheck,
    )

__all__ = ["affected_view"]


def _shown(value: object) -> str:
    """A self-check's expected/observed value: lists of files as the files."""
    if isinstance(value, list):
        return ", ".join(text(item) for item in value) or "(none)"
    return text(value)


def _plan_blocks(plan: AffectedPlan) -> list[Block]:
    counts = plan["counts"]
    selected = f"{text(counts['selected'])} of {text(counts['total'])} test files"
    blocks: list[Block] = [
        Facts(
            (
                ("base", text(plan["base"])),
                ("changed paths", text(len(plan["changed"]))),
                ("selected", f"{selected} ({pct(counts['share'])})"),
                ("full set", "yes" if plan["full"] else "no"),
            )
        )
    ]
    blocks.extend(
        Callout("warn", f"full set: {text(r['changed'])} — {text(r['detail'])}")
        for r in plan["full_reasons"]
    )
    if plan["changed"]:
        blocks.append(
            table(
                "Changed paths and the rule that judged each",
                ("path", "change", "rule", "why", "tests"),
                [
                    (
                        text(c["path"]),
                        text(c["change"]),
                        text(c["rule"]),
                        text(c["detail"]),
                        text(c["tests"]),
                    )
                    for c in plan["changed"]
                ],
                code=(0,),
                state_column=False,
            )
        )
    if plan["blind_spots"]:
        blocks.append(
            table(
                "Not seen by the import graph (check by hand)",
                ("file", "line", "what"),
                [(text(s["file"]), text(s["line"]), text(s["what"])) for s in plan["blind_spots"]],
                code=(0,),
                state_column=False,
            )
        )
    return blocks


def _runs_blocks(runs: list[AffectedRun]) -> tuple[list[Block], list[Finding]]:
    if not runs:
        return [], []
    block = table(
        "What ran (each selected suite once, then the gates)",
        ("what", "command", "exit", "took"),
        [
            (
                text(r["what"]),
                " ".join(text(a) for a in r["command"]),
                "skipped: " + text(r["skipped"]) if "skipped" in r else text(r["exit_code"]),
                ms(r["duration_ms"]),
            )
            for r in runs
        ],
        status=[
            "warn" if "skipped" in r else "pass" if r["exit_code"] == 0 else "fail" for r in runs
        ],
        code=(1,),
    )
    # A skipped gate (its command is not installed) is shown, not failed.
    findings = [
        Finding(
            name=text(r["what"]),
            suite="affected",
            failed=True,
            message="exit code " + text(r["exit_code"]),
        )
        for r in runs
        if r["exit_code"] != 0 and "skipped" not in r
    ]
    return [block], findings


def _self_check_blocks(check: AffectedSelfCheck) -> tuple[list[Block], list[Finding]]:
    checks = check["checks"]
    # A planted fault is a row too: its expected answer, and what the
    # selector and the fault answered.
    plants = check.get("planted", [])
    rows = [(text(c["name"]), _shown(c["expected"]), _shown(c["observed"])) for c in checks]
    rows += [
        (
            text(f"planted fault: {p['fault']}"),
            _shown(p["expected"]),
            _shown(f"{p['real']} (the fault: {p['planted']})"),
        )
        for p in plants
    ]
    status = ["pass" if c["passed"] else "fail" for c in checks]
    status += ["pass" if p["caught"] else "fail" for p in plants]
    block = table(
        "Self-check on a project whose answer is known",
        ("check", "expected", "observed"),
        rows,
        status=status,
    )
    findings = [
        Finding(name=text(c["name"]), suite="affected self-check", failed=True)
        for c in checks
        if not c["passed"]
    ]
    findings += [
        Finding(name=text(p["fault"]), suite="affected self-check", failed=True)
        for p in plants
        if not p["caught"]
    ]
    return [block], findings


def _recall_block(recall: AffectedRecall) -> Block:
    return Callout(
        "pass" if not recall["missed"] else "fail",
        f"recall {pct(recall['recall'])} over {text(recall['noticed'])} plants a test noticed; "
        f"mean selection {pct(recall['mean_selected_share'])} of the test files; missed: "
        f"{', '.join(text(m) for m in recall['missed']) or 'none'}",
    )


def affected_view(data: AffectedData) -> Detail:
    blocks: list[Block] = []
    findings: list[Finding] = []
    figures: dict[str, float] = {}
    if "plan" in data:
        blocks.extend(_plan_blocks(data["plan"]))
    if "runs" in data:
        run_blocks, run_findings = _runs_blocks(data["runs"])
        blocks.extend(run_blocks)
        findings.extend(run_findings)
    if "self_check" in data:
        check_blocks, check_findings = _self_check_blocks(data["self_check"])
        blocks.extend(check_blocks)
        findings.extend(check_findings)
    if "recall" in data:
        recall = data["recall"]
        blocks.append(_recall_block(recall))
        if recall["recall"] is not None:
            figures["recall"] = float(recall["recall"])
        if recall["mean_selected_share"] is not None:
            figures["mean selected share"] = float(recall["mean_selected_share"])
    if "plan" in data:
        figures["selected share"] = float(data["plan"]["counts"]["share"])
    return Detail(blocks=tuple(blocks), findings=tuple(findings), figures=figures)
