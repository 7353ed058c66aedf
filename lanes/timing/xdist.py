"""Serial or ``-n N``? The xdist verdict from measured arms and the fixed worker cost.

Model: a run costs a fixed part (interpreter, plugins, collection) plus the
tests themselves. Serially that is ``S0 + B``; with N workers it is about
``S0 + F + B / N``, where ``F`` is the *extra* fixed cost of xdist — starting
N workers, each of which imports and collects the whole suite again. ``S0``
is measured by the serial run that selects nothing (``--collect-only``),
``S0 + F`` by the ``-n N`` run that selects nothing (a ``-k`` that matches no
test). xdist therefore pays once ``B > F * N / (N - 1)``: the crossover.

The verdict itself compares the measured arms, not the model: ``xdist pays``
when the ``-n N`` median is faster than the serial one by more than the noise,
``serial wins`` when it is slower by more than the noise, ``within noise``
otherwise. Noise is the larger spread (max - min) of the two arms, and never
less than :data:`NOISE_FLOOR` of the serial median: a single sample has no
spread but is not exact either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

if TYPE_CHECKING:
    from lanes.payloads.timing import TimingArm, TimingStat, TimingXdistFigures

__all__ = ["NOISE_FLOOR", "XdistVerdict", "verdict"]

NOISE_FLOOR: Final = 0.05

XdistVerdict = Literal["xdist pays", "serial wins", "within noise"]


def _spread(figure: TimingStat) -> int:
    return figure["max"] - figure["min"]


def verdict(
    serial: TimingArm,
    parallel: TimingArm,
    *,
    workers: int,
    serial_empty_ms: int,
    parallel_empty_ms: int,
) -> TimingXdistFigures:
    """The verdict block for two arm summaries (see :func:`lanes.timing.figures.arm_summary`)."""
    serial_ms = serial["wall_ms"]["median"]
    parallel_ms = parallel["wall_ms"]["median"]
    noise_ms = max(
        _spread(serial["wall_ms"]),
        _spread(parallel["wall_ms"]),
        round(NOISE_FLOOR * serial_ms),
    )
    gain_ms = serial_ms - parallel_ms
    outcome: XdistVerdict
    if gain_ms > noise_ms:
        outcome, recommended = "xdist pays", workers
    elif -gain_ms > noise_ms:
        outcome, recommended = "serial wins", 0
    else:
        # No measurable gain: serial spends less CPU and memory for the same wall time.
        outcome, recommended = "within noise", 0
    fixed_cost_ms = max(0, parallel_empty_ms - serial_empty_ms)
    tests_ms = max(0, serial_ms - serial_empty_ms)
    crossover_ms = round(fixed_cost_ms * workers / (workers - 1)) if workers > 1 else None
    return {
        "verdict": outcome,
        "workers": workers,
        "recommended_n": recommended,
        "serial_wall_ms": serial_ms,
        "xdist_wall_ms": parallel_ms,
        "noise_ms": noise_ms,
        "speedup": round(serial_ms / parallel_ms, 3) if parallel_ms else None,
        "serial_cpu_ms": serial["cpu_ms"]["median"],
        "xdist_cpu_ms": parallel["cpu_ms"]["median"],
        "serial_empty_ms": serial_empty_ms,
        "xdist_empty_ms": parallel_empty_ms,
        "fixed_cost_ms": fixed_cost_ms,
        "tests_ms": tests_ms,
        "crossover_ms": crossover_ms,
        "explanation": _explain(workers, fixed_cost_ms, tests_ms, crossover_ms),
    }


def _explain(workers: int, fixed_ms: int, tests_ms: int, crossover_ms: int | None) -> str:
    if crossover_ms is None:
        return (
            f"-n {workers} starts one worker at an extra fixed cost of {fixed_ms / 1000:.1f}s "
            "and cannot run tests in parallel: it never pays"
        )
    side = "above" if tests_ms > crossover_ms else "below"
    return (
        f"starting {workers} workers costs {fixed_ms / 1000:.1f}s more than a serial start, so "
        f"-n {workers} pays once the tests take over {crossover_ms / 1000:.1f}s serially; "
        f"this suite's take {tests_ms / 1000:.1f}s ({side} the crossover)"
    )
