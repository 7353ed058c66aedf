"""``lanes timing --self-check``: the lane must catch a planted regression.

A planted project in a temporary directory is measured and recorded as the
baseline (through the real writer and reader), then changed twice:

- *slower and bigger*: its CPU-bound test does as much more work as the
  whole first run cost, so the run's CPU time at least doubles, and its
  memory-hungry test holds twice the memory. The lane must fail the
  ``max_regression`` gate on CPU time and flag peak memory as regressed;
- *one test fewer*: a test is deleted. The lane must report ``collected``
  dropping by one.

It also plants a wrong-but-plausible fault in the lane's own figures
(:mod:`lanes.payloads.planted`): an xdist run's peak memory taken as the
largest process's peak (``max()``) instead of the sum of every process's own
peak. On an xdist run of a controller and two workers the lane must give the
sum and the planted fault the largest alone, or the self-check fails.

The CPU work is counted in process time, not slept, so a busy machine slows
the run but not the figure the gate judges. The self-check passes only when
every expectation is observed; the lane fails otherwise.
"""

from __future__ import annotations

import shlex
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from lanes._planted import announce, judge
from lanes.config import Suite
from lanes.timing.baseline import compare, host_fingerprint, read_baseline, record_baseline
from lanes.timing.measure import ProcessFigures, Sample
from lanes.timing.suite import SuitePlan, measure_suite

if TYPE_CHECKING:
    from lanes.payloads.planted import PlantedFault
    from lanes.payloads.timing import TimingCheck, TimingMeasurement, TimingSelfCheck

__all__ = ["MAX_REGRESSION", "run_self_check", "write_planted"]

MAX_REGRESSION: Final = 30.0
_WORK_S: Final = 0.3
_MEMORY_MIB: Final = 60
_REPEAT: Final = 2

_TESTS: Final = """\
import time


def test_cpu():
    deadline = time.process_time() + {work}
    while time.process_time() < deadline:
        pass


def test_memory():
    block = bytearray({mebibytes} * 1024 * 1024)
    # Touch every page: resident memory, not just an address-space reservation.
    for offset in range(0, len(block), 4096):
        block[offset] = 1
    assert block[0] == 1
"""

_KEPT: Final = """

def test_kept():
    assert True
"""


def write_planted(root: Path, *, cpu: float = 1, memory: int = 1, keep_last: bool = True) -> None:
    """The planted project; ``cpu`` and ``memory`` scale its CPU work and the memory it holds."""
    tests = root / "tests"
    tests.mkdir(parents=True, exist_ok=True)
    body = _TESTS.format(work=_WORK_S * cpu, mebibytes=_MEMORY_MIB * memory)
    tests.joinpath("test_planted.py").write_text(
        body + (_KEPT if keep_last else ""), encoding="utf-8"
    )


def _measure(root: Path, repeat: int) -> TimingMeasurement:
    # Hypothesis's plugin would add seconds of import to every planted run.
    command = f"{shlex.quote(sys.executable)} -m pytest tests -q -p no:cacheprovider -p no:hypothesispytest"
    suite = Suite(name="planted", paths=("tests",), command=command)
    return measure_suite(
        suite,
        SuitePlan(repeat=repeat, workers=0, offenders=3),
        root=root,
        before_run=lambda _label: None,
        after_run=lambda _sample: None,
    )


def _check(name: str, expected: str, observed: str) -> TimingCheck:
    return {
        "name": name,
        "expected": expected,
        "observed": observed,
        "passed": expected == observed,
    }


class _LargestPeakSample(Sample):
    """The planted fault: an xdist run's peak memory as its largest process's peak."""

    @property
    def peak_rss_kib(self) -> int:
        if len(self.processes) <= 1:
            return self.tree_peak_rss_kib
        return max(process.peak_rss_kib for process in self.processes)


def _planted_xdist_peak() -> PlantedFault:
    # A controller and two workers, each reporting its own peak (KiB) as the
    # probe does; all three hold their memory through the run.
    processes = [
        ProcessFigures(role="controller", peak_rss_kib=40_960, cpu_ms=300),
        ProcessFigures(role="gw0", peak_rss_kib=102_400, cpu_ms=1_200),
        ProcessFigures(role="gw1", peak_rss_kib=92_160, cpu_ms=1_100),
    ]
    fields: dict[str, Any] = {
        "arm": "xdist", "argv": ["pytest", "-n", "2"], "exit_code": 0, "wall_ms": 1_000,
        "cpu_ms": 2_600, "user_ms": 2_400, "system_ms": 200, "tree_peak_rss_kib": 102_400,
        "processes": processes,
    }  # fmt: skip
    expected = sum(process.peak_rss_kib for process in processes)
    return judge(
        "an xdist run's peak memory taken as the largest process's peak (max), "
        "not the sum of each process's own peak",
        expected=f"{expected} KiB",
        real=f"{Sample(**fields).peak_rss_kib} KiB",
        planted=f"{_LargestPeakSample(**fields).peak_rss_kib} KiB",
    )


def run_self_check() -> TimingSelfCheck:
    """Measure, record, regress, compare; the envelope's ``self_check`` block."""
    print("timing: self-check on a planted project ...", file=sys.stderr, flush=True)
    fingerprint = host_fingerprint()
    with tempfile.TemporaryDirectory(prefix="lanes-timing-selfcheck-") as scratch:
        root = Path(scratch)
        baseline_file = root / "baselines" / "timing.json"
        write_planted(root)
        before = _measure(root, _REPEAT)
        record_baseline(
            baseline_file, previous=None, fingerprint=fingerprint, suites=[before], commit=None
        )
        recorded = read_baseline(baseline_file)
        # A fixed extra (three times the CPU test's work, +0.6 s) was too
        # little where pytest's start-up is most of the run: with the bytecode
        # of a venv uv installed uncompiled not written (PYTHONDONTWRITEBYTECODE)
        # the first run took 1.76 s of CPU and the slower one measured +27.9%,
        # under the 30% gate. As much more work as the whole first run cost
        # at least doubles it, whatever the start-up weighs.
        extra_s = before["measured"]["cpu_ms"]["median"] / 1000
        write_planted(root, cpu=1 + extra_s / _WORK_S, memory=2)
        slower = compare(
            _measure(root, _REPEAT), recorded, fingerprint, max_regression=MAX_REGRESSION
        )
        write_planted(root, keep_last=False)
        fewer = compare(_measure(root, 1), recorded, fingerprint, max_regression=None)
    flags = {metric["metric"]: metric["flag"] for metric in slower["metrics"]}
    dropped = fewer["collected"]
    # No count to compare (no baseline entry, another host): the status says why.
    collected = (
        f"{fewer['status']} by 0"
        if dropped is None
        else f"{dropped['flag']} by {abs(dropped['delta'])}"
    )
    checks = [
        _check("cpu gate", "failed", "failed" if slower["gate"]["failed"] else "passed"),
        _check("peak memory", "regressed", flags.get("peak_rss_kib", slower["status"])),
        _check("collected", "dropped by 1", collected),
    ]
    planted = [_planted_xdist_peak()]
    announce("timing", planted)
    passed = all(check["passed"] for check in checks) and all(p["caught"] for p in planted)
    summary = "; ".join(
        [f"{c['name']}: expected {c['expected']}, observed {c['observed']}" for c in checks]
        + [f"planted {p['fault']}: {'caught' if p['caught'] else 'NOT caught'}" for p in planted]
    )
    return {
        "passed": passed,
        "summary": summary,
        "checks": checks,
        "planted": planted,
        "slower": slower,
        "fewer": fewer,
    }
