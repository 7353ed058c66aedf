"""The affected selector's costs: ``affected-record-overhead`` and ``affected-selected-run``.

Both run on a generated project shaped like the ones measured (toolz, attrs):
a package whose ``__init__`` imports every module, :data:`MODULES` modules of
:data:`FUNCTIONS` functions that call each other, and one test per function,
so the static graph selects every test for any change and only the recorded
map narrows.

- ``affected-record-overhead``: the suite recorded (``-p lanes.affected.recorder``,
  what ``lanes affected --record`` runs) over the same suite plain, CPU time of
  paired runs in alternating order. Goal: <= 1.3x on Python 3.12+
  (``sys.monitoring``); on 3.11 the ``settrace`` fallback is reported against
  the same goal. Tracked, not gating: on a loaded 2-core machine the ratio's
  95% interval spanned 0.88x-1.25x over 10 pairs (3.12, median 1.04x), too
  wide to fail a lane on.
- ``affected-selected-run``: one function changed after a map was recorded;
  the plan's commands (the map narrows them to test ids) over a full run of the
  suite, CPU time of paired runs. Goal: <= 1.0x (a selected run never costs
  more than the full run), gating.

CPU time is read as ``RUSAGE_CHILDREN`` before and after each run, like the
timing lane's benchmark: a child's wall time on a shared machine drowns the
effect.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes.bench._stats import goal_verdict, median_interval
from lanes.bench.registry import BenchContext, BenchResult, benchmark

if TYPE_CHECKING:
    from lanes.payloads.bench import BenchFigure

__all__ = ["RECORD_GOAL", "SELECTED_GOAL", "make_project"]

MODULES: Final = 20
FUNCTIONS: Final = 20
RECORD_GOAL: Final = 1.3
SELECTED_GOAL: Final = 1.0
MIN_PAIRS: Final = 4


def _module(index: int) -> str:
    lines = ["from __future__ import annotations\n"]
    for j in range(FUNCTIONS):
        # Each function does a little work and calls its neighbour: a test
        # executes a handful of functions, as real tests do.
        call = f"f{j - 1}(n) + " if j else ""
        lines.append(
            f"\n\ndef f{j}(n: int) -> int:\n    total = 0\n    for i in range(n):\n"
            f"        total += i * {index + 1}\n    return {call}total\n"
        )
    return "".join(lines)


def _tests(index: int) -> str:
    lines = [f"from pkg import m{index}\n"]
    lines.extend(
        f"\n\ndef test_f{j}() -> None:\n    assert m{index}.f{j}(50) >= 0\n"
        for j in range(FUNCTIONS)
    )
    return "".join(lines)


def make_project(root: Path) -> None:
    """A committed git repository of the generated project under ``root``."""
    files = {
        "pyproject.toml": '[project]\nname = "benchpkg"\nversion = "0"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        ".gitignore": "envelopes/\n",
        "pkg/__init__.py": "".join(f"from pkg import m{i}\n" for i in range(MODULES)),
        "tests/__init__.py": "",
    }
    for i in range(MODULES):
        files[f"pkg/m{i}.py"] = _module(i)
        files[f"tests/test_m{i}.py"] = _tests(i)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for argv in (
        ["git", "init", "-q"],
        ["git", "add", "-A"],
        [
            "git",
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@localhost",
            "commit",
            "-qm",
            "base",
        ],
    ):
        subprocess.run(argv, cwd=root, check=True, capture_output=True)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cpu(argv: list[str], root: Path, env: dict[str, str]) -> tuple[float, int]:
    before = _children_cpu()
    code = subprocess.run(
        argv, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, check=False
    ).returncode
    return _children_cpu() - before, code


def _environment() -> dict[str, str]:
    # The bench's own governor and timing plugins stay out of both arms alike.
    return {**os.environ, "LANES_TEST_FORCE": "1"}


def _paired(
    first: tuple[list[str], dict[str, str]],
    second: tuple[list[str], dict[str, str]],
    root: Path,
    pairs: int,
) -> tuple[list[float], list[float], set[int]]:
    """CPU ratios second/first over alternating pairs, the first arm's CPU, and every exit code."""
    ratios: list[float] = []
    base: list[float] = []
    codes: set[int] = set()
    _cpu(first[0], root, first[1])  # warm the file cache and bytecode for both arms
    for pair in range(pairs):
        if pair % 2 == 0:
            a, code_a = _cpu(first[0], root, first[1])
            b, code_b = _cpu(second[0], root, second[1])
        else:
            b, code_b = _cpu(second[0], root, second[1])
            a, code_a = _cpu(first[0], root, first[1])
        ratios.append(b / a)
        base.append(a)
        codes |= {code_a, code_b}
    return ratios, base, codes


