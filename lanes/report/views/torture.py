"""The torture lane's view: seeds and contention, violations with their replay lines, the self-check table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanes.report._charts import Bar, bar_chart
from lanes.report.views._blocks import (
    Block,
    Callout,
    Chart,
    Commands,
    Detail,
    Facts,
    Finding,
    ms,
    path_text,
    pct,
    table,
    text,
)

if TYPE_CHECKING:
    from lanes.payloads.torture import TortureData, TortureReal, TortureSelfCheck

__all__ = ["torture_view"]


def _seeds(data: TortureData) -> str:
    start, runs = data["seed_start"], data["runs"]
    if runs == 1:
        return f"seed {start}"
    return f"{runs:,} seeds ({start} to {start + runs - 1})"


def _contention(data: TortureData) -> Block:
    contention = data["contention"]
    pairs = [
        ("lock acquisitions", text(contention["acquired"])),
        ("blocked by a held lock", text(contention["held_blocks"])),
        ("blocked as duplicates", text(contention["dedup_blocks"])),
        ("flock waits", text(contention["flock_waits"])),
        ("simulated crashes", text(contention["crashes"])),
        ("interrupts", text(contention["interrupts"])),
        ("pid reuses", text(contention["pid_reuses"])),
        ("kernel run locks (governed pytest)", text(contention["runner_locks"])),
        ("refused by the kernel run lock", text(contention["runner_blocks"])),
    ]
    breaks = contention["breaks"]
    pairs.append(
        ("lock breaks", ", ".join(f"{why} {text(n)}" for why, n in breaks.items()) or "none")
    )
    pairs.append(("TTL overlaps", text(data["ttl_overlaps"])))
    scenario = data["scenario"]
    if scenario is not None:
        pairs.append(
            (
                "two-client scenario",
                (
                    f"{'ok' if scenario['passed'] else 'FAILED'} — "
                    f"{text(scenario['held_blocks'])} blocked, {text(scenario['acquired'])} acquired"
                ),
            )
        )
    return Facts(tuple(pairs))


def _violations(data: TortureData) -> tuple[list[Block], list[Finding]]:
    violations = data["violations"]
    drift = data["nondeterminism"]
    blocks: list[Block] = []
    findings = [
        Finding(
            name=f"seed {text(v['seed'])}: {text(v['invariant'])}",
            suite="torture",
            failed=True,
            message=f"{text(v['message'])}; replay: {text(v['replay'])}",
        )
        for v in violations
    ]
    findings += [
        Finding(
            name=f"seed {text(d['seed'])}: not deterministic ({text(d['what'])})",
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
                        text(v["seed"]),
                        text(v["invariant"]),
                        text(v["message"]),
                        (
                            f"{text(v['shrunk_choices'])} choices, {text(v['shrunk_ops'])} ops: "
                            f"{path_text(v['schedule_file'])}"
                        ),
                    )
                    for v in violations
                ],
                status=["fail"] * len(violations),
            )
        )
        blocks.append(Commands("replay one seed alone", tuple(v["replay"] for v in violations)))
    if drift:
        blocks.append(
            table(
                "Non-deterministic seeds (the same seed ran two different ways)",
                ("seed", "what differed", "first", "second"),
                [
                    (
                        text(d["seed"]),
                        text(d["what"]),
                        text(d["first"], limit=120),
                        text(d["second"], limit=120),
                    )
                    for d in drift
                ],
                status=["fail"] * len(drift),
            )
        )
    return blocks, findings


def _self_check(self_check: TortureSelfCheck) -> list[Block]:
    rows = self_check["rows"]
    passed = self_check["passed"]
    blocks: list[Block] = [
        Callout(
            "pass" if passed else "fail",
            f"self-check: every planted bug was caught within {text(self_check['seeds'])} seeds"
            if passed
            else "self-check FAILED: a planted bug went uncaught — the sweep cannot be trusted",
        )
    ]
    caught_by_any = {r["bug"] for r in rows if r["detected"] > 0}
    bars = [
        Bar(
            f"{text(r['bug'])} / {text(r['scheduler'])}",
            r["rate"],
            pct(r["rate"]),
            "ok" if r["detected"] > 0 else ("info" if r["bug"] in caught_by_any else "bad"),
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
                    text(r["bug"]),
                    text(r["scheduler"]),
                    f"{text(r['detected'])}/{text(r['seeds'])}",
                    pct(r["rate"]),
                    text(r["first_seed"]),
                    text(r["seeds_to_detection"]),
                    text(r["invariant"]),
                )
                for r in rows
            ],
            status=["pass" if r["bug"] in caught_by_any else "fail" for r in rows],
        )
    )
    return blocks


def _real(real: TortureReal) -> list[Block]:
    return [
        Facts(
            (
                ("real-process guard", "ok" if real["passed"] else "FAILED"),
                ("processes × iterations", f"{text(real['procs'])} × {text(real['iterations'])}"),
                ("critical sections", text(real["critical_sections"])),
                ("overlaps", text(real["overlaps"])),
                (
                    "kills / takeovers",
                    f"{text(real['kills'])}; takeover median {ms(real['takeover_ms_median'])}, max {ms(real['takeover_ms_max'])}",
                ),
                ("lock left behind", text(real["lock_left"])),
            )
        ),
        *(Callout("fail", problem) for problem in real["problems"]),
    ]


def torture_view(data: TortureData) -> Detail:
    blocks: list[Block] = [
        Facts(
            (
                ("mode", text(data["mode"])),
                ("seeds", _seeds(data)),
                ("scheduler", text(data["scheduler"])),
                ("clients × ops", f"{text(data['clients'])} × {text(data['ops'])}"),
                (
                    "executions",
                    f"{text(data['executions'])} (each seed twice: the replay check)",
                ),
                ("steps", text(data["steps"])),
                ("runs/s", text(data["runs_per_second"])),
                ("trace signature", text(data["signature"])),
            )
        ),
        _contention(data),
    ]
    violation_blocks, findings = _violations(data)
    blocks.extend(violation_blocks)
    self_check = data["self_check"]
    if self_check is not None:
        blocks.extend(_self_check(self_check))
        if not self_check["passed"]:
            findings.append(
                Finding("self-check", "torture", failed=True, message="a planted bug went uncaught")
            )
    if data["real"] is not None:
        blocks.extend(_real(data["real"]))
    figures: dict[str, float] = {
        "violations": float(len(data["violations"])),
        "non-deterministic seeds": float(len(data["nondeterminism"])),
    }
    if data["runs_per_second"] is not None:
        figures["runs/s"] = float(data["runs_per_second"])
    return Detail(blocks=tuple(blocks), findings=tuple(findings), figures=figures)
