"""The fuzz lane's view: cases and speed per target, failures with their repro/promote lines, the watchdog's cost."""

from __future__ import annotations

import json
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

__all__ = ["fuzz_view"]


def _overhead(overhead: Mapping[str, Any]) -> Callout | None:
    run_share, goal = num(overhead.get("run")), num(overhead.get("goal"))
    if run_share is None and num(overhead.get("execution")) is None:
        return None
    verdict = ""
    if run_share is not None and goal is not None:
        verdict = " — within the goal" if run_share <= goal else " — MISS: over the goal"
    return Callout(
        "miss" if verdict.startswith(" — MISS") else "info",
        "Watchdog overhead: every case runs in a watchdog process, so a case that hangs or "
        "crashes the interpreter is caught instead of wedging the lane. Against calling the "
        f"same completed cases in-process, the pipe round trip cost {pct(overhead.get('execution'), signed=True)} "
        f"per case call ({ms(overhead.get('watchdog_ms'))} vs {ms(overhead.get('in_process_ms'))}) and "
        f"{pct(run_share, signed=True)} of the whole run (generation and shrinking included); "
        f"goal: at most {pct(goal)} of the run{verdict}."
        + (
            " A negative figure is noise: the in-process replay happened to run slower."
            if min(run_share or 0.0, num(overhead.get("execution")) or 0.0) < 0
            else ""
        ),
    )


def _speed_chart(targets: list[Mapping[str, Any]]) -> Chart | None:
    bars = [
        Bar(
            text(t.get("name")),
            num(t.get("cases_per_second")) or 0.0,
            f"{text(t.get('cases_per_second'))} cases/s",
            "bad" if (num(t.get("failures")) or 0) > 0 else "ok",
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


def _failures(failures: list[Mapping[str, Any]], mode: str) -> list[Block]:
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
        )
    ]
    repro = tuple(str(f["repro"]) for f in failures if isinstance(f.get("repro"), str))
    if repro:
        blocks.append(Commands("repro: replay a saved case through the watchdog", repro))
    promote = tuple(str(f["promote"]) for f in failures if isinstance(f.get("promote"), str))
    if promote and mode != "self-check":  # broken on purpose: nothing to promote
        blocks.append(
            Commands("promote: pin a fixed case in the corpus the unit suite replays", promote)
        )
    return blocks


def _self_check(self_check: Mapping[str, Any]) -> list[Block]:
    expected, caught = mapping(self_check.get("expected")), mapping(self_check.get("caught"))
    missed = self_check.get("missed")
    rows = [
        (
            str(name),
            text(kind) if kind is not None else "nothing (the control)",
            ", ".join(str(k) for k in caught.get(name, [])) or "nothing",
        )
        for name, kind in expected.items()
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


def fuzz_view(data: Mapping[str, Any]) -> Detail:
    mode = str(data.get("mode", "run"))
    targets = items(data.get("targets"))
    failures = items(data.get("failures"))
    cases = sum(num(t.get("cases")) or 0 for t in targets)
    seconds = sum(num(t.get("duration_ms")) or 0 for t in targets) / 1000
    blocks: list[Block] = [
        Facts(
            (
                ("mode", mode),
                ("iterations per target", text(data.get("iterations"))),
                ("targets", str(len(targets))),
                ("cases", f"{cases:,.0f}" + (f" ({cases / seconds:,.0f}/s)" if seconds else "")),
                ("failures", str(len(failures))),
                ("case budget", ms(data.get("case_budget_ms"))),
                ("example database", text(data.get("database"))),
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
                status=["fail" if (num(t.get("failures")) or 0) else "pass" for t in targets],
            )
        )
    blocks.extend(_failures(failures, mode))
    overhead = _overhead(mapping(data.get("watchdog_overhead")))
    if overhead is not None and mode != "self-check":
        blocks.append(overhead)
    if isinstance(data.get("self_check"), dict):
        blocks.extend(_self_check(data["self_check"]))
    blocks.extend(
        Facts(tuple((f"{key} {name}", text(value)) for name, value in data[key].items()))
        for key in ("replay", "corpus")
        if isinstance(data.get(key), dict)
    )
    findings = tuple(
        Finding(
            name=f"{text(f.get('target'))}: {text(f.get('kind'))}",
            suite="fuzz",
            # A self-check's failures are the point: it passes by catching them.
            failed=mode != "self-check",
            message=f"{text(f.get('error_type'))}: {text(f.get('message'))}; repro: {text(f.get('repro'))}",
        )
        for f in failures
    )
    figures: dict[str, float] = {"failures": float(len(failures))}
    if seconds:
        figures["cases/s"] = round(cases / seconds, 1)
    run_share = num(mapping(data.get("watchdog_overhead")).get("run"))
    if run_share is not None:
        figures["watchdog overhead (% of run)"] = round(run_share * 100, 2)
    return Detail(blocks=tuple(blocks), findings=findings, figures=figures)
