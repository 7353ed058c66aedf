"""The fuzz lane's view: cases and speed per target, failures with their repro/promote lines, the watchdog's cost."""

from __future__ import annotations

import json
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
    entry_table,
    ms,
    pct,
    table,
    text,
)

if TYPE_CHECKING:
    from lanes.payloads.fuzz import (
        FuzzData,
        FuzzFailure,
        FuzzMode,
        FuzzOverhead,
        FuzzSelfCheck,
        FuzzTarget,
    )

__all__ = ["fuzz_view"]


def _overhead(overhead: FuzzOverhead) -> Callout | None:
    run_share, execution, goal = overhead["run"], overhead["execution"], overhead["goal"]
    if run_share is None and execution is None:
        return None
    verdict = ""
    if run_share is not None and goal is not None:
        verdict = " — within the goal" if run_share <= goal else " — MISS: over the goal"
    # No goal: a user's project, where the goal (lanekit's own) is not theirs.
    stated = "" if goal is None else f"; goal: at most {pct(goal)} of the run{verdict}"
    return Callout(
        "miss" if verdict.startswith(" — MISS") else "info",
        "Watchdog overhead: every case runs in a watchdog process, so a case that hangs or "
        "crashes the interpreter is caught instead of wedging the lane. Against calling the "
        f"same completed cases in-process, the pipe round trip cost {pct(execution, signed=True)} "
        f"per case call ({ms(overhead['watchdog_ms'])} vs {ms(overhead['in_process_ms'])}) and "
        f"{pct(run_share, signed=True)} of the whole run (generation and shrinking included)"
        f"{stated}."
        + (
            " A negative figure is noise: the in-process replay happened to run slower."
            if min(run_share or 0.0, execution or 0.0) < 0
            else ""
        ),
    )


def _speed_chart(targets: list[FuzzTarget]) -> Chart | None:
    bars = [
        Bar(
            text(t["name"]),
            t["cases_per_second"] or 0.0,
            f"{text(t['cases_per_second'])} cases/s",
            "bad" if t["failures"] > 0 else "ok",
            "failures",
        )
        for t in targets
    ]
    if not bars:
        return None
    words = ", ".join(f"{bar.label} {bar.shown}" for bar in bars)
    return Chart(
        "Cases per second per target",
        f"Generated cases per second through the watchdog: {words}.",
        bar_chart("Cases per second per target", words, bars),
    )


def _failures(failures: list[FuzzFailure], mode: FuzzMode) -> list[Block]:
    if not failures:
        return []
    blocks: list[Block] = [
        entry_table(
            "Failures (shrunk)",
            failures,
            (
                ("target", "target", text),
                ("kind", "kind", text),
                ("error", "error_type", text),
                ("message", "message", text),
                ("input", "input_preview", text),
            ),
            status=["fail"] * len(failures),
            code=(4,),
        ),
        Commands(
            "repro: replay a saved case through the watchdog", tuple(f["repro"] for f in failures)
        ),
    ]
    if mode != "self-check":  # broken on purpose: nothing to promote
        blocks.append(
            Commands(
                "promote: pin a fixed case in the corpus the unit suite replays",
                tuple(f["promote"] for f in failures),
            )
        )
    return blocks


def _self_check(self_check: FuzzSelfCheck) -> list[Block]:
    caught, missed = self_check["caught"], self_check["missed"]
    rows = [
        (
            name,
            text(kind) if kind is not None else "nothing (the control)",
            ", ".join(caught.get(name, [])) or "nothing",
        )
        for name, kind in self_check["expected"].items()
    ]
    ok = not missed
    return [
        Callout(
            "pass" if ok else "fail",
            "self-check: every broken-on-purpose target was caught and the control was not"
            if ok
            else f"self-check FAILED: missed {text(json.dumps(missed))}",
        ),
        table("Self-check", ("target", "must be caught as", "caught as"), rows),
    ]


def fuzz_view(data: FuzzData) -> Detail:
    mode = data["mode"]
    targets = data["targets"]
    failures = data["failures"]
    cases = sum(t["cases"] for t in targets)
    seconds = sum(t["duration_ms"] for t in targets) / 1000
    blocks: list[Block] = [
        Facts(
            (
                ("mode", mode),
                ("iterations per target", text(data["iterations"])),
                ("targets", str(len(targets))),
                ("cases", f"{cases:,.0f}" + (f" ({cases / seconds:,.0f}/s)" if seconds else "")),
                ("failures", str(len(failures))),
                ("case budget", ms(data["case_budget_ms"])),
                ("example database", text(data["database"])),
            )
        )
    ]
    chart = _speed_chart(targets)
    if chart is not None:
        blocks.append(chart)
    if targets:
        blocks.append(
            entry_table(
                "Targets",
                targets,
                (
                    ("target", "name", text),
                    ("cases", "cases", text),
                    ("failures", "failures", text),
                    ("stalls", "stalls", text),
                    ("restarts", "worker_restarts", text),
                    ("cases/s", "cases_per_second", text),
                    ("slowest case", "slowest_case_ms", ms),
                    ("time", "duration_ms", ms),
                ),
                status=["fail" if t["failures"] else "pass" for t in targets],
            )
        )
    blocks.extend(_failures(failures, mode))
    watchdog_overhead = data["watchdog_overhead"]
    if watchdog_overhead is not None and mode != "self-check":
        overhead = _overhead(watchdog_overhead)
        if overhead is not None:
            blocks.append(overhead)
    if data["self_check"] is not None:
        blocks.extend(_self_check(data["self_check"]))
    if data["replay"] is not None:
        blocks.append(Facts(tuple((f"replay {k}", text(v)) for k, v in data["replay"].items())))
    if data["corpus"] is not None:
        blocks.append(Facts(tuple((f"corpus {k}", text(v)) for k, v in data["corpus"].items())))
    findings = tuple(
        Finding(
            name=f"{text(f['target'])}: {text(f['kind'])}",
            suite="fuzz",
            # A self-check's failures are the point: it passes by catching them.
            failed=mode != "self-check",
            message=f"{text(f['error_type'])}: {text(f['message'])}; repro: {text(f['repro'])}",
        )
        for f in failures
    )
    figures: dict[str, float] = {"failures": float(len(failures))}
    if seconds:
        figures["cases/s"] = round(cases / seconds, 1)
    if watchdog_overhead is not None and watchdog_overhead["run"] is not None:
        figures["watchdog overhead (% of run)"] = round(watchdog_overhead["run"] * 100, 2)
    return Detail(blocks=tuple(blocks), findings=findings, figures=figures)
