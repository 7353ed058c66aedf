"""The bench lane's view: every goal with its figure, misses and failures first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanes.report.views._blocks import (
    Block,
    Callout,
    Detail,
    Facts,
    Finding,
    num,
    table,
    text,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from lanes.payloads.bench import BenchData, BenchFigure

__all__ = ["bench_view"]

_ORDER = {"fail": 0, "miss": 1, "pass": 2, "info": 3}
_STATUS = {"fail": "fail", "miss": "warn", "pass": "pass", "info": "info"}
# How many figures of one benchmark its table row shows.
_FIGURES_SHOWN = 8
# How many numeric figures of one benchmark the history follows.
_FIGURES_PER_BENCHMARK = 3


def _figures_text(figures: Mapping[str, BenchFigure]) -> str:
    # One figure a line in HTML (cells keep line breaks); "; " joins them in
    # Markdown. A benchmark may report dozens: the first few, then a count.
    shown = [
        f"{key} {text(value, limit=80)}" for key, value in list(figures.items())[:_FIGURES_SHOWN]
    ]
    if len(figures) > _FIGURES_SHOWN:
        shown.append(f"… {len(figures) - _FIGURES_SHOWN} more in the envelope")
    return ";\n".join(shown) or "—"


def bench_view(data: BenchData) -> Detail:
    benchmarks = sorted(data["benchmarks"], key=lambda b: _ORDER[b["verdict"]])
    blocks: list[Block] = []
    failed = [text(b["name"]) for b in benchmarks if b["verdict"] == "fail"]
    if failed:
        blocks.append(
            Callout(
                "fail", f"{', '.join(failed)}: a gating goal missed beyond noise (the lane fails)"
            )
        )
    missed = [text(b["name"]) for b in benchmarks if b["verdict"] == "miss"]
    if missed:
        blocks.append(
            Callout(
                "miss",
                f"{', '.join(missed)}: a tracked goal missed, or a gating one within noise "
                "(reported, the lane passes)",
            )
        )
    facts = [("iterations", text(data["iterations"])), ("benchmarks", str(len(benchmarks)))]
    left_out = data.get("left_out", [])
    if left_out:
        # The main job's --gating-only profile: say what it did not measure, and where it is.
        facts.append(
            (
                "left out",
                f"{', '.join(text(name) for name in left_out)} (no gating goal; the full bench runs them)",
            )
        )
    blocks.append(Facts(tuple(facts)))
    if benchmarks:
        blocks.append(
            table(
                "Goals",
                ("benchmark", "verdict", "goal", "figures", "note"),
                [
                    (
                        text(b["name"]),
                        b["verdict"].upper(),
                        text(b["goal"]),
                        _figures_text(b["figures"]),
                        text(b["note"]),
                    )
                    for b in benchmarks
                ],
                status=[_STATUS[b["verdict"]] for b in benchmarks],
                code=(0,),
                state_column=False,  # the verdict column says it
            )
        )
    findings = tuple(
        Finding(
            name=text(b["name"]),
            suite="bench",
            failed=b["verdict"] == "fail",
            warning=b["verdict"] == "miss",
            message=f"{b['verdict']}: goal {text(b['goal'])}; {_figures_text(b['figures'])}",
        )
        for b in benchmarks
        if b["verdict"] in ("fail", "miss", "pass")
    )
    figures: dict[str, float] = {}
    for b in benchmarks:
        # The numbers only (a bool is not one: num says so); words and flags stay in the table.
        numbers = [
            (key, number)
            for key, value in b["figures"].items()
            if (number := num(value)) is not None
        ]
        for key, value in numbers[:_FIGURES_PER_BENCHMARK]:
            figures[f"{text(b['name'])} {key}"] = value
    return Detail(blocks=tuple(blocks), findings=findings, figures=figures)
