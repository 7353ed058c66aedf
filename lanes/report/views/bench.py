"""The bench lane's view: every goal with its figure, misses and failures first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lanes.report.views._blocks import (
    Block,
    Callout,
    Detail,
    Facts,
    Finding,
    items,
    num,
    table,
    text,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["bench_view"]

_ORDER = {"fail": 0, "miss": 1, "pass": 2, "info": 3}
_STATUS = {"fail": "fail", "miss": "warn", "pass": "pass", "info": "info"}
# How many figures of one benchmark its table row shows.
_FIGURES_SHOWN = 8
# How many numeric figures of one benchmark the history follows.
_FIGURES_PER_BENCHMARK = 3


def _figures_text(figures: object) -> str:
    if not isinstance(figures, dict):
        return "—"
    # One figure a line in HTML (cells keep line breaks); "; " joins them in
    # Markdown. A benchmark may report dozens: the first few, then a count.
    shown = [
        f"{key} {text(value, limit=80)}" for key, value in list(figures.items())[:_FIGURES_SHOWN]
    ]
    if len(figures) > _FIGURES_SHOWN:
        shown.append(f"… {len(figures) - _FIGURES_SHOWN} more in the envelope")
    return ";\n".join(shown) or "—"


def bench_view(data: Mapping[str, Any]) -> Detail:
    benchmarks = sorted(
        items(data.get("benchmarks")), key=lambda b: _ORDER.get(str(b.get("verdict")), 4)
    )
    blocks: list[Block] = []
    failed = [text(b.get("name")) for b in benchmarks if b.get("verdict") == "fail"]
    if failed:
        blocks.append(
            Callout(
                "fail", f"{', '.join(failed)}: a gating goal missed beyond noise (the lane fails)"
            )
        )
    missed = [text(b.get("name")) for b in benchmarks if b.get("verdict") == "miss"]
    if missed:
        blocks.append(
            Callout(
                "miss",
                f"{', '.join(missed)}: a tracked goal missed, or a gating one within noise "
                "(reported, the lane passes)",
            )
        )
    blocks.append(
        Facts((("iterations", text(data.get("iterations"))), ("benchmarks", str(len(benchmarks)))))
    )
    if benchmarks:
        blocks.append(
            table(
                "Goals",
                ("benchmark", "verdict", "goal", "figures", "note"),
                [
                    (
                        text(b.get("name")),
                        text(b.get("verdict")).upper(),
                        text(b.get("goal")),
                        _figures_text(b.get("figures")),
                        text(b.get("note")),
                    )
                    for b in benchmarks
                ],
                status=[_STATUS.get(str(b.get("verdict")), "info") for b in benchmarks],
                code=(0,),
                state_column=False,  # the verdict column says it
            )
        )
    findings = tuple(
        Finding(
            name=text(b.get("name")),
            suite="bench",
            failed=b.get("verdict") == "fail",
            warning=b.get("verdict") == "miss",
            message=f"{text(b.get('verdict'))}: goal {text(b.get('goal'))}; {_figures_text(b.get('figures'))}",
        )
        for b in benchmarks
        if b.get("verdict") in ("fail", "miss", "pass")
    )
    figures: dict[str, float] = {}
    for b in benchmarks:
        numbers = (
            [
                (key, num(value))
                for key, value in (b.get("figures") or {}).items()
                if num(value) is not None
            ]
            if isinstance(b.get("figures"), dict)
            else []
        )
        for key, value in numbers[:_FIGURES_PER_BENCHMARK]:
            assert value is not None  # noqa: S101  # filtered above
            figures[f"{text(b.get('name'))} {key}"] = value
    return Detail(blocks=tuple(blocks), findings=findings, figures=figures)
