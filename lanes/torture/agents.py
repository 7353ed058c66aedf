"""The torture lane's many-agents mode: agents finishing tasks through the real hook.

Each simulated agent works through tasks; a task may change the tree (a
tracked edit, a new untracked file, or a commit) and ends with the agent
verifying its work by running every configured suite. Every suite run goes
through the real hook, in process (:func:`lanes.governor.hook.run_hook`, the
code an agent's ``lanes hook`` runs): PreToolUse first, then — when allowed —
the "run" and its PostToolUse or PostToolUseFailure. A seeded scheduler
interleaves the agents step by step, so runs overlap, the lock is contended
and trees change under running suites.

The simulation keeps its own ground truth — a version number bumped by every
change, and which runs executed on which version from start to end — and
checks the hard requirements against it:

- no suite runs twice on an identical tree unless forced (``LANES_TEST_FORCE=1``);
- no PASS from another tree state is ever reused: every dedup block points at
  a run that passed on exactly the current version, unchanged during the run;
- two locked suites never run at once.

"Without the governor" every requested run executes; "with" counts the runs
the hook allowed. The torture lane (``lanes torture --agents N``) judges the
requirements; the bench lane's ``economy-sim`` reports only the runs saved.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import sys
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

__all__ = ["SimReport", "simulate"]

PYPROJECT: Final = """\
[tool.lanes.suites.unit]
paths = ["tests/unit"]
command = "pytest tests/unit -q"

[tool.lanes.suites.integ]
paths = ["tests/integ"]
command = "pytest tests/integ -m 'not slow'"

