"""``hook-large-commands``: what a long command costs the hook.

A PreToolUse of each hostile shape — many segments, many paths, nested
substitutions, ``bash -c`` chains, long words, a heredoc — at 64 KiB,
256 KiB and 1 MiB, and past the 4 MiB payload cap, timed as a real
``lanes hook`` process in alternating pairs with ``python -c pass`` of the
same interpreter. The figure is the median excess over the bare
interpreter, in milliseconds of CPU time (user + system, from the child's
rusage): on a shared machine wall-clock time measures the neighbours as much
as the hook, CPU time far less (wall-clock medians ride along as figures).

Goal (gating): every payload up to 1 MiB within 100 ms above the interpreter
start. Past that the cost must stay linear with a small constant: the
figures give the excess per MiB at 2 MiB and 8 MiB for the cheapest and the
costliest shape.

The verdict is the worst of 27 medians of a few pairs each, so one noisy
median decides it: on a quiet 2-core machine the worst shape changed from run
to run (heredoc 64 ms, bash-c-chain 94 ms, many-paths 87 ms, pytest-segments
101 ms, the last a fail). A shape over the goal is therefore re-timed over
more pairs before it fails the benchmark, as the slow ratchet re-times an
offender; the figures keep both medians.

Run it alone: ``lanes bench --only hook-large-commands`` (or ``nox -s bench``).
"""

from __future__ import annotations

