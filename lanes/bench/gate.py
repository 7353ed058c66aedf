"""Benchmarks of the gate (Governor II): PreToolUse latency and the tree digest.

Both run in a scratch git repository of :data:`TRACKED_FILES` tracked files
with a ``[tool.lanes.suites.unit]`` table and a populated verify ledger:

- ``gate-latency``: ``lanes hook`` on a PreToolUse payload of ``pytest
  tests/unit -q`` against ``python -c pass`` of the same interpreter, in
  alternating rounds (baseline, dedup hit, lock path, git floor) so machine
  load hits all sides alike. The *dedup hit* finds a fresh PASS and blocks
  (exit 2): config, classification, the tree digest and the ledger, the whole
  read path. The *lock path* finds a stale PASS and takes the run lock (its
  own session's lock, reclaimed each time): the read path plus the guarded
  write. The *git floor* is an interpreter that runs exactly the hook's git
  commands (:func:`lanes.governor.state.tree.git_argvs`) and nothing else: no
  hook built on a git digest can be faster.

  Two goals. **Gating**: the hook's own cost — dedup hit minus floor, paired
  within each round — at most one interpreter start (measured ~0.7 at load
  ~1, ~0.95 with a busy neighbour). **Tracked**: the dedup hit ≤ 2.0× the
  interpreter, as the issue asked; out of reach on a 2-core machine, because
  the floor alone measures 2.0 to 2.4× here (git stats every tracked file and
  spawns up to ten preload threads; 5,000 stats cost ~9 ms of CPU, nearly one
  interpreter start). A miss of the tracked goal is reported as ``miss`` with
  the floor beside it.
- ``gate-latency-50k``: the same in a repository of 50,000 tracked files
  (the tree digest is the only part that grows with it). Tracked goal ≤ 3.0,
  out of reach without a file-system monitor: the floor alone is several
  times that (50,000 stats cost 75 to 90 ms of CPU here); only git's
  ``core.fsmonitor`` (no daemon on Linux in git 2.39) makes the digest
  sublinear. Its own cost is reported beside, tracked: ten rounds pin it
  down only roughly, and it is the same code the 5,000-file case gates.
  With ``LANES_BENCH_BEFORE=<checkout>`` both also time that checkout's hook
  on the same dedup hit, paired with the same baseline runs: the
  ``before_*`` figures are the "before" column of a before/after table.
- ``tree-digest``: :func:`lanes.governor.state.tree.tree_state` alone, in-process, on
  the clean repository and with a few tracked and untracked edits.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes.bench._stats import goal_verdict, median_interval
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

__all__ = [
    "BIG_TRACKED_FILES",
    "TRACKED_FILES",
    "gate_latency",
    "gate_latency_big",
    "make_big_repo",
    "tree_digest",
]

TRACKED_FILES: Final = 5000
LATENCY_GOAL: Final = 2.0
# What the hook's own code may add over interpreter start + its git
# processes, in interpreter starts (gating; module docstring).
OWN_COST_GOAL: Final = 1.0
COMMAND: Final = "pytest tests/unit -q"
_WARMUP: Final = 3
_GIT_ENV: Final = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}
PYPROJECT: Final = """\
[tool.lanes.suites.unit]
paths = ["tests/unit"]
command = "pytest tests/unit -q"