def _figures(
    ratios: list[float], base: list[float], pairs: int
) -> tuple[dict[str, BenchFigure], tuple[float, float, float]]:
    """The figures, and the ratio's (median, 95% low, 95% high)."""
    median, low, high = median_interval(ratios)
    return {
        "tests": MODULES * FUNCTIONS,
        "pairs": pairs,
        "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
        "ratio_median": round(median, 4),
        "ratio_ci95_low": round(low, 4),
        "ratio_ci95_high": round(high, 4),
        "full_run_cpu_s_median": round(sorted(base)[len(base) // 2], 3),
    }, (median, low, high)


@benchmark(
    "affected-record-overhead",
    f"pytest on a generated {MODULES * FUNCTIONS}-test project: recorded with lanes affected's "
    "recorder vs plain, paired runs, CPU time (sys.monitoring on 3.12+, settrace on 3.11)",
    gating=False,
)
def affected_record_overhead(ctx: BenchContext) -> BenchResult:
    from lanes.affected.recorder import ENV_OUTPUT  # noqa: PLC0415  # imports pytest: the lane only

    scratch = Path(tempfile.mkdtemp(prefix="lanes-bench-affected-"))
    try:
        root = scratch / "project"
        make_project(root)
        argv = [ctx.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
        plain = _environment()
        recorded = {**plain, ENV_OUTPUT: str(scratch / "raw.json")}
        pairs = max(MIN_PAIRS, ctx.iterations // 4)
        ratios, base, codes = _paired(
            (argv, plain), ([*argv, "-p", "lanes.affected.recorder"], recorded), root, pairs
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    figures, (median, low, high) = _figures(ratios, base, pairs)
    goal = f"median CPU of a recording run <= {RECORD_GOAL}x a plain run (Python 3.12+)"
    if codes != {0}:
        return BenchResult(
            figures=figures,
            goal=goal,
            verdict="fail",
            note=f"the generated suite did not pass in every run (exit codes {sorted(codes)})",
        )
    verdict, note = goal_verdict(median, low, high, RECORD_GOAL, gating=False, unit="x")
    if sys.version_info < (3, 12):
        # 3.11 has no sys.monitoring: its settrace fallback is measured, not promised.
        note = f"Python 3.11: the settrace fallback. {note}".strip()
    return BenchResult(figures=figures, goal=goal, verdict=verdict, note=note)


@benchmark(
    "affected-selected-run",
    f"a generated {MODULES * FUNCTIONS}-test project, one function changed after recording the "
    "map: the plan's narrowed pytest command vs the full suite, paired runs, CPU time",
)
def affected_selected_run(ctx: BenchContext) -> BenchResult:
    from lanes.affected.lane import build_plan  # noqa: PLC0415  # the lane only
    from lanes.affected.record import record_map  # noqa: PLC0415  # the lane only
    from lanes.config import load_config  # noqa: PLC0415  # the lane only

    scratch = Path(tempfile.mkdtemp(prefix="lanes-bench-affected-"))
    try:
        root = scratch / "project"
        make_project(root)
        config = load_config(cwd=root)
        env = _environment()
        record_map(config, env, None)
        module = root / "pkg" / f"m{MODULES // 2}.py"
        changed = f"f{FUNCTIONS // 2}"
        text = module.read_text(encoding="utf-8")
        marker = f"def {changed}(n: int) -> int:\n    total = 0\n"
        module.write_text(text.replace(marker, marker.replace("0\n", "1\n")), encoding="utf-8")
        plan = build_plan(config, "HEAD")
        (suite,) = plan.suites
        # The plan's own command ("pytest ... ids"), run by the interpreter under test.
        selected = [ctx.python, "-m", "pytest", *suite.command[1:]]
        full = [ctx.python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        pairs = max(MIN_PAIRS, ctx.iterations // 4)
        ratios, base, codes = _paired((full, env), (selected, env), root, pairs)
        node_ids = sum(len(ids) for ids in plan.nodes.values())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    figures, (median, low, high) = _figures(ratios, base, pairs)
    figures["selected_tests"] = node_ids
    goal = f"median CPU of the selected run <= {SELECTED_GOAL}x the full run"
    # The changed function makes its tests fail (exit 1): both arms run to the end.
    if not codes <= {0, 1}:
        return BenchResult(
            figures=figures,
            goal=goal,
            verdict="fail",
            note=f"a run could not complete (exit codes {sorted(codes)})",
        )
    verdict, note = goal_verdict(median, low, high, SELECTED_GOAL, gating=True, unit="x")
    return BenchResult(figures=figures, goal=goal, verdict=verdict, note=note)
