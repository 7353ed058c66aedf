"""The torture lane's view: seeds and contention, violations with their replay lines, the self-check table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lanes.report._charts import Bar, bar_chart
from lanes.report.views._blocks import (
    Block,
    Callout,
    Chart,
    Commands,
    Detail,
    Facts,
    Finding,
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

__all__ = ["torture_view"]

_CONTENTION = (
    ("acquired", "lock acquisitions"),
    ("held_blocks", "blocked by a held lock"),
    ("dedup_blocks", "blocked as duplicates"),
    ("flock_waits", "flock waits"),
    ("crashes", "simulated crashes"),
    ("interrupts", "interrupts"),
    ("pid_reuses", "pid reuses"),
)


def _seeds(data: Mapping[str, Any]) -> str:
    start, runs = num(data.get("seed_start")), num(data.get("runs"))
    if start is None or runs is None:
        return "—"
    if runs == 1:
        return f"seed {start:.0f}"
    return f"{runs:,.0f} seeds ({start:.0f} to {start + runs - 1:.0f})"


def _contention(data: Mapping[str, Any]) -> Block | None:
    contention = mapping(data.get("contention"))
    if not contention:
        return None
    pairs = [(label, text(contention.get(key))) for key, label in _CONTENTION if key in contention]
    breaks = mapping(contention.get("breaks"))
    pairs.append(
        ("lock breaks", ", ".join(f"{why} {text(n)}" for why, n in breaks.items()) or "none")
    )
    pairs.append(("TTL overlaps", text(data.get("ttl_overlaps"))))
    scenario = mapping(data.get("scenario"))
    if scenario:
        pairs.append(
            (
                "two-client scenario",
                (
                    f"{'ok' if scenario.get('passed') is True else 'FAILED'} — "
                    f"{text(scenario.get('held_blocks'))} blocked, {text(scenario.get('acquired'))} acquired"
                ),
            )
        )
    return Facts(tuple(pairs))


def _violations(data: Mapping[str, Any]) -> tuple[list[Block], list[Finding]]:
    violations = items(data.get("violations"))
    drift = items(data.get("nondeterminism"))
    blocks: list[Block] = []
    findings = [
        Finding(
            name=f"seed {text(v.get('seed'))}: {text(v.get('invariant'))}",
            suite="torture",
            failed=True,
            message=f"{text(v.get('message'))}; replay: {text(v.get('replay'))}",
        )
        for v in violations
    ]
    findings += [
        Finding(
            name=f"seed {text(d.get('seed'))}: not deterministic ({text(d.get('what'))})",
            suite="torture",
            failed=True,
            message="the same seed produced two different runs",
        )
        for d in drift
    ]
    if violations:
        blocks.append(
            table(
                "Invariant violations (shrunk)",
                ("seed", "invariant", "message", "shrunk schedule"),
                [
                    (
                        text(v.get("seed")),
                        text(v.get("invariant")),
                        text(v.get("message")),
                        (
                            f"{text(v.get('shrunk_choices'))} choices, {text(v.get('shrunk_ops'))} ops: "
                            f"{text(v.get('schedule_file'))}"
                        ),
                    )
                    for v in violations
                ],
                status=["fail"] * len(violations),
            )
        )
        replays = tuple(str(v["replay"]) for v in violations if isinstance(v.get("replay"), str))
        if replays:
            blocks.append(Commands("replay one seed alone", replays))
    if drift:
        blocks.append(
            table(
                "Non-deterministic seeds (the same seed ran two different ways)",
                ("seed", "what differed", "first", "second"),
                [
                    (
                        text(d.get("seed")),
                        text(d.get("what")),
                        text(d.get("first"), limit=120),
                        text(d.get("second"), limit=120),
                    )
                    for d in drift
                ],
                status=["fail"] * len(drift),
            )
        )
    return blocks, findings


def _self_check(self_check: Mapping[str, Any]) -> list[Block]:
    rows = items(self_check.get("rows"))
    passed = self_check.get("passed") is True
    blocks: list[Block] = [
        Callout(
            "pass" if passed else "fail",
            f"self-check: every planted bug was caught within {text(self_check.get('seeds'))} seeds"
            if passed
            else "self-check FAILED: a planted bug went uncaught — the sweep cannot be trusted",
        )
    ]
    if rows:
        caught_by_any = {str(r.get("bug")) for r in rows if (num(r.get("detected")) or 0) > 0}
        bars = [
            Bar(
                f"{text(r.get('bug'))} / {text(r.get('scheduler'))}",
                num(r.get("rate")) or 0.0,
                pct(r.get("rate")),
                "ok"
                if (num(r.get("detected")) or 0) > 0
                else ("info" if str(r.get("bug")) in caught_by_any else "bad"),
                "missed",
            )
            for r in rows
        ]
        words = ", ".join(f"{bar.label} {bar.shown}" for bar in bars)
        blocks.append(
            Chart(
                "Planted bugs: share of seeds that caught each",
                f"Detection rate per planted bug and scheduler: {words}.",
                bar_chart("Planted bugs: share of seeds that caught each", words, bars),
            )
        )
        blocks.append(
            table(
                "Self-check (a bug counts as caught when either scheduler catches it)",
                (
                    "planted bug",
                    "scheduler",
                    "caught",
                    "rate",
                    "first seed",
                    "seeds to detection",
                    "invariant",
                ),
                [
                    (
                        text(r.get("bug")),
                        text(r.get("scheduler")),
                        f"{text(r.get('detected'))}/{text(r.get('seeds'))}",
                        pct(r.get("rate")),
                        text(r.get("first_seed")),
                        text(r.get("seeds_to_detection")),
                        text(r.get("invariant")),
                    )
                    for r in rows
                ],
                status=["pass" if str(r.get("bug")) in caught_by_any else "fail" for r in rows],
            )
        )
    return blocks


def _real(real: Mapping[str, Any]) -> list[Block]:
    problems = (
        [str(p) for p in real.get("problems", []) if isinstance(p, str)]
        if isinstance(real.get("problems"), list)
        else []
    )
    return [
        Facts(
            (
                ("real-process guard", "ok" if real.get("passed") is True else "FAILED"),
                (
                    "processes × iterations",
                    f"{text(real.get('procs'))} × {text(real.get('iterations'))}",
                ),
                ("critical sections", text(real.get("critical_sections"))),
                ("overlaps", text(real.get("overlaps"))),
                (
                    "kills / takeovers",
                    f"{text(real.get('kills'))}; takeover median {ms(real.get('takeover_ms_median'))}, max {ms(real.get('takeover_ms_max'))}",
                ),
                ("lock left behind", text(real.get("lock_left"))),
            )
        ),
        *(Callout("fail", problem) for problem in problems),
    ]


def torture_view(data: Mapping[str, Any]) -> Detail:
    blocks: list[Block] = [
        Facts(
            (
                ("mode", text(data.get("mode"))),
                ("seeds", _seeds(data)),
                ("scheduler", text(data.get("scheduler"))),
                ("clients × ops", f"{text(data.get('clients'))} × {text(data.get('ops'))}"),
                (
                    "executions",
                    f"{text(data.get('executions'))} (each seed twice: the replay check)",
                ),
                ("steps", text(data.get("steps"))),
                ("runs/s", text(data.get("runs_per_second"))),
                ("trace signature", text(data.get("signature"))),
            )
        )
    ]
    contention = _contention(data)
    if contention is not None:
        blocks.append(contention)
    violation_blocks, findings = _violations(data)
    blocks.extend(violation_blocks)
    if isinstance(data.get("self_check"), dict):
        blocks.extend(_self_check(data["self_check"]))
        if data["self_check"].get("passed") is False:
            findings.append(
                Finding("self-check", "torture", failed=True, message="a planted bug went uncaught")
            )
    if isinstance(data.get("real"), dict):
        blocks.extend(_real(data["real"]))
    figures: dict[str, float] = {
        "violations": float(len(items(data.get("violations")))),
        "non-deterministic seeds": float(len(items(data.get("nondeterminism")))),
    }
    rate = num(data.get("runs_per_second"))
    if rate is not None:
        figures["runs/s"] = rate
    return Detail(blocks=tuple(blocks), findings=tuple(findings), figures=figures)
