"""Confirmation re-timing: a test past its limit is timed again before it fails the run.

One wall-clock sample is not a verdict on a loaded machine: the same test was
measured at 1.8 s and 6.3 s in two runs of one suite. So after the suite, on
the controller, only the offenders run again — serially, in **one** child
process that takes every sample: ``confirm`` passes over the offenders, every
other pass in reverse order (so no test pays a child's warm-up in every
sample) — and a test fails only if it stays past its limit in **every**
sample.

One child, not one per sample: each child paid the interpreter's, pytest's
and the plugins' start-up and the offenders' collection again, and two of
them made a confirmed FAIL cost 2.04x the plain run of a short suite. The
child is a **fork of the finished run** where that is safe
(:mod:`lanes.slow.forked`: no start-up, no collection at all), else a fresh
pytest with ``-n 0`` (Windows, macOS, an xdist controller, threads alive,
a stopped run, ``--slow-confirm-spawn``); :class:`Retiming` says which, and why. A pass
tears every fixture down (``nextitem=None``) before the next one begins, so a
sample sets up what the suite run set up; the shared fixtures it sets up again
are taken out of it, as in the suite run (:mod:`lanes.slow.setups`).

With ``--slow-confirm-once-past FACTOR`` (default 1.5; 0 turns it off), an
offender whose suite-run time **and** first re-timing are both FACTOR x its
limit or more is not re-timed again: noise would have had to strike twice,
by half the limit again, the second time in a fresh process on a
contention-free clock. Its first re-timing alone does not decide, because a
lone offender is the first test of a spawned child and pays its warm-up:
on attrs under load a Hypothesis test measured 2.78 s in the suite, 1.56 s
re-timed first in its child and 0.46-0.57 s in other runs (limit 1.34 s);
deciding on the suite's figure alone confirmed it and doubled the distinct
FAIL sets of docs/measurements/slow_stability.sh (2 / 10 against 1 / 10).

A test that sleeps or waits on real time is confirmed as readily as one that
computes: wall-clock is what the budget measures. But CPU contention is taken
out of the samples (:mod:`lanes.slow.runqueue`: wall-clock minus the time the
test waited for a CPU), so a machine under sustained load does not confirm
every test it slowed down.

A spawned child runs with the project's own rootdir and configuration file,
the same plugins (autoload as in the parent, and the run's own ``-p``
options) and ``--slow-retime=PLAN``: the stopwatch and :class:`Retimer` only
— no verdict, no last-run file, no nested re-timing.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal, NamedTuple, TypedDict

import pytest

from lanes._atomic import write_atomic
from lanes._measuring import measuring_environment
from lanes.slow.setups import setup_times

if TYPE_CHECKING:
    from collections.abc import Sequence

    from lanes.slow.runqueue import RunQueueClock
    from lanes.slow.stopwatch import Stopwatch
    from lanes.slow.verdicts import Judged

__all__ = ["Plan", "Retimer", "Retiming", "far_past", "read_plan", "retime"]

CHILD_SLACK: Final = 300.0
"""Seconds of pytest start-up and collection allowed to the re-timing run: generous,
because on a loaded machine a child's start-up alone took a minute."""
DEADLINE_FACTOR: Final = 10.0
"""A pass over the offenders may take this many times what they took in the suite run."""
SPAWN_OPTION: Final = "--slow-confirm-spawn: a fresh pytest was asked for"
FORKED_WHY: Final = "a fork of the finished run: no start-up, no collection"
# pytest-rerunfailures' outcome for an attempt it reruns. Typed str: pytest's own
# outcomes are a Literal that does not include it.
_RERUN: str = "rerun"


class Plan(TypedDict):
    """What the parent asks of the re-timing child (a JSON file named by ``--slow-retime``)."""

    passes: int
    """Samples per offender at most (``confirm``)."""
    once_past: float
    """A first re-timing this many times the limit or more ends a test's sampling (0: never)."""
    far: list[str]
    """The offenders whose suite-run time was already ``once_past`` x their limit or more."""
    limits: dict[str, float]
    """Each offender's limit, seconds."""
    out: str
    """Where the child writes its samples: ``{"samples": {nodeid: [seconds, ...]}}``."""


def far_past(judged: Judged, once_past: float) -> bool:
    """Whether the suite measured ``judged`` at ``once_past`` x its limit or more (0: never)."""
    return once_past > 0 and judged.seconds >= once_past * judged.limit


