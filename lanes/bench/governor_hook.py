"""Benchmarks of the governor hook's own cost (Governor I).

- ``hook-latency``: ``lanes hook`` on a PostToolUse payload of ``ls -la`` (the
  fast path every non-test command takes) against ``python -c pass`` of the
  same interpreter, in alternating pairs so that machine load hits both sides
  alike. Goal: median ratio ≤ 2.0. ``python -m lanes hook`` is timed in the same
  pairs for comparison, and the figures say whether the console script imports
  ``re`` (older pip versions write one that does).
- ``classify-throughput``: in-process ``classify()`` calls per second over the
  CI-command corpus (``tests/governor/corpus/ci_commands.jsonl``).
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes.bench._stats import median_interval
from lanes.bench.registry import (
    BenchContext,
    BenchResult,
    Verdict,
    benchmark,
    child_environment,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from lanes.payloads.bench import BenchFigure

__all__ = ["classify_throughput", "hook_latency"]

LATENCY_GOAL: Final = 2.0
THROUGHPUT_GOAL: Final = 1000.0
CORPUS: Final = "tests/governor/corpus/ci_commands.jsonl"
_WARMUP: Final = 3


def _payload(cwd: Path) -> bytes:
    # A realistic PostToolUse of `ls -la` in the project: its output mentions
    # "tests", which the pre-screen must ignore (it reads only the command).
    return json.dumps(
        {
            "session_id": "bench-session",
            "transcript_path": str(cwd / ".bench-transcript.jsonl"),
            "cwd": str(cwd),
            "permission_mode": "default",
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls -la", "description": "List the project files"},
            "tool_response": {
                "stdout": "total 48\ndrwxr-xr-x  lanes\ndrwxr-xr-x  tests\n-rw-r--r--  pyproject.toml\n",
                "stderr": "",
                "interrupted": False,
                "isImage": False,
            },
        }
    ).encode()


def _hook_commands(python: str) -> tuple[list[str], list[str]]:
    """(the console script, ``python -m lanes``), both of the same virtualenv."""
    script = Path(python).parent / "lanes"
    module = [python, "-m", "lanes", "hook"]
    return ([str(script), "hook"] if script.is_file() else module), module


def _timed(argv: Sequence[str], payload: bytes, env: dict[str, str]) -> tuple[float, bytes, int]:
    start = time.perf_counter()
    proc = subprocess.run(argv, input=payload, capture_output=True, env=env, check=False)
    return time.perf_counter() - start, proc.stdout, proc.returncode


@benchmark("hook-latency", "lanes hook (PostToolUse, `ls -la`) vs python -c pass, paired runs")
def hook_latency(ctx: BenchContext) -> BenchResult:
    script, module = _hook_commands(ctx.python)
    baseline = [ctx.python, "-c", "pass"]
    payload = _payload(ctx.root)
    state = tempfile.mkdtemp(prefix="lanes-bench-")
    # A private state dir: the pre-screen's suite-word cache is built by the
    # warm-up runs, never read from (or written to) the user's.
    env = child_environment(drop=("LANES_DEBUG",)) | {"XDG_STATE_HOME": state}
    try:
        for _ in range(_WARMUP):
            _timed(script, payload, env)
            _timed(baseline, payload, env)
        ratios: list[float] = []
        module_ratios: list[float] = []
        base_times: list[float] = []
        hook_times: list[float] = []
        misbehaved = ""
        for _ in range(max(ctx.iterations, 1)):
            base, _, _ = _timed(baseline, payload, env)
            hook, out, code = _timed(script, payload, env)
            base2, _, _ = _timed(baseline, payload, env)
            mod, _, _ = _timed(module, payload, env)
            if out or code != 0:
                misbehaved = f"the hook exited {code} with output {out[:200]!r}"
            base_times.append(base)
            hook_times.append(hook)
            ratios.append(hook / base)
            module_ratios.append(mod / base2)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    median, low, high = median_interval(ratios)
    try:
        imports_re = "import re" in Path(script[0]).read_text(encoding="utf-8", errors="replace")
    except OSError:
        imports_re = False
    figures: dict[str, BenchFigure] = {
        "pairs": len(ratios),
        "ratio_median": round(median, 3),
        "ratio_ci95_low": round(low, 3),
        "ratio_ci95_high": round(high, 3),
        "baseline_ms_median": round(statistics.median(base_times) * 1000, 2),
        "hook_ms_median": round(statistics.median(hook_times) * 1000, 2),
        "python_m_lanes_ratio_median": round(statistics.median(module_ratios), 3),
        "hook_command": " ".join(Path(part).name for part in script),
        "console_script_imports_re": imports_re,
    }
    goal = f"median ratio <= {LATENCY_GOAL}"
    if misbehaved:
        return BenchResult(
            figures=figures,
            goal=goal,
            verdict="fail",
            note=f"not the fast path: {misbehaved}",
        )
    note = ""
    verdict: Verdict
    if low > LATENCY_GOAL:
        verdict = "fail"
        note = f"the whole 95% interval ({low:.2f}-{high:.2f}) is above the goal"
    else:
        verdict = "pass"
        if median > LATENCY_GOAL:
            note = f"median {median:.2f} over the goal but within noise (interval from {low:.2f})"
    if imports_re:
        note = (note + "; " if note else "") + (
            "this console script imports re (written by an older pip): upgrade pip and "
            "reinstall lanekit to drop that cost"
        )
    return BenchResult(figures=figures, goal=goal, verdict=verdict, note=note)


def _corpus(root: Path) -> tuple[list[str], str]:
    path = root / CORPUS
    commands: list[str] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        lines = []
    for line in lines:
        if not line.strip():
            continue
        item = json.loads(line)
        command = item.get("command") if isinstance(item, dict) else item
        if isinstance(command, str):
            commands.append(command)
    if commands:
        return commands, CORPUS
    # A project without the corpus: a small representative sample.
    sample = [
        "pytest -q",
        "python -m pytest tests/unit -k smoke",
        "uv run pytest -x tests/",
        "go test ./...",
        "cargo test --lib",
        "npm test -- --watch=false",
        "ls -la && git status",
        'git commit -m "run pytest later"',
        "timeout 600 ./gradlew :core:test --tests Foo",
        "cat <<EOF\npytest\nEOF",
    ]
    return sample, "built-in sample (no corpus found)"


@benchmark("classify-throughput", "classify() calls per second, in-process, over the CI corpus")
def classify_throughput(ctx: BenchContext) -> BenchResult:
    from lanes.governor.classify.classifier import classify  # noqa: PLC0415

    commands, source = _corpus(ctx.root)
    rounds = max(3, min(ctx.iterations, 10))
    rates: list[float] = []
    for _ in range(rounds):
        start = time.perf_counter()
        for command in commands:
            classify(command, ctx.root)
        elapsed = time.perf_counter() - start
        rates.append(len(commands) / elapsed if elapsed > 0 else float("inf"))
    best = max(rates)
    figures: dict[str, BenchFigure] = {
        "commands": len(commands),
        "rounds": rounds,
        "commands_per_s_best": round(best, 1),
        "commands_per_s_median": round(statistics.median(rates), 1),
        "corpus": source,
    }
    verdict: Verdict = "pass" if best >= THROUGHPUT_GOAL else "fail"
    note = "" if verdict == "pass" else "even the least-disturbed round is below the goal"
    return BenchResult(
        figures=figures,
        goal=f"best round >= {THROUGHPUT_GOAL:g} commands/s",
        verdict=verdict,
        note=note,
    )
