"""The governor's pytest plugin inside an agent: ``governor-plugin-agent-cost``, tracked.

The goal: inside an agent, the plugin's decision after collection adds at
most one interpreter start of wall time on a 5,000-file repository (an
agent's every pytest run pays it). Measured in the
repository ``gate-latency`` builds (:func:`lanes.bench.gate.make_big_repo`:
5,000 tracked files, two suites), with a few more unit test files so that the
selection below is a genuinely partial run of suite ``unit`` — the plugin
loads the config, resolves the suites, starts the tree digest, judges what
was collected (no sweep, no dedup: not the whole suite) and lets it run.

Each round times three processes, alternating so that machine load hits all
alike (the two pytest arms swap places every other round):

- ``python -c pass`` — the unit (one interpreter start);
- ``pytest <one file>`` with no agent variable — the plugin loaded, inert;
- the same with ``CLAUDECODE=1`` — the plugin governing the run.

The cost is ``(agent - inert) / interpreter`` per round; the goal is its
median <= 1.0, **tracked** (``median_difference_starts``, the difference of
the arms' medians over the interpreter's, is reported beside it) (a miss is reported, it does not fail the lane:
wall time on a shared 2-core machine is the plugin's and git's together).
``cpu_cost_starts_median`` is the same ratio in CPU time (each process with
the children it reaped), which machine load does not stretch.

A focused run like this one starts no git: only a run whose arguments may
cover a whole configured suite pays for the tree digest
(:meth:`lanes.governor.runner.session.RunGovernor._may_be_whole`).
Reproduce: ``lanes bench --only governor-plugin-agent-cost``.
"""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes.bench._stats import goal_verdict, median_interval
from lanes.bench.gate import TRACKED_FILES, git, make_big_repo
from lanes.bench.registry import BenchContext, BenchResult, benchmark, child_environment

if TYPE_CHECKING:
    from collections.abc import Sequence

    from lanes.payloads.bench import BenchFigure

__all__ = ["governor_plugin_agent_cost"]

COST_GOAL: Final = 1.0
# Unit test files beside the repository's own: the selection is one of them.
_UNIT_FILES: Final = 10
_SELECTION: Final = "tests/unit/test_a.py"
_WARMUP: Final = 2
# What would make a run an agent's, or steer the governor: kept out of both
# arms, then set for the agent's alone.
_DROPPED_PREFIXES: Final = ("LANES_", "CLAUDE", "CODEX_", "PYTEST_")
_DROPPED: Final = ("MUTANT_UNDER_TEST",)


def _cpu() -> float:
    """CPU seconds of every reaped child so far (pytest, and the git it reaped)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(argv: Sequence[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int, str]:
    """Wall and CPU seconds of one process (with its children), its exit
    status and the tail of its output."""
    cpu = _cpu()
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, env=env, cwd=cwd, check=False, text=True)
    wall = time.perf_counter() - start
    tail = proc.stdout[-300:] + proc.stderr[-300:]
    return wall, _cpu() - cpu, proc.returncode, tail


def _repo(scratch: Path) -> Path:
    repo = make_big_repo(scratch / "repo", TRACKED_FILES - _UNIT_FILES)
    for index in range(_UNIT_FILES):
        path = repo / "tests" / "unit" / f"test_u{index:02d}.py"
        path.write_text("def test_u():\n    pass\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "more unit tests")
    return repo


@benchmark(
    "governor-plugin-agent-cost",
    f"pytest over one file of a {TRACKED_FILES}-file repo: the governor's plugin "
    "governing (CLAUDECODE=1) vs inert, in interpreter starts",
    gating=False,
)
def governor_plugin_agent_cost(ctx: BenchContext) -> BenchResult:
    goal = f"the plugin's decision adds <= {COST_GOAL:g} interpreter start (tracked)"
    scratch = Path(tempfile.mkdtemp(prefix="lanes-bench-agent-"))
    try:
        repo = _repo(scratch)
        env = child_environment(drop=_DROPPED, drop_prefixes=_DROPPED_PREFIXES)
        # A private per-user state dir: the bench must not read or count in
        # the caller's economy counters or config cache.
        env["XDG_STATE_HOME"] = str(scratch / "xdg")
        agent_env = {**env, "CLAUDECODE": "1"}
        baseline = [ctx.python, "-c", "pass"]
        pytest_argv = [ctx.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", _SELECTION]
        for _ in range(_WARMUP):
            _timed(baseline, env, repo)
            _timed(pytest_argv, env, repo)
            _timed(pytest_argv, agent_env, repo)
        costs: list[float] = []
        cpu_costs: list[float] = []
        base_times: list[float] = []
        inert_times: list[float] = []
        agent_times: list[float] = []
        misbehaved = ""
        for round_ in range(max(ctx.iterations, 3)):
            base, base_cpu, _, _ = _timed(baseline, env, repo)
            # The two pytest arms swap places every round: a fixed order put
            # a position effect (~20 ms CPU at load 17 on 2 cores, as large
            # as the cost measured) into every pair.
            if round_ % 2:
                agent, agent_cpu, agent_code, agent_out = _timed(pytest_argv, agent_env, repo)
                inert, inert_cpu, inert_code, inert_out = _timed(pytest_argv, env, repo)
            else:
                inert, inert_cpu, inert_code, inert_out = _timed(pytest_argv, env, repo)
                agent, agent_cpu, agent_code, agent_out = _timed(pytest_argv, agent_env, repo)
            if inert_code != 0:
                misbehaved = f"the inert run exited {inert_code}: {inert_out!r}"
            if agent_code != 0:
                misbehaved = f"the agent's run exited {agent_code}: {agent_out!r}"
            base_times.append(base)
            inert_times.append(inert)
            agent_times.append(agent)
            costs.append((agent - inert) / base)
            if base_cpu > 0:
                cpu_costs.append((agent_cpu - inert_cpu) / base_cpu)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    median, low, high = median_interval(costs)
    base_ms = statistics.median(base_times) * 1000
    inert_ms = statistics.median(inert_times) * 1000
    agent_ms = statistics.median(agent_times) * 1000
    figures: dict[str, BenchFigure] = {
        "tracked_files": TRACKED_FILES,
        "rounds": len(costs),
        "cost_starts_median": round(median, 3),
        "cost_starts_ci95_low": round(low, 3),
        "cost_starts_ci95_high": round(high, 3),
        "baseline_ms_median": round(base_ms, 2),
        "inert_ms_median": round(inert_ms, 2),
        "agent_ms_median": round(agent_ms, 2),
        # pytest's own wall time varies by far more than the decision costs
        # on a loaded machine: the difference of the medians, beside the
        # paired median the verdict reads, says the same more steadily.
        "median_difference_starts": round((agent_ms - inert_ms) / base_ms, 3),
        # The same cost in CPU time (the processes and the git they reaped):
        # what the plugin and git *do*, which a loaded machine's scheduling
        # delays do not blur — the wall figures above stretch with load.
        "cpu_cost_starts_median": (round(statistics.median(cpu_costs), 3) if cpu_costs else None),
    }
    if misbehaved:
        return BenchResult(figures=figures, goal=goal, verdict="fail", note=misbehaved)
    verdict, note = goal_verdict(median, low, high, COST_GOAL, gating=False)
    return BenchResult(figures=figures, goal=goal, verdict=verdict, note=note)
