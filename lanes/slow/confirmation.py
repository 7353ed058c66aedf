"""Confirmation re-timing: a test past its limit is timed again before it fails the run.

One wall-clock sample is not a verdict on a loaded machine: the same test was
measured at 1.8 s and 6.3 s in two runs of one suite. So after the suite, on
the controller, only the offenders run again — serially, in a fresh child
pytest with ``-n 0``, ``confirm`` times, every other time in reverse order (so
no test pays the child's warm-up in every sample) — and a test fails only if
it stays past its limit in **every** sample. With ``--slow-confirm-once-past
FACTOR`` (opt-in), an offender whose suite-run time was already FACTOR x its
limit or more is re-timed once, not ``confirm`` times: one child pytest
start-up fewer when every offender is that far past. Off by default, because
a lone offender is the first test of its one child and pays its warm-up: on
attrs under load that confirmed a Hypothesis test (2.78 s in the suite,
1.56 s re-timed, 0.46-0.57 s in other runs) and doubled the distinct FAIL
sets of docs/measurements/slow_stability.sh (2 / 10 against 1 / 10). A test that sleeps or waits on real time
is confirmed as readily as one that computes: wall-clock is what the budget
measures. But CPU contention is taken out of the samples
(:mod:`lanes.slow.runqueue`: wall-clock minus the time the test waited for a
CPU), so a machine under sustained load does not confirm every test it
slowed down.

The child runs with the project's own rootdir and configuration file, the
same plugins (autoload as in the parent) and ``--slow-retime``, which makes
its ratchet a pure stopwatch: no verdict, no last-run file, no nested
re-timing.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes._measuring import measuring_environment

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pytest

    from lanes.slow.verdicts import Judged

__all__ = ["retime"]

CHILD_SLACK: Final = 300.0
"""Seconds of pytest start-up and collection allowed per re-timing run: generous,
because on a loaded machine a child's start-up alone took a minute."""
DEADLINE_FACTOR: Final = 10.0
"""A re-timing run may take this many times what its tests took in the suite run."""


def _command(config: pytest.Config, out: Path, nodeids: Sequence[str]) -> list[str]:
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "lanes.slow",
        f"--rootdir={config.rootpath}", f"--slow-json={out}", "--slow-retime",
    ]  # fmt: skip
    if config.inipath is not None:
        command.append(f"--config-file={config.inipath}")
    if config.pluginmanager.hasplugin("xdist"):
        command += ["-n", "0"]  # serially, whatever -n addopts or PYTEST_ADDOPTS set
    return [*command, *nodeids]


def _measured(out: Path) -> dict[str, float]:
    try:
        data = json.loads(out.read_text(encoding="utf-8"))
        tests = data["tests"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {
        t["nodeid"]: t["ms"] / 1000
        for t in tests
        if isinstance(t, dict) and isinstance(t.get("ms"), int)
    }


def wanted_samples(judged: Judged, samples: int, once_past: float) -> int:
    """How many times to re-time one offender: once when the suite measured it at
    ``once_past`` × its limit or more (0: never once).

    Its one re-timing must still stay past the limit, so noise has to strike
    twice — in two processes, the second free of CPU contention — and the first
    time by half the limit again, to fail a test that is not slow.
    """
    far = once_past > 0 and judged.seconds >= once_past * judged.limit
    return min(samples, 1) if far else samples


def retime(
    config: pytest.Config, offenders: Sequence[Judged], samples: int, *, once_past: float
) -> dict[str, list[float]]:
    """Re-time the offenders up to ``samples`` times each; seconds per test, one per sample taken.

    Each offender gets :func:`wanted_samples`; a sample runs, in one child,
    every offender that still wants one. A re-timing run that exceeds its
    deadline (start-up plus ten times what its tests took in the suite run,
    measured under the same machine load) is killed and yields no samples, so
    its tests' failures stand — as do those of a test the child did not run
    (it failed to collect there).
    """
    wants = {judged.nodeid: wanted_samples(judged, samples, once_past) for judged in offenders}
    seconds = {judged.nodeid: judged.seconds for judged in offenders}
    taken: dict[str, list[float]] = {nodeid: [] for nodeid in wants}
    with tempfile.TemporaryDirectory(prefix="lanes-slow-retime-") as tmp:
        for sample in range(samples):
            nodeids = sorted(nodeid for nodeid, want in wants.items() if want > sample)
            if not nodeids:
                break
            out = Path(tmp) / f"sample-{sample}.json"
            deadline = CHILD_SLACK + DEADLINE_FACTOR * sum(seconds[n] for n in nodeids)
            # Every other run in reverse: the first test of a child pays its
            # warm-up (imports, caches), and in node-id order the same test
            # would pay it in every sample and be confirmed for it (attrs).
            order = nodeids if sample % 2 == 0 else nodeids[::-1]
            try:
                subprocess.run(
                    _command(config, out, order),
                    cwd=config.rootpath,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    timeout=deadline,
                    check=False,
                    env=measuring_environment(),
                )
            except subprocess.TimeoutExpired:
                # No sample for what the killed child did not measure: those
                # failures stand (a slow child is not evidence of a slow test).
                continue
            measured = _measured(out)
            for nodeid in nodeids:
                if nodeid in measured:
                    taken[nodeid].append(measured[nodeid])
    return {nodeid: values for nodeid, values in taken.items() if values}