[tool.lanes.suites.lint]
runner = "command"
command = "make lint"
"""
SUITES: Final = {
    "unit": "pytest tests/unit -q",
    "integ": "pytest tests/integ -m 'not slow'",
    "lint": "make lint",
}
LOCKED: Final = frozenset({"unit", "integ"})


class SimReport:
    """What happened, and every broken requirement (empty when none)."""

    __slots__ = (
        "agents",
        "changes",
        "deduplicated",
        "executed",
        "forced",
        "lock_waits",
        "requested",
        "tasks",
        "violations",
        "voided",
    )

    def __init__(self, agents: int, tasks: int) -> None:
        self.agents = agents
        self.tasks = tasks
        self.requested = 0
        self.executed = 0
        self.deduplicated = 0
        self.lock_waits = 0
        self.forced = 0
        self.changes = 0
        # Runs whose tree changed under them: the hook records nothing.
        self.voided = 0
        self.violations: list[str] = []

    def to_dict(self) -> dict[str, int | str]:
        return {
            "agents": self.agents,
            "tasks_per_agent": self.tasks,
            "runs_without_governor": self.requested,
            "runs_with_governor": self.executed,
            "deduplicated": self.deduplicated,
            "lock_waits": self.lock_waits,
            "forced": self.forced,
            "tree_changes": self.changes,
            "voided_by_concurrent_edits": self.voided,
            "violations": len(self.violations),
        }


@contextlib.contextmanager
def _isolated_environ(xdg: Path) -> Iterator[None]:
    """The hook reads os.environ: no LANES_*/CLAUDE_* of the caller, a private XDG dir."""
    saved = dict(os.environ)
    try:
        for key in list(os.environ):
            if key.startswith(("LANES_", "CLAUDE_")):
                del os.environ[key]
        os.environ["XDG_STATE_HOME"] = str(xdg)
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _hook(data: dict[str, object]) -> tuple[int, str]:
    """One real hook call, in process: (exit status, stderr)."""
    import json  # noqa: PLC0415

    from lanes.governor.hook import run_hook  # noqa: PLC0415

    stdin = io.TextIOWrapper(io.BytesIO(json.dumps(data).encode()), encoding="utf-8")
    err, out = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = stdin
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = run_hook([])
    finally:
        sys.stdin = saved
    return code, err.getvalue()


class _Agent:
    __slots__ = ("name", "plan", "running", "session")

    def __init__(self, name: str, session: str) -> None:
        self.name = name
        self.session = session
        # Steps: ("change",) | ("run", suite, forced).
        self.plan: list[tuple[str, ...]] = []
        # The run between its PreToolUse and its post event: (suite, command, version).
        self.running: tuple[str, str, int] | None = None


class _Simulation:
    """One seeded run of the simulation (see the module docstring)."""

    def __init__(
        self,
        workdir: Path,
        *,
        agents: int,
        tasks: int,
        seed: int,
        change_rate: float,
        fail_rate: float,
        force_rate: float,
    ) -> None:
        # A seeded model, not cryptography: the seed must replay the schedule.
        self.rng = random.Random(seed)
        self.fail_rate = fail_rate
        self.workdir = workdir
        self.repo = workdir / "repo"
        self.report = SimReport(agents, tasks)
        self.version = 0
        # (suite, version) pairs proven by a run that passed on that version
        # from start to end: the only PASSes the gate may ever reuse.
        self.proven: set[tuple[str, int]] = set()
        self.running_locked: set[str] = set()
        self.crew = [_Agent(f"agent{i}", f"sim-{seed}-session-{i:04d}") for i in range(agents)]
        for agent in self.crew:
            for _ in range(tasks):
                if self.rng.random() < change_rate:
                    agent.plan.append(("change",))
                for suite in SUITES:
                    forced = "1" if self.rng.random() < force_rate else ""
                    agent.plan.append(("run", suite, forced))
                    self.report.requested += 1

    def make_repo(self) -> None:
        from lanes.bench.gate import git  # noqa: PLC0415

        self.repo.mkdir(parents=True)
        git(self.repo, "init", "-q", "-b", "main")
        (self.repo / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
        for sub in ("tests/unit", "tests/integ", "src"):
            (self.repo / sub).mkdir(parents=True)
        (self.repo / "src" / "app.py").write_text("VALUE = 0\n", encoding="utf-8")
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "-m", "start")

    def payload(
        self, event: str, agent: _Agent, command: str, **extra: object
    ) -> dict[str, object]:
        return {
            "hook_event_name": event,
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "session_id": agent.session,
            "cwd": str(self.repo),
            **extra,
        }

    def change(self) -> None:
        from lanes.bench.gate import git  # noqa: PLC0415

        self.version += 1
        self.report.changes += 1
        version = self.version
        kind = self.rng.choice(("edit", "untracked", "commit"))
        app = self.repo / "src" / "app.py"
        if kind == "untracked":
            (self.repo / "tests" / "unit" / f"test_v{version}.py").write_text(
                f"def test_v():\n    assert {version}\n", encoding="utf-8"
            )
            return
        app.write_text(f"VALUE = {version}\n", encoding="utf-8")
        if kind == "commit":
            git(self.repo, "add", "-A")
            git(self.repo, "commit", "-q", "-m", f"v{version}")

    def finish(self, agent: _Agent) -> None:
        """The agent's running suite ends: its post event."""
        assert agent.running is not None  # noqa: S101  # only called for a running agent
        suite, command, started = agent.running
        agent.running = None
        self.running_locked.discard(suite)
        if self.rng.random() < self.fail_rate:
            _hook(self.payload("PostToolUseFailure", agent, command, error="Exit code 1\n"))
            if started == self.version:
                # The ledger now says FAIL for this tree: a re-run is due.
                self.proven.discard((suite, self.version))
            return
        _hook(self.payload("PostToolUse", agent, command, tool_response={"stdout": "ok"}))
        if started == self.version:
            self.proven.add((suite, self.version))
        else:
            self.report.voided += 1

    def start(self, agent: _Agent, suite: str, forced: str) -> None:
        """The agent asks to run ``suite``: its PreToolUse, judged against the truth."""
        report = self.report
        command = f"LANES_TEST_FORCE=1 {SUITES[suite]}" if forced else SUITES[suite]
        code, err = _hook(self.payload("PreToolUse", agent, command))
        if code == 0:
            agent.plan.pop(0)
            if (suite, self.version) in self.proven and not forced:
                report.violations.append(f"{suite} ran again on proven version {self.version}")
            if suite in LOCKED and self.running_locked:
                report.violations.append(
                    f"{suite} started while {sorted(self.running_locked)} held the lock"
                )
            if suite in LOCKED:
                self.running_locked.add(suite)
            report.executed += 1
            report.forced += bool(forced)
            agent.running = (suite, command, self.version)
        elif err.startswith(f"{suite} green "):
            agent.plan.pop(0)
            report.deduplicated += 1
            if (suite, self.version) not in self.proven:
                report.violations.append(
                    f"{suite} deduplicated on version {self.version} with no PASS proven on it"
                )
        elif err.startswith("run lock held"):
            report.lock_waits += 1  # the agent retries on a later step
        else:
            report.violations.append(f"unexpected block of {command!r}: {err[:200]!r}")
            agent.plan.pop(0)

    def run(self) -> SimReport:
        self.make_repo()
        with _isolated_environ(self.workdir / "xdg"):
            for _ in range(100_000):
                busy = [a for a in self.crew if a.plan or a.running]
                if not busy:
                    return self.report
                agent = self.rng.choice(busy)
                if agent.running is not None:
                    self.finish(agent)
                elif agent.plan[0][0] == "change":
                    agent.plan.pop(0)
                    self.change()
                else:
                    _, suite, forced = agent.plan[0]
                    self.start(agent, suite, forced)
        self.report.violations.append("the simulation did not finish (livelock?)")
        return self.report


def simulate(
    workdir: Path,
    *,
    agents: int = 4,
    tasks: int = 6,
    seed: int = 1,
    change_rate: float = 0.5,
    fail_rate: float = 0.1,
    force_rate: float = 0.05,
) -> SimReport:
    """Run the simulation in a fresh repository under ``workdir``."""
    return _Simulation(
        workdir,
        agents=agents,
        tasks=tasks,
        seed=seed,
        change_rate=change_rate,
        fail_rate=fail_rate,
        force_rate=force_rate,
    ).run()