[tool.lanes.suites.integ]
paths = ["tests/integ"]
command = "pytest tests/integ -q"
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=repo,
        env={**os.environ, **_GIT_ENV},
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def make_big_repo(path: Path, files: int = TRACKED_FILES, pyproject: str = PYPROJECT) -> Path:
    """A committed repository of ``files`` tracked files (100 per directory)."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    # No background `gc --auto` after the big commit: it would repack while
    # the benchmark reads the repository.
    git(path, "config", "gc.auto", "0")
    (path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    for sub in ("tests/unit", "tests/integ"):
        (path / sub).mkdir(parents=True, exist_ok=True)
        (path / sub / "test_a.py").write_text("def test_a():\n    pass\n", encoding="utf-8")
    for i in range(max(0, files - 3)):
        directory = path / "src" / f"pkg{i // 100:03d}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"mod{i % 100:03d}.py").write_text(f"VALUE = {i}\n", encoding="utf-8")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "bench tree")
    return path


def _payload(cwd: Path, session: str) -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": str(cwd / ".bench-transcript.jsonl"),
            "cwd": str(cwd),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": COMMAND, "description": "Run the unit suite"},
        }
    ).encode()


def _populate_ledger(repo: Path, state: Path, *, fresh: bool) -> None:
    """A PASS for ``unit`` (on this tree when ``fresh``, else on another
    commit), a stale one for ``integ``, and twenty FAILs of other suites."""
    from lanes.governor.state.env import OSEnvironment  # noqa: PLC0415
    from lanes.governor.state.ledger import LedgerEntry, record  # noqa: PLC0415
    from lanes.governor.state.tree import tree_state  # noqa: PLC0415

    tree = tree_state(str(repo))
    if tree is None:
        msg = f"no tree state for the bench repository {str(repo)!r}"
        raise RuntimeError(msg)
    env = OSEnvironment()
    ledger = str(state / "verify-ledger.json")
    entries = {
        "unit": LedgerEntry(
            status="PASS", ts=env.now(), git_head=tree.git_head if fresh else "1" * 40,
            dirty_digest=tree.dirty_digest, agent="claude", session_tail="bench-a1b2",
            duration_ms=4200,
        ),
        "integ": LedgerEntry(
            status="PASS", ts=env.now(), git_head="0" * 40, dirty_digest="clean",
            agent="codex", session_tail="bench-9f3e", duration_ms=61000,
        ),
    }  # fmt: skip
    for i in range(20):
        entries[f"other{i}"] = LedgerEntry(
            status="FAIL", ts=env.now(), git_head=tree.git_head, dirty_digest="clean"
        )
    for name, entry in entries.items():
        record(env, ledger, ledger + ".lock", name, entry)


def _timed(
    argv: Sequence[str], payload: bytes, env: dict[str, str], cwd: Path
) -> tuple[float, int, bytes]:
    start = time.perf_counter()
    proc = subprocess.run(argv, input=payload, capture_output=True, env=env, cwd=cwd, check=False)
    return time.perf_counter() - start, proc.returncode, proc.stderr


def _hook_argv(python: str) -> list[str]:
    script = Path(python).parent / "lanes"
    return [str(script), "hook"] if script.is_file() else [python, "-m", "lanes", "hook"]


# The big-repository case: the tree digest is the only part of the hook that
# grows with the repository. Its ratio goal is tracked: a stat-every-file
# digest cannot meet it (see the module docstring); the own-cost goal gates it.
BIG_TRACKED_FILES: Final = 50_000
BIG_LATENCY_GOAL: Final = 3.0
# A checkout of an earlier lanekit to measure beside this one (the "before" of
# a before/after table), e.g. `git worktree add /tmp/gov-before <commit>`.
BEFORE_VARIABLE: Final = "LANES_BENCH_BEFORE"


@benchmark(
    "gate-latency",
    f"lanes hook PreToolUse `{COMMAND}` in a {TRACKED_FILES}-file repo vs python -c pass",
)
def gate_latency(ctx: BenchContext) -> BenchResult:
    return _gate_latency(ctx, TRACKED_FILES, LATENCY_GOAL)


@benchmark(
    "gate-latency-50k",
    f"lanes hook PreToolUse `{COMMAND}` in a {BIG_TRACKED_FILES}-file repo vs python -c pass",
    gating=False,
)
def gate_latency_big(ctx: BenchContext) -> BenchResult:
    # A quarter of the samples: building the repository alone takes a minute.
    # A quarter of the rounds, and git's twenty preload threads contend with
    # the hook's own work for longer: the own cost is reported, and gated at
    # 5,000 files, where forty rounds pin it down.
    return _gate_latency(ctx, BIG_TRACKED_FILES, BIG_LATENCY_GOAL, share=0.25, own_gating=False)


def _before_argv(ctx: BenchContext) -> tuple[list[str], str] | None:
    """The hook of the checkout named by ``$LANES_BENCH_BEFORE``, run by the same
    interpreter (its code first on the path); None when unset."""
    checkout = os.environ.get(BEFORE_VARIABLE, "").strip()
    if not checkout:
        return None
    if not (Path(checkout) / "lanes" / "cli.py").is_file():
        msg = f"{BEFORE_VARIABLE}={checkout!r} is not a lanekit checkout (no lanes/cli.py)"
        raise RuntimeError(msg)
    code = "import sys\nfrom lanes.cli import main\nsys.exit(main(['hook']))"
    return [ctx.python, "-c", code], str(Path(checkout).resolve())


def _floor_argv(python: str, repo: Path, state: Path) -> list[str]:
    """``python -c`` that runs exactly the hook's git commands and nothing else.

    Interpreter start plus the tree state's git processes, run and read the
    way the hook runs them: the floor under any hook built on a git digest.
    What the hook costs above it is its own code (imports, classification,
    config, ledger), the part the gating goal holds.
    """
    from lanes.governor.state.tree import (  # noqa: PLC0415  # the bench only
        LANEKIT_OUTPUTS,
        git_argvs,
        lanekit_writes,
    )

    excluded = [*LANEKIT_OUTPUTS, *lanekit_writes(str(state), repo, "envelopes")]
    argvs = git_argvs(str(repo), excluded, head_known=True)
    code = f"""\
