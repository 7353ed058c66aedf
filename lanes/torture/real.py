"""The real-process guard: what the seeded model cannot see, the real OS.

Not seeded: real worker processes contend for the run lock through the very
functions ``lanes hook`` runs (``gate.decide_pre`` / ``record.decide_post``
with the production :class:`~lanes.governor.state.env.OSEnvironment`: real flock,
real O_EXCL, real /proc start times) on a real temporary state directory.
Each worker sets ``CLAUDE_PID`` to its own pid, so the lock's owner is the
worker and killing it makes the lock provably dead.

Inside the critical section a worker creates an ``O_EXCL`` occupancy
sentinel and removes it on the way out; finding a live worker's sentinel is
an overlap. The parent SIGKILLs random lock holders (anywhere: in the run, or
mid-hook holding the guard flock) and measures how long until someone else
gets the lock: it must be immediate, not the TTL.

Passes iff: zero overlaps, every kill taken over well within the TTL, and no
lock left at the end (after a final probe, which must get a dead holder's
lock at once).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from lanes.governor.context import StatePaths

if TYPE_CHECKING:
    from lanes.governor.state.env import OSEnvironment
    from lanes.payloads.torture import TortureReal
    from lanes.torture.kernel import GovernorKernel

__all__ = ["RealReport", "run_real_guard", "worker_main"]

# Long enough that a takeover which waited for it would be unmistakable.
REAL_TTL: Final = 600
# A takeover slower than this did not come from the dead-owner rule.
TAKEOVER_LIMIT: Final = 30.0
_SENTINEL: Final = "occupied"


@dataclass
class RealReport:
    procs: int
    iterations: int
    critical_sections: int = 0
    blocked: int = 0
    overlaps: int = 0
    stale_sentinels: int = 0
    kills: int = 0
    takeovers_ms: list[float] = field(default_factory=list)
    untaken_kills: int = 0
    lock_left: bool = False
    probe: str = ""
    elapsed: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems

    def to_dict(self) -> TortureReal:
        takeovers = sorted(self.takeovers_ms)
        return {
            "procs": self.procs,
            "iterations": self.iterations,
            "critical_sections": self.critical_sections,
            "blocked": self.blocked,
            "overlaps": self.overlaps,
            "stale_sentinels": self.stale_sentinels,
            "kills": self.kills,
            "takeover_ms_max": round(takeovers[-1], 1) if takeovers else None,
            "takeover_ms_median": round(takeovers[len(takeovers) // 2], 1) if takeovers else None,
            "lock_left": self.lock_left,
            "elapsed_s": round(self.elapsed, 2),
            "passed": self.passed,
            "problems": list(self.problems),
        }


# --------------------------------------------------------------------------- worker


def _tools() -> tuple[OSEnvironment, GovernorKernel]:
    from lanes.governor.state.env import OSEnvironment  # noqa: PLC0415
    from lanes.torture.kernel import GovernorKernel  # noqa: PLC0415

    return OSEnvironment(), GovernorKernel(ttl=REAL_TTL)


def _enter(env: OSEnvironment, path: str, me: str) -> tuple[bool, bool]:
    """Create the sentinel: (entered, found a dead holder's leftover)."""
    stale = False
    for _ in range(3):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        except FileExistsError:
            try:
                with open(path, encoding="utf-8") as handle:
                    pid_text, _, start = handle.read().partition(" ")
            except FileNotFoundError:
                continue
            pid = int(pid_text) if pid_text.isdigit() else 0
            if pid and env.process_start(pid) == start:
                return False, stale
            # A SIGKILLed holder never removed its sentinel: not an overlap.
            stale = True
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            continue
        os.write(fd, me.encode())
        os.close(fd)
        return True, stale
    return False, stale


def worker_main(argv: list[str]) -> int:
    """``python -m lanes.torture.real STATE_DIR ITERATIONS SEED LOG``."""
    state_dir, iterations, seed, log = argv[0], int(argv[1]), int(argv[2]), argv[3]
    from lanes.governor.state.owner import agent_pid  # noqa: PLC0415
    from lanes.torture.program import HOSTS, ClientSpec  # noqa: PLC0415
    from lanes.torture.world import Client  # noqa: PLC0415

    os.environ["CLAUDE_PID"] = str(os.getpid())
    env, kernel = _tools()
    rng = random.Random(seed)
    me = Client(0, ClientSpec(HOSTS[0], ()))
    me.pid = agent_pid(os.environ)
    me.session = f"real-{os.getpid()}"
    start = env.process_start(me.pid) or "?"
    sentinel = os.path.join(state_dir, _SENTINEL)
    stats = {"cs": 0, "blocked": 0, "overlaps": 0, "stale": 0}
    with open(log, "a", encoding="utf-8") as journal:
        while stats["cs"] < iterations:
            decision = kernel.pre_tool_use(env, state_dir, me, "unit", force=True)
            if decision.kind != "allow":
                stats["blocked"] += 1
                time.sleep(rng.uniform(0.0002, 0.001))
                continue
            journal.write(f"{time.time():.6f} acquire\n")
            journal.flush()
            entered, stale = _enter(env, sentinel, f"{me.pid} {start}")
            stats["stale"] += stale
            if entered:
                time.sleep(rng.uniform(0, 0.002))
                os.unlink(sentinel)
            else:
                stats["overlaps"] += 1
            kernel.post_tool_use(env, state_dir, me, "unit", force=True, passed=True)
            stats["cs"] += 1
    print(json.dumps(stats), flush=True)  # the parent reads this line
    return 0


# --------------------------------------------------------------------------- parent


def _spawn(state_dir: str, iterations: int, seed: int, logs: str) -> subprocess.Popen[str]:
    log = os.path.join(logs, f"worker-{seed}.log")
    return subprocess.Popen(
        [sys.executable, "-m", "lanes.torture.real", state_dir, str(iterations), str(seed), log],
        stdout=subprocess.PIPE,
        text=True,
    )


def _holder_pid(lock_path: str) -> int | None:
    try:
        with open(lock_path, encoding="utf-8") as handle:
            record = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    pid = record.get("agent_pid") if isinstance(record, dict) else None
    return pid if isinstance(pid, int) else None


def _acquisitions(logs: str) -> list[float]:
    times: list[float] = []
    for name in os.listdir(logs):
        with open(os.path.join(logs, name), encoding="utf-8") as handle:
            times.extend(float(line.split()[0]) for line in handle if line.strip())
    return sorted(times)


def run_real_guard(
    procs: int, iterations: int, *, seed: int = 0, timeout: float = 300.0
) -> RealReport:
    """Run the guard; the report says what happened and whether it passed."""
    report = RealReport(procs, iterations)
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="lanes-torture-real-") as scratch:
        state_dir = os.path.join(scratch, "state")
        logs = os.path.join(scratch, "logs")
        os.mkdir(state_dir)
        os.mkdir(logs)
        lock_path = StatePaths(state_dir).lock
        workers, kills = _contend(report, state_dir, logs, random.Random(seed), timeout)
        _tally(report, workers, kills, logs)
        report.probe, report.lock_left = _final_probe(state_dir, lock_path)
    report.elapsed = time.monotonic() - began
    _judge(report)
    return report


