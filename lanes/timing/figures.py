"""Repeated samples -> median and spread; one run -> its offenders.

A figure is never one sample presented as the truth: every figure is
``{median, min, max}`` over the arm's repeats, and ``min``/``max`` are the
spread the Δ table and the regression gate compare against.

Offenders come from the run whose wall clock is the median one (the
least-unusual run of the arm): slowest tests (setup + call + teardown),
slowest files (their tests summed), slowest fixture setups (per fixture
definition, summed over its setups in every process), and where the time
before the first test went (interpreter, plugins and conftest imports;
collection, which imports every test module).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lanes.payloads.timing import TimingArm, TimingArmName, TimingOffenders, TimingStat
    from lanes.timing.measure import ProcessFigures, Sample

__all__ = ["arm_summary", "median_sample", "offenders", "stat"]


def stat(values: list[int]) -> TimingStat:
    """``{median, min, max}`` of integer samples (the median rounded to an integer)."""
    return {
        "median": round(statistics.median(values)),
        "min": min(values),
        "max": max(values),
    }


def median_sample(samples: list[Sample]) -> Sample:
    """The run whose wall clock is the median one (the lower middle for an even count)."""
    ordered = sorted(samples, key=lambda sample: sample.wall_ms)
    return ordered[(len(ordered) - 1) // 2]


def arm_summary(samples: list[Sample], arm: TimingArmName) -> TimingArm:
    """An arm's figures over its repeats, plus every sample for the record."""
    middle = median_sample(samples)
    return {
        "arm": arm,
        "argv": middle.argv,
        "repeat": len(samples),
        "workers": middle.workers,
        "wall_ms": stat([s.wall_ms for s in samples]),
        "cpu_ms": stat([s.cpu_ms for s in samples]),
        "peak_rss_kib": stat([s.peak_rss_kib for s in samples]),
        "tree_peak_rss_kib": stat([s.tree_peak_rss_kib for s in samples]),
        "processes": [
            {"role": p.role, "peak_rss_kib": p.peak_rss_kib, "cpu_ms": p.cpu_ms}
            for p in sorted(middle.processes, key=_process_order)
        ],
        "samples": [
            {
                "wall_ms": s.wall_ms,
                "cpu_ms": s.cpu_ms,
                "user_ms": s.user_ms,
                "system_ms": s.system_ms,
                "peak_rss_kib": s.peak_rss_kib,
                "tree_peak_rss_kib": s.tree_peak_rss_kib,
                "exit_code": s.exit_code,
            }
            for s in samples
        ],
    }


def _process_order(process: ProcessFigures) -> tuple[int, int, str]:
    # controller first, then gw0, gw1, ..., gw10 in numeric order.
    role = process.role
    if role == "controller":
        return (0, 0, role)
    digits = role.removeprefix("gw")
    return (1, int(digits), role) if digits.isdigit() else (2, 0, role)


def offenders(sample: Sample, top: int) -> TimingOffenders:
    """The ``top`` slowest tests, files and fixture setups of one run, and its start-up time."""
    tests = sorted(sample.tests.items(), key=lambda item: (-item[1], item[0]))[:top]
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for nodeid, seconds in sample.tests.items():
        entry = files[nodeid.split("::", 1)[0]]
        entry[0] += seconds
        entry[1] += 1
    slowest_files = sorted(files.items(), key=lambda item: (-item[1][0], item[0]))[:top]
    fixtures: dict[tuple[str, str, str], list[float]] = {}
    for fixture in sample.fixtures:
        key = (str(fixture["name"]), str(fixture["scope"]), str(fixture["where"]))
        entry = fixtures.setdefault(key, [0, 0.0, 0.0])
        entry[0] += int(fixture["setups"])
        entry[1] += float(fixture["total"])
        entry[2] = max(entry[2], float(fixture["max"]))
    slowest_fixtures = sorted(fixtures.items(), key=lambda item: (-item[1][1], item[0]))[:top]
    return {
        "tests": [{"nodeid": nodeid, "ms": _ms(seconds)} for nodeid, seconds in tests],
        "files": [
            {"path": path, "ms": _ms(seconds), "tests": int(count)}
            for path, (seconds, count) in slowest_files
        ],
        "fixtures": [
            {
                "name": name,
                "scope": scope,
                "where": where,
                "setups": int(setups),
                "total_ms": _ms(total),
                "max_ms": _ms(longest),
            }
            for (name, scope, where), (setups, total, longest) in slowest_fixtures
        ],
        "startup_ms": sample.startup_ms,
        "collection_ms": sample.collection_ms,
        "first_test_ms": sample.first_test_ms,
    }


def _ms(seconds: float) -> int:
    return round(seconds * 1000)