import json
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes.bench.registry import (
    BenchContext,
    BenchResult,
    Verdict,
    benchmark,
    child_environment,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from lanes.payloads.bench import BenchFigure

__all__ = ["SHAPES", "hook_large_commands", "judge"]

GOAL_MS: Final = 100.0
# Pairs that confirm a shape whose first median is over the goal.
CONFIRM_PAIRS: Final = 21
MIB: Final = 1 << 20
SIZES: Final = (64 * 1024, 256 * 1024, MIB)
BEYOND: Final = (2 * MIB, 8 * MIB)


def _repeat(unit: str) -> Callable[[int], str]:
    return lambda size: (unit * (size // len(unit) + 1))[:size]


SHAPES: Final[dict[str, Callable[[int], str]]] = {
    "echo-test-and": _repeat("echo test && "),
    "pytest-segments": _repeat("pytest tests/a.py; "),
    "many-paths": lambda size: "pytest " + _repeat("tests/t.py ")(size - 7),
    "nested-substitutions": _repeat("$(" * 12 + "pytest tests/a.py" + ")" * 12 + "; "),
    "bash-c-chain": lambda size: "bash -c 'bash -c \"" + _repeat("pytest; ")(size - 18),
    "long-word": lambda size: "pytest tests/" + "a" * (size - 13),
    "braces": lambda size: "pytest ${x:-" + "a" * (size - 13) + "}",
    "semicolons": lambda size: "pytest" + ";" * (size - 6),
    "heredoc": lambda size: (
        "cat > f <<'EOF'\n" + _repeat("x = $y `z` 'q'\n")(size - 40) + "\nEOF\npytest tests/a.py"
    ),
}


def _payload(command: str, cwd: str) -> bytes:
    return json.dumps(
        {
            "session_id": "bench-large-commands",
            "cwd": cwd,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        }
    ).encode()


def _timed(argv: list[str], payload: bytes, env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, input=payload, capture_output=True, env=env, check=False, timeout=300)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def _excess_ms(
    hook: list[str], python: str, payload: bytes, env: dict[str, str], pairs: int
) -> tuple[float, float]:
    """Medians of (hook - bare interpreter) over ``pairs`` alternating pairs:
    (CPU ms, wall ms)."""
    baseline = [python, "-c", "pass"]
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(pairs):
        base_cpu, base_wall = _timed(baseline, payload, env)
        hook_cpu, hook_wall = _timed(hook, payload, env)
        cpu.append(hook_cpu - base_cpu)
        wall.append(hook_wall - base_wall)
    return statistics.median(cpu) * 1000, statistics.median(wall) * 1000


@benchmark(
    "hook-large-commands",
    "lanes hook (PreToolUse) on hostile command shapes up to 1 MiB and past the cap, "
    "excess over python -c pass",
)
def hook_large_commands(ctx: BenchContext) -> BenchResult:
    script = Path(ctx.python).parent / "lanes"
    hook = [str(script), "hook"] if script.is_file() else [ctx.python, "-m", "lanes", "hook"]
    pairs = max(3, min(ctx.iterations, 7))
    state = tempfile.mkdtemp(prefix="lanes-bench-sizes-")
    # Outside any repository with a config: the figure is the classifier's
    # and the parser's cost, not git's.
    project = tempfile.mkdtemp(prefix="lanes-bench-sizes-cwd-")
    env = child_environment(drop=("LANES_DEBUG",)) | {
        "XDG_STATE_HOME": state,
        "LANES_STATE_DIR": state,
    }
    figures: dict[str, BenchFigure] = {"pairs": pairs}
    first: dict[tuple[str, int], float] = {}

    def retime(name: str, size: int) -> float:
        payload = _payload(SHAPES[name](size), project)
        return _excess_ms(hook, ctx.python, payload, env, CONFIRM_PAIRS)[0]

    try:
        _timed(hook, _payload("pytest -q", project), env)  # warm the caches
        for name, build in SHAPES.items():
            for size in SIZES:
                ms, wall = _excess_ms(hook, ctx.python, _payload(build(size), project), env, pairs)
                figures[f"{name}_{size // 1024}KiB_ms"] = round(ms, 1)
                figures[f"{name}_{size // 1024}KiB_wall_ms"] = round(wall, 1)
                first[name, size] = ms
        judged = judge(first, retime)
        for (name, size), ms in judged.retimed.items():
            figures[f"{name}_{size // 1024}KiB_confirmed_ms"] = round(ms, 1)
        for name in ("echo-test-and", "nested-substitutions"):
            for size in BEYOND:
                payload = _payload(SHAPES[name](size), project)
                ms, _ = _excess_ms(hook, ctx.python, payload, env, pairs)
                figures[f"{name}_{size // MIB}MiB_ms_per_MiB"] = round(ms / (size / MIB), 1)
    finally:
        shutil.rmtree(state, ignore_errors=True)
        shutil.rmtree(project, ignore_errors=True)
    (worst_name, worst_size), worst = judged.worst
    figures["worst_ms_up_to_1MiB"] = round(worst, 1)
    figures["worst_shape"] = f"{worst_name} at {worst_size // 1024} KiB"
    return BenchResult(
        figures=figures,
        goal=(
            f"every payload up to 1 MiB within {GOAL_MS:.0f} ms of CPU above python -c pass "
            f"(median of pairs; over it, of {CONFIRM_PAIRS} more)"
        ),
        verdict=judged.verdict,
        note=judged.note,
    )


@dataclass(frozen=True)
class Judged:
    """The verdict over every shape and size, after re-timing the offenders."""

    verdict: Verdict
    note: str
    worst: tuple[tuple[str, int], float]  # ((shape, size), its final median)
    retimed: dict[tuple[str, int], float]


def judge(first: dict[tuple[str, int], float], retime: Callable[[str, int], float]) -> Judged:
    """Each (shape, size)'s final median: the first one, or for one over the
    goal, its re-timing over :data:`CONFIRM_PAIRS` pairs."""
    retimed = {key: retime(*key) for key, ms in first.items() if ms > GOAL_MS}
    final = {**first, **retimed}
    over = {key: ms for key, ms in final.items() if ms > GOAL_MS}
    parts = []
    if over:
        shown = "; ".join(
            f"{name} at {size // 1024} KiB took {ms:.0f} ms above the interpreter"
            for (name, size), ms in sorted(over.items())
        )
        parts.append(f"{shown} (confirmed over {CONFIRM_PAIRS} pairs)")
    cleared = [
        f"{name} at {size // 1024} KiB"
        for name, size in sorted(retimed)
        if (name, size) not in over
    ]
    if cleared:
        parts.append(
            f"{', '.join(cleared)}: over the goal in the first pairs, within it over "
            f"{CONFIRM_PAIRS} more (noise)"
        )
    return Judged(
        verdict="fail" if over else "pass",
        note="; ".join(parts),
        worst=max(final.items(), key=lambda item: item[1]),
        retimed=retimed,
    )