import os, select, sys
sys.stdin.buffer.read()
env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")
reads = []
for argv in {argvs!r}:
    read_end, write_end = os.pipe()
    os.posix_spawnp(
        argv[0], [argv[0], "-C", {str(repo)!r}, *argv[1:]], env,
        file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, write_end, 1),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_CLOSE, read_end),
        ],
    )
    os.close(write_end)
    reads.append(read_end)
while reads:
    for fd in select.select(reads, [], [])[0]:
        if not os.read(fd, 1 << 16):
            reads.remove(fd)
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
"""
    return [python, "-c", code]


def _gate_latency(  # noqa: PLR0915  # one paired measurement, read top to bottom
    ctx: BenchContext,
    files: int,
    goal_ratio: float,
    *,
    share: float = 1.0,
    own_gating: bool = True,
) -> BenchResult:
    scratch = Path(tempfile.mkdtemp(prefix="lanes-bench-gate-"))
    before = _before_argv(ctx)
    try:
        repo = make_big_repo(scratch / "repo", files)
        # Two state dirs over the same tree: one whose ledger holds a fresh
        # PASS (the dedup hit), one whose PASS names another commit (the
        # gate goes on to the lock).
        fresh_state = repo / ".git" / "lanes"
        stale_state = scratch / "stale-state"
        for state in (fresh_state, stale_state):
            state.mkdir()
            _populate_ledger(repo, state, fresh=state == fresh_state)
        # The warm-up runs write the bytecode, as the first real hook call would.
        env = child_environment(drop_prefixes=("LANES_", "CLAUDE_"))
        env["XDG_STATE_HOME"] = str(scratch / "xdg")
        stale_env = {**env, "LANES_STATE_DIR": str(stale_state)}
        hook = _hook_argv(ctx.python)
        baseline = [ctx.python, "-c", "pass"]
        floor = _floor_argv(ctx.python, repo, fresh_state)
        hit_payload = _payload(repo, "bench-session-0001")
        lock_payload = _payload(repo, "bench-session-0002")
        # The earlier checkout keeps its own config cache: the two versions'
        # cache rows differ, and sharing one would rebuild it on every call.
        before_env = (
            None
            if before is None
            else {**env, "PYTHONPATH": before[1], "XDG_STATE_HOME": str(scratch / "xdg-before")}
        )
        for _ in range(_WARMUP):
            _timed(hook, hit_payload, env, repo)
            _timed(hook, lock_payload, stale_env, repo)
            _timed(baseline, b"", env, repo)
            _timed(floor, hit_payload, env, repo)
            if before is not None and before_env is not None:
                _timed(before[0], hit_payload, before_env, repo)
        hit_ratios: list[float] = []
        lock_ratios: list[float] = []
        floor_ratios: list[float] = []
        own_costs: list[float] = []
        before_ratios: list[float] = []
        base_times: list[float] = []
        hit_times: list[float] = []
        lock_times: list[float] = []
        floor_times: list[float] = []
        misbehaved = ""
        for _ in range(max(int(ctx.iterations * share), 3)):
            base, _, _ = _timed(baseline, b"", env, repo)
            hit, hit_code, hit_err = _timed(hook, hit_payload, env, repo)
            locked, lock_code, lock_err = _timed(hook, lock_payload, stale_env, repo)
            bottom, floor_code, floor_err = _timed(floor, hit_payload, env, repo)
            if hit_code != 2 or not hit_err.startswith(b"unit green"):
                misbehaved = f"dedup hit exited {hit_code}: {hit_err[:200]!r}"
            if lock_code != 0 or lock_err:
                misbehaved = f"lock path exited {lock_code}: {lock_err[:200]!r}"
            if floor_code != 0:
                misbehaved = f"the git floor exited {floor_code}: {floor_err[-200:]!r}"
            if before is not None and before_env is not None:
                earlier, before_code, before_err = _timed(before[0], hit_payload, before_env, repo)
                if before_code != 2:
                    misbehaved = f"the earlier checkout's dedup hit exited {before_code}: {before_err[:200]!r}"
                before_ratios.append(earlier / base)
            base_times.append(base)
            hit_times.append(hit)
            lock_times.append(locked)
            floor_times.append(bottom)
            hit_ratios.append(hit / base)
            lock_ratios.append(locked / base)
            floor_ratios.append(bottom / base)
            # The hook's own code, in interpreter starts: what it adds over
            # interpreter + git, paired within the round.
            own_costs.append((hit - bottom) / base)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    median, low, high = median_interval(hit_ratios)
    floor_median, floor_low, floor_high = median_interval(floor_ratios)
    own_median, own_low, own_high = median_interval(own_costs)
    figures: dict[str, BenchFigure] = {
        "tracked_files": files,
        "rounds": len(hit_ratios),
        "dedup_hit_ratio_median": round(median, 3),
        "dedup_hit_ratio_ci95_low": round(low, 3),
        "dedup_hit_ratio_ci95_high": round(high, 3),
        "git_floor_ratio_median": round(floor_median, 3),
        "git_floor_ratio_ci95_low": round(floor_low, 3),
        "git_floor_ratio_ci95_high": round(floor_high, 3),
        "own_cost_starts_median": round(own_median, 3),
        "own_cost_starts_ci95_low": round(own_low, 3),
        "own_cost_starts_ci95_high": round(own_high, 3),
        "lock_path_ratio_median": round(statistics.median(lock_ratios), 3),
        "baseline_ms_median": round(statistics.median(base_times) * 1000, 2),
        "dedup_hit_ms_median": round(statistics.median(hit_times) * 1000, 2),
        "git_floor_ms_median": round(statistics.median(floor_times) * 1000, 2),
        "lock_path_ms_median": round(statistics.median(lock_times) * 1000, 2),
    }
    if before is not None and before_ratios:
        # The before/after table: the same dedup hit, paired with the same
        # baseline runs, by the checkout in $LANES_BENCH_BEFORE.
        before_median, before_low, before_high = median_interval(before_ratios)
        figures["before_checkout"] = before[1]
        figures["before_dedup_hit_ratio_median"] = round(before_median, 3)
        figures["before_dedup_hit_ratio_ci95_low"] = round(before_low, 3)
        figures["before_dedup_hit_ratio_ci95_high"] = round(before_high, 3)
    goal = (
        f"own cost over the git floor <= {OWN_COST_GOAL:g} interpreter start "
        f"({'gating' if own_gating else 'tracked'}); "
        f"dedup-hit median ratio <= {goal_ratio} (tracked)"
    )
    if misbehaved:
        return BenchResult(figures=figures, goal=goal, verdict="fail", note=misbehaved)
    own_verdict, own_note = goal_verdict(
        own_median, own_low, own_high, OWN_COST_GOAL, gating=own_gating
    )
    ratio_verdict, ratio_note = goal_verdict(median, low, high, goal_ratio, gating=False, unit="x")
    notes = [f"own cost: {own_note}"] if own_note else []
    if ratio_note:
        notes.append(
            f"dedup hit: {ratio_note}; interpreter + git alone measure {floor_median:.2f}x"
        )
    verdict: Verdict = (
        "fail"
        if own_verdict == "fail"
        else "pass"
        if own_verdict == ratio_verdict == "pass"
        else "miss"
    )
    return BenchResult(figures=figures, goal=goal, verdict=verdict, note="; ".join(notes))


def _median_ms(function: object, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        function()  # type: ignore[operator]  # a zero-argument callable
        samples.append(time.perf_counter() - start)
    return round(statistics.median(samples) * 1000, 2)


@benchmark(
    "tree-digest", f"tree_state() alone in a {TRACKED_FILES}-file repo, in-process", gating=False
)
def tree_digest(ctx: BenchContext) -> BenchResult:
    from lanes.governor.state.tree import tree_state  # noqa: PLC0415

    scratch = Path(tempfile.mkdtemp(prefix="lanes-bench-tree-"))
    rounds = max(5, min(ctx.iterations, 40))
    try:
        repo = make_big_repo(scratch / "repo")
        top = str(repo)
        tree_state(top)
        clean_ms = _median_ms(lambda: tree_state(top), rounds)
        for i in range(10):
            (repo / "src" / f"pkg{i:03d}" / "mod000.py").write_text(f"VALUE = -{i}\n", "utf-8")
            (repo / "src" / f"pkg{i:03d}" / "new.py").write_text("NEW = 1\n" * 200, "utf-8")
        dirty_ms = _median_ms(lambda: tree_state(top), rounds)
        interpreter = _median_ms(
            lambda: subprocess.run([ctx.python, "-c", "pass"], check=False), rounds
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    figures: dict[str, BenchFigure] = {
        "tracked_files": TRACKED_FILES,
        "rounds": rounds,
        "clean_ms_median": clean_ms,
        "dirty_ms_median": dirty_ms,
        "python_c_pass_ms_median": interpreter,
        "clean_vs_interpreter_start": round(clean_ms / interpreter, 3) if interpreter else None,
        "dirty_vs_interpreter_start": round(dirty_ms / interpreter, 3) if interpreter else None,
    }
    return BenchResult(
        figures=figures,
        goal=None,
        verdict="info",
        note="dirty = 10 tracked edits + 10 untracked files",
    )
