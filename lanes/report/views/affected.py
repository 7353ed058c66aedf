"""The affected selector's view: what changed, what it selected and why, what ran, how it proved itself."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lanes.report.views._blocks import (
    Block,
    Callout,
    Detail,
    Facts,
    Finding,
    entry_table,
    items,
    mapping,
    ms,
    num,
    pct,
    table,
    text,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["affected_view"]


def _shown(value: object) -> str:
    """A self-check's expected/observed value: lists of files as the files."""
    if isinstance(value, list):
        return ", ".join(text(item) for item in value) or "(none)"
    return text(value)


def _plan_blocks(plan: Mapping[str, Any]) -> list[Block]:
    counts = mapping(plan.get("counts"))
    selected, total = num(counts.get("selected")), num(counts.get("total"))
    blocks: list[Block] = [
        Facts(
            (
                ("base", text(plan.get("base"))),
                ("changed paths", text(len(items(plan.get("changed"))))),
                (
                    "selected",
                    f"{text(selected)} of {text(total)} test files ({pct(counts.get('share'))})",
                ),
                ("full set", "yes" if plan.get("full") is True else "no"),
            )
        )
    ]
    blocks.extend(
        Callout("warn", f"full set: {text(r.get('changed'))} — {text(r.get('detail'))}")
        for r in items(plan.get("full_reasons"))
    )
    changed = items(plan.get("changed"))
    if changed:
        blocks.append(
            entry_table(
                "Changed paths and the rule that judged each",
                changed,
                (
                    ("path", "path", text),
                    ("change", "change", text),
                    ("rule", "rule", text),
                    ("why", "detail", text),
                    ("tests", "tests", text),
                ),
                code=(0,),
                state_column=False,
            )
        )
    spots = items(plan.get("blind_spots"))
    if spots:
        blocks.append(
            entry_table(
                "Not seen by the import graph (check by hand)",
                spots,
                (("file", "file", text), ("line", "line", text), ("what", "what", text)),
                code=(0,),
                state_column=False,
            )
        )
    return blocks


def affected_view(data: Mapping[str, Any]) -> Detail:
    blocks: list[Block] = []
    findings: list[Finding] = []
    plan = data.get("plan")
    if isinstance(plan, dict):
        blocks.extend(_plan_blocks(plan))
    runs = items(data.get("runs"))
    if runs:
        failed = [r for r in runs if r.get("exit_code") != 0]
        blocks.append(
            table(
                "What ran (each selected suite once, then the gates)",
                ("what", "command", "exit", "took"),
                [
                    (
                        text(r.get("what")),
                        " ".join(text(a) for a in r.get("command") or []),
                        text(r.get("exit_code")),
                        ms(r.get("duration_ms")),
                    )
                    for r in runs
                ],
                status=["pass" if r.get("exit_code") == 0 else "fail" for r in runs],
                code=(1,),
            )
        )
        findings.extend(
            Finding(
                name=text(r.get("what")),
                suite="affected",
                failed=True,
                message="exit code " + text(r.get("exit_code")),
            )
            for r in failed
        )
    check = data.get("self_check")
    if isinstance(check, dict):
        checks = items(check.get("checks"))
        blocks.append(
            table(
                "Self-check on a project whose answer is known",
                ("check", "expected", "observed"),
                [
                    (text(c.get("name")), _shown(c.get("expected")), _shown(c.get("observed")))
                    for c in checks
                ],
                status=["pass" if c.get("passed") is True else "fail" for c in checks],
            )
        )
        findings.extend(
            Finding(name=text(c.get("name")), suite="affected self-check", failed=True)
            for c in checks
            if c.get("passed") is not True
        )
    recall = data.get("recall")
    figures: dict[str, float] = {}
    if isinstance(recall, dict):
        value = num(recall.get("recall"))
        share = num(recall.get("mean_selected_share"))
        blocks.append(
            Callout(
                "pass" if not recall.get("missed") else "fail",
                f"recall {pct(value)} over {text(recall.get('noticed'))} plants a test noticed; "
                f"mean selection {pct(share)} of the test files; missed: "
                f"{', '.join(text(m) for m in recall.get('missed') or []) or 'none'}",
            )
        )
        if value is not None:
            figures["recall"] = value
        if share is not None:
            figures["mean selected share"] = share
    if isinstance(plan, dict):
        share = num(mapping(plan.get("counts")).get("share"))
        if share is not None:
            figures["selected share"] = share
    return Detail(blocks=tuple(blocks), findings=tuple(findings), figures=figures)