def _contend(
    report: RealReport, state_dir: str, logs: str, rng: random.Random, timeout: float
) -> tuple[list[subprocess.Popen[str]], list[float]]:
    """Run the workers to the end, SIGKILLing random lock holders; the kill times."""
    began = time.monotonic()
    lock_path = StatePaths(state_dir).lock
    workers = [_spawn(state_dir, report.iterations, n, logs) for n in range(report.procs)]
    kill_budget = max(1, report.procs // 2)
    kills: list[float] = []
    while any(w.poll() is None for w in workers):
        if time.monotonic() - began > timeout:
            report.problems.append(f"timed out after {timeout:.0f}s (deadlock?)")
            for worker in workers:
                worker.kill()
            break
        time.sleep(rng.uniform(0.005, 0.03))
        if len(kills) >= kill_budget or rng.random() > 0.3:
            continue
        pid = _holder_pid(lock_path)
        victim = next((w for w in workers if w.pid == pid and w.poll() is None), None)
        if victim is None:
            continue
        os.kill(victim.pid, signal.SIGKILL)
        kills.append(time.time())
        victim.wait()
        # Keep the contention up: a replacement joins for a shorter stint.
        workers.append(_spawn(state_dir, max(1, report.iterations // 4), len(workers), logs))
    return workers, kills


def _tally(
    report: RealReport, workers: list[subprocess.Popen[str]], kills: list[float], logs: str
) -> None:
    for worker in workers:
        out, _ = worker.communicate()
        if worker.returncode != 0 or not out.strip():
            continue  # killed: its critical sections are in the acquisition journals
        stats = json.loads(out.strip().splitlines()[-1])
        report.blocked += stats["blocked"]
        report.overlaps += stats["overlaps"]
        report.stale_sentinels += stats["stale"]
    report.kills = len(kills)
    # Every acquisition is journalled before the critical section, so the
    # count includes the sections of workers that were killed.
    acquired = _acquisitions(logs)
    report.critical_sections = len(acquired)
    for killed_at in kills:
        after = next((t for t in acquired if t > killed_at), None)
        if after is None:
            report.untaken_kills += 1
        else:
            report.takeovers_ms.append((after - killed_at) * 1000)


def _final_probe(state_dir: str, lock_path: str) -> tuple[str, bool]:
    """A fresh agent (this process) must take whatever lock is left at once."""
    if not os.path.exists(lock_path):
        return "no lock left", False
    from lanes.torture.program import HOSTS, ClientSpec  # noqa: PLC0415
    from lanes.torture.world import Client  # noqa: PLC0415

    env, kernel = _tools()
    me = Client(0, ClientSpec(HOSTS[0], ()))
    me.pid = os.getpid()
    me.session = f"probe-{os.getpid()}"
    decision = kernel.pre_tool_use(env, state_dir, me, "unit", force=True)
    if decision.kind != "allow":
        return f"probe blocked: {decision.message[:200]}", True
    kernel.post_tool_use(env, state_dir, me, "unit", force=True, passed=True)
    return "probe took a dead holder's lock", os.path.exists(lock_path)


def _judge(report: RealReport) -> None:
    if report.overlaps:
        report.problems.append(f"{report.overlaps} overlapping critical sections")
    slow = [ms for ms in report.takeovers_ms if ms > TAKEOVER_LIMIT * 1000]
    if slow:
        report.problems.append(
            f"{len(slow)} killed holder(s) taken over only after {max(slow) / 1000:.1f}s "
            f"(limit {TAKEOVER_LIMIT:.0f}s; TTL {REAL_TTL}s)"
        )
    if report.lock_left:
        report.problems.append(f"a lock is left at the end ({report.probe})")
    if report.critical_sections == 0:
        report.problems.append("no worker ever entered the critical section")


if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