def _command(config: pytest.Config, plan: Path, nodeids: Sequence[str]) -> list[str]:
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "lanes.slow",
        f"--rootdir={config.rootpath}", f"--slow-retime={plan}",
    ]  # fmt: skip
    if config.inipath is not None:
        command.append(f"--config-file={config.inipath}")
    # The plugins the run named (-p NAME, -p no:NAME), as it loaded them: with
    # autoload off, -p xdist is how xdist came in, and -n 0 needs it.
    command += [arg for name in _plugin_args(config) for arg in ("-p", name)]
    if config.pluginmanager.hasplugin("xdist"):
        command += ["-n", "0"]  # serially, whatever -n addopts or PYTEST_ADDOPTS set
    return [*command, *nodeids]


def _plugin_args(config: pytest.Config) -> list[str]:
    """The values of the run's own ``-p`` options, read as pytest reads them (``-p NAME``, ``-pNAME``)."""
    args = iter(str(arg) for arg in config.invocation_params.args)
    names = []
    for arg in args:
        if arg == "-p":
            names.append(next(args, ""))
        elif arg.startswith("-p"):
            names.append(arg[len("-p") :])
    return [name for name in names if name]


def _measured(out: Path) -> dict[str, list[float]]:
    try:
        samples = json.loads(out.read_text(encoding="utf-8"))["samples"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    if not isinstance(samples, dict):
        return {}
    return {
        str(nodeid): [float(s) for s in values if isinstance(s, int | float)]
        for nodeid, values in samples.items()
        if isinstance(values, list)
    }


class Retiming(NamedTuple):
    """The samples taken, and which child took them (the envelope's ``retimed``)."""

    samples: dict[str, list[float]]
    """Seconds per sample, by node id; only the offenders that were sampled."""
    child: Literal["forked", "spawned"]
    why: str
    """Why this child: what the fork saves, or why the run could not fork."""


def retime(
    session: pytest.Session,
    offenders: Sequence[Judged],
    samples: int,
    *,
    once_past: float,
    stopwatch: Stopwatch,
    spawn: bool = False,
) -> Retiming:
    """Re-time the offenders up to ``samples`` times each, in one child.

    The child is a fork of this finished run where that is safe
    (:mod:`lanes.slow.forked`), otherwise (or with ``spawn``) a fresh pytest.
    A child that exceeds its deadline (start-up plus ten times what the
    offenders took in the suite run, per pass, measured under the same machine
    load) is killed: the passes it finished keep their samples (it writes
    them after each pass), the rest yield none, so those failures stand — as
    do those of a test the child did not run (it failed to collect there).
    """
    # Only a run with offenders imports the fork's module (the plugin's import cost).
    from lanes.slow.forked import fork_refusal, retime_forked  # noqa: PLC0415

    nodeids = sorted(judged.nodeid for judged in offenders)
    refusal = SPAWN_OPTION if spawn else fork_refusal(session, nodeids)
    with tempfile.TemporaryDirectory(prefix="lanes-slow-retime-") as tmp:
        out = Path(tmp) / "samples.json"
        plan: Plan = {
            "passes": samples,
            "once_past": once_past,
            "far": sorted(j.nodeid for j in offenders if far_past(j, once_past)),
            "limits": {judged.nodeid: judged.limit for judged in offenders},
            "out": str(out),
        }
        deadline = CHILD_SLACK + DEADLINE_FACTOR * samples * sum(j.seconds for j in offenders)
        if refusal is None:
            retime_forked(session, plan, nodeids, stopwatch, deadline)
        else:
            _spawn(session.config, plan, Path(tmp) / "plan.json", nodeids, deadline)
        measured = _measured(out)
    taken = {nodeid: measured[nodeid] for nodeid in nodeids if measured.get(nodeid)}
    if refusal is None:
        return Retiming(taken, "forked", FORKED_WHY)
    return Retiming(taken, "spawned", refusal)


def _spawn(
    config: pytest.Config, plan: Plan, plan_path: Path, nodeids: Sequence[str], deadline: float
) -> None:
    """A fresh child pytest that collects the offenders and runs :class:`Retimer`."""
    plan_path.write_text(json.dumps(plan), encoding="utf-8")
    # A killed child: what it did not measure has no sample, and those
    # failures stand (a slow child is not evidence of a slow test).
    with contextlib.suppress(subprocess.TimeoutExpired):
        subprocess.run(
            _command(config, plan_path, nodeids),
            cwd=config.rootpath,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=deadline,
            check=False,
            env=measuring_environment(),
        )


def read_plan(path: str) -> Plan:
    """The plan the parent wrote (``--slow-retime=PLAN``); a usage error if unreadable."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        plan: Plan = {
            "passes": int(data["passes"]),
            "once_past": float(data["once_past"]),
            "far": [str(nodeid) for nodeid in data["far"]],
            "limits": {str(k): float(v) for k, v in data["limits"].items()},
            "out": str(data["out"]),
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        msg = (
            f"--slow-retime={path!r}: not a re-timing plan ({exc}); this option is internal to "
            "the ratchet's confirmation child"
        )
        raise pytest.UsageError(msg) from None
    return plan


class Retimer:
    """In the re-timing child: runs the collected offenders pass after pass, one sample each.

    It replaces pytest's run loop (``pytest_runtestloop``), so each pass is
    the standard test protocol — every plugin's hooks, the stopwatch, the
    run-queue clock — and ends with every fixture torn down. After each pass
    it writes every sample taken so far (a killed child keeps them).
    """

    def __init__(self, plan: Plan, stopwatch: Stopwatch, clock: RunQueueClock | None) -> None:
        self.plan = plan
        self._stopwatch = stopwatch
        self.clock = clock
        """The run-queue clock its samples take CPU waits out with (None: plain wall-clock)."""
        self._reports: list[pytest.TestReport] = []
        self.samples: dict[str, list[float]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._reports.append(report)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool | None:
        if session.testsfailed or session.config.option.collectonly:
            return None  # pytest's own loop reports collection errors and --collect-only
        self.run(session, list(session.items))
        return True

    def run(self, session: pytest.Session, items: Sequence[pytest.Item]) -> None:
        """Every pass over ``items``, the samples written after each (the forked child's entry)."""
        for number in range(self.plan["passes"]):
            order = [item for item in items if self._wants(item.nodeid, number)]
            if not order:
                break
            # Every other pass in reverse: the first test of a child pays its
            # warm-up (imports, caches), and in node-id order the same test
            # would pay it in every sample and be confirmed for it (attrs).
            if number % 2:
                order.reverse()
            for index, item in enumerate(order):
                # The last test of a pass tears everything down: the next
                # pass sets up what a suite run sets up.
                nextitem = order[index + 1] if index + 1 < len(order) else None
                self._sample(item, nextitem)
                if session.shouldfail:
                    raise session.Failed(session.shouldfail)
                if session.shouldstop:
                    raise session.Interrupted(session.shouldstop)
            write_atomic(self.plan["out"], json.dumps({"samples": self.samples}) + "\n")

    def _wants(self, nodeid: str, number: int) -> bool:
        taken = self.samples.get(nodeid, [])
        if len(taken) < number:
            return False  # a pass without a sample (it did not reach its call): none later
        if number == 0:
            return True
        once_past = self.plan["once_past"]
        limit = self.plan["limits"].get(nodeid)
        first_far = once_past > 0 and limit is not None and taken[0] >= once_past * limit
        # Far past in the suite run and in a fresh process: sampled enough.
        return not (first_far and nodeid in self.plan["far"])

    def _sample(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        self._reports.clear()
        shared_before = len(self._stopwatch.shared_setups)
        item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        nodeid = item.nodeid
        mine = [r for r in self._reports if r.nodeid == nodeid and type(r) is pytest.TestReport]
        calls = [r for r in mine if r.when == "call" and r.outcome != _RERUN]
        if not calls:
            return  # no call phase: nothing of its own to time
        setups = [r for r in mine if r.when == "setup"]
        shared = self._stopwatch.shared_setups[shared_before:]
        setup = setup_times(setups, shared).last.get(nodeid, 0.0)
        call = calls[-1].duration
        clock = self.clock
        if clock is not None:
            # Wall-clock minus the time spent waiting for a CPU (runqueue.py).
            setup = max(0.0, setup - clock.setup.get(nodeid, 0.0))
            call = max(0.0, call - clock.call.get(nodeid, 0.0))
        self.samples.setdefault(nodeid, []).append(setup + call)
