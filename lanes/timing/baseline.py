"""The reviewed baseline (``baselines/timing.json``): host fingerprint, record, Δ.

A baseline is only comparable on the host that recorded it: the same CPU
count and model, platform and machine, and for each suite the same Python and
the same command. Anything else is *not comparable* — reported, never a
regression.

The Δ of a figure is flagged ``regressed`` (or ``improved``) only when it is
beyond the noise: the larger of the two spreads (max - min of the repeats)
and :data:`NOISE_FLOOR` of the baseline median. The gate (``max_regression``)
fails the lane on median CPU time — the kernel's count of the tree's
user + system time, far less disturbed by a busy machine than wall clock —
grown by more than ``max_regression`` percent *and* beyond the spread. CPU
time misses a test that newly waits (a 2 s sleep is +85% wall, +0% CPU), so
``max_wall_regression`` is the same gate on median wall clock, opt-in since
wall clock follows the machine's load.
``collected`` dropping is always flagged (deleted tests hide there).

Like is compared with like: a suite's entry keeps each **arm** it was
recorded in (:func:`arm_key`: serial, ``-n N``, and whether the slow ratchet
rode along, :mod:`lanes.timing.shared`), and a run is compared only with the
figures of its own arm — an xdist run's CPU time (its workers' start-up and
collection on top) against a serial baseline would be a false regression, and
the serial arm's against an xdist one a hidden one. Recording an arm keeps
the suite's other arms recorded on the same host with the same command.
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from lanes._atomic import flocked_directory, write_atomic
from lanes._jsondoc import load_object
from lanes.errors import LanesError, StateError
from lanes.timing.shared import RATCHET_OPTION

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from lanes.payloads.timing import (
        TimingArm,
        TimingCollectedChange,
        TimingComparison,
        TimingFingerprint,
        TimingFlag,
        TimingMeasurement,
        TimingMetric,
        TimingMetricName,
        TimingStat,
    )

__all__ = [
    "BASELINE_FORMAT",
    "MAX_FIGURE",
    "NOISE_FLOOR",
    "BaselineError",
    "arm_key",
    "compare",
    "fingerprint_differences",
    "host_fingerprint",
    "read_baseline",
    "record_baseline",
    "recorded_arms",
]

BASELINE_FORMAT: Final = "lanekit.timing-baseline"
BASELINE_VERSION: Final = 1
NOISE_FLOOR: Final = 0.05
# The figures of the Δ table, in the order the table shows them.
METRICS: Final[tuple[TimingMetricName, ...]] = ("wall_ms", "cpu_ms", "peak_rss_kib")
_STAT_KEYS: Final = ("median", "min", "max")
# Past any real figure (2^40 ms is 34 years, 2^40 KiB is 1 PiB of RSS), far
# below a number that turns a percentage into nonsense.
MAX_FIGURE: Final = 1 << 40
_CPUINFO: Final = Path("/proc/cpuinfo")


class BaselineError(LanesError, ValueError):
    """The baseline file exists but is not a timing baseline this lanekit can read."""


def _cpu_model(cpuinfo: Path = _CPUINFO) -> str:
    """The CPU's name as Linux's ``cpuinfo`` gives it ("model name" on x86,
    "Hardware" on ARM, "cpu model" on MIPS), else the platform's processor."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return platform.processor() or "unknown"
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in {"model name", "Hardware", "cpu model"}:
            return value.strip()
    return platform.processor() or "unknown"


def host_fingerprint() -> TimingFingerprint:
    """What makes two measurements comparable: the CPUs, the platform, the machine."""
    return {
        "cpu_count": os.cpu_count() or 1,
        "cpu_model": _cpu_model(),
        "platform": platform.system().lower(),
        "machine": platform.machine(),
    }


def fingerprint_differences(
    recorded: Mapping[str, object], current: Mapping[str, object]
) -> list[str]:
    """``key: recorded → current`` for every fingerprint key that differs."""
    return [
        f"{key}: {recorded.get(key)!r} → {current.get(key)!r}"
        for key in sorted(set(recorded) | set(current))
        if recorded.get(key) != current.get(key)
    ]


def _bad(path: Path, why: str) -> BaselineError:
    return BaselineError(
        f"{path} is not a timing baseline: {why}",
        hint="restore it from git (git checkout -- <file>) or re-record it with "
        "`lanes timing --record` and review the diff",
    )


def _check_stat(path: Path, suite: str, key: str, value: object) -> None:
    """Integers a measurement can give: 0..:data:`MAX_FIGURE`, ``min <= median <= max``.

    A committed file is data: a negative, inverted or 10^300 figure
    made the gate print "CPU -30260.0% regressed" and pass.
    """
    if not isinstance(value, dict) or any(
        not isinstance(value.get(k), int) or isinstance(value.get(k), bool) for k in _STAT_KEYS
    ):
        raise _bad(
            path, f"suite {suite!r} {key} must be {{median, min, max}} integers, got {value!r:.200}"
        )
    low, median, high = value["min"], value["median"], value["max"]
    if not all(0 <= figure <= MAX_FIGURE for figure in (low, median, high)):
        raise _bad(
            path,
            f"suite {suite!r} {key} figures must be between 0 and {MAX_FIGURE}, got {value!r:.200}",
        )
    if not low <= median <= high:
        raise _bad(path, f"suite {suite!r} {key} must have min <= median <= max, got {value!r}")


def read_baseline(path: Path) -> dict[str, Any] | None:
    """The baseline at ``path``, validated; ``None`` when there is none yet."""
    # The one strict reader: a FIFO, a link, a huge or deeply nested file is a
    # typed error, never a hang or a RecursionError.
    loaded = load_object(
        path, what=f"{path}", fail=lambda why: _bad(path, why), follow_symlinks=True
    )
    if loaded is None:
        return None
    document: dict[str, Any] = loaded
    if document.get("format") != BASELINE_FORMAT:
        raise _bad(path, f"its format is not {BASELINE_FORMAT!r}")
    if document.get("version") != BASELINE_VERSION:
        raise _bad(
            path, f"version {document.get('version')!r}, this lanekit reads {BASELINE_VERSION}"
        )
    if not isinstance(document.get("fingerprint"), dict):
        raise _bad(path, "it has no fingerprint object")
    suites = document.get("suites")
    if not isinstance(suites, dict):
        raise _bad(path, "it has no suites object")
    for name, suite in suites.items():
        if not isinstance(suite, dict):
            raise _bad(path, f"suite {name!r} is not an object")
        for key in METRICS:
            _check_stat(path, name, key, suite.get(key))
        arms = suite.get("arms", {})
        if not isinstance(arms, dict):
            raise _bad(path, f"suite {name!r} arms is not an object")
        for arm, figures in arms.items():
            if not isinstance(figures, dict):
                raise _bad(path, f"suite {name!r} arm {arm!r} is not an object")
            for key in METRICS:
                _check_stat(path, f"{name}: {arm}", key, figures.get(key))
        collected = suite.get("collected")
        if collected is not None and (
            not isinstance(collected, int)
            or isinstance(collected, bool)
            or not 0 <= collected <= MAX_FIGURE
        ):
            raise _bad(
                path,
                f"suite {name!r} collected must be an integer 0..{MAX_FIGURE} or null, "
                f"got {collected!r:.200}",
            )
    return document


def arm_key(arm: TimingArm) -> str:
    """The arm a run measured, as the baseline keys it: ``serial`` or ``-n N`` (the
    workers that reported), plus `` + slow ratchet`` when the ratchet rode along."""
    key = f"-n {arm['workers']}" if arm["workers"] else "serial"
    if any(word.startswith(RATCHET_OPTION) for word in arm["argv"]):
        key += " + slow ratchet"
    return key


def _arm_figures(arm: TimingArm) -> dict[str, Any]:
    return {
        "workers": arm["workers"],
        "repeat": arm["repeat"],
        **{key: arm[key] for key in METRICS},
    }


def recorded_arms(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A baseline entry's figures per arm; an entry from before arms were kept has one,
    its top-level figures (plain runs then: the ratchet never rode along)."""
    arms = entry.get("arms")
    if isinstance(arms, dict):
        return dict(arms)
    workers = entry.get("workers")
    key = f"-n {workers}" if isinstance(workers, int) and workers else "serial"
    return {key: {metric: entry[metric] for metric in METRICS}}


def baseline_entry(suite: TimingMeasurement) -> dict[str, Any]:
    """What the baseline keeps of one measured suite: the measured arm's figures at
    the top (as before arms were kept) and every arm measured under ``arms``."""
    measured = suite["measured"]
    arms = {arm_key(measured): _arm_figures(measured)}
    if suite["xdist"] is not None:
        other = suite["xdist"]["other_arm"]
        arms[arm_key(other)] = _arm_figures(other)
    return {
        "command": suite["command"],
        "python": suite["python"],
        # A failing run may be recorded; the reviewer sees it here.
        "status": suite["status"],
        "outcomes": suite["outcomes"],
        "collected": suite["collected"],
        "repeat": measured["repeat"],
        "workers": measured["workers"],
        **{key: measured[key] for key in METRICS},
        "arms": dict(sorted(arms.items())),
    }


def record_baseline(
    path: Path,
    *,
    previous: dict[str, Any] | None,
    fingerprint: TimingFingerprint,
    suites: Sequence[TimingMeasurement],
    commit: str | None,
) -> dict[str, Any]:
    """Write the baseline for ``suites``; entries of other suites survive only on the same host."""
    kept: dict[str, Any] = {}
    if previous is not None and previous["fingerprint"] == fingerprint:
        kept = dict(previous["suites"])
    for suite in suites:
        entry = baseline_entry(suite)
        earlier = kept.get(suite["name"])
        if (
            isinstance(earlier, dict)
            and earlier.get("command") == entry["command"]
            and earlier.get("python") == entry["python"]
        ):
            # The arms not measured this time stay, still comparable: the main
            # job records its shared arm without erasing the nightly's serial one.
            entry["arms"] = dict(sorted({**recorded_arms(earlier), **entry["arms"]}.items()))
        kept[suite["name"]] = entry
    document = {
        "format": BASELINE_FORMAT,
        "version": BASELINE_VERSION,
        "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "commit": commit,
        "fingerprint": fingerprint,
        "suites": dict(sorted(kept.items())),
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Two agents recording at once must not interleave: one directory lock
        # for every committed baseline.
        with flocked_directory(path.parent):
            write_atomic(path, json.dumps(document, indent=2, sort_keys=False) + "\n")
    except OSError as exc:
        # The suites were measured: a baseline that cannot be written is the
        # user's file system (a directory in its place, a read-only checkout),
        # not a lanekit bug to report with a traceback.
        msg = f"cannot write the timing baseline {str(path)!r}: {exc.strerror or exc}"
        raise StateError(
            msg,
            hint="make the baseline path a writable file location ([tool.lanes.timing] "
            "baseline, else <baseline_dir>/timing.json), then record again with --record",
        ) from None
    return document


def _flag(delta: int, noise: int) -> TimingFlag:
    if delta > noise:
        return "regressed"
    if -delta > noise:
        return "improved"
    return "within noise"


def _metric(key: TimingMetricName, recorded: TimingStat, current: TimingStat) -> TimingMetric:
    base, now = recorded["median"], current["median"]
    noise = max(
        recorded["max"] - recorded["min"],
        current["max"] - current["min"],
        round(NOISE_FLOOR * base),
    )
    delta = now - base
    return {
        "metric": key,
        "baseline": base,
        "current": now,
        "delta": delta,
        "delta_pct": round(100 * delta / base, 1) if base else None,
        "noise": noise,
        "flag": _flag(delta, noise),
    }


def compare(
    suite: TimingMeasurement,
    baseline: dict[str, Any] | None,
    fingerprint: TimingFingerprint,
    *,
    max_regression: float | None,
    max_wall_regression: float | None = None,
) -> TimingComparison:
    """The Δ block of one measured suite against the baseline."""
    empty: TimingComparison = {
        "status": "no baseline",
        "reason": None,
        "metrics": [],
        "collected": None,
        "gate": {
            "max_regression": max_regression,
            "max_wall_regression": max_wall_regression,
            "failed": False,
            "reason": None,
        },
    }
    if baseline is None or suite["name"] not in baseline["suites"]:
        empty["reason"] = "no baseline recorded for this suite: run `lanes timing --record`"
        return empty
    recorded = baseline["suites"][suite["name"]]
    differences = fingerprint_differences(baseline["fingerprint"], fingerprint)
    if recorded.get("python") != suite["python"]:
        differences.append(f"python: {recorded.get('python')!r} → {suite['python']!r}")
    if recorded.get("command") != suite["command"]:
        differences.append(f"command: {recorded.get('command')!r} → {suite['command']!r}")
    if differences:
        empty["status"] = "not comparable"
        empty["reason"] = "recorded elsewhere: " + "; ".join(differences)
        return empty
    measured = suite["measured"]
    arm = arm_key(measured)
    empty["arm"] = arm
    arms = recorded_arms(recorded)
    if arm not in arms:
        empty["status"] = "not comparable"
        empty["reason"] = (
            f"the baseline records this suite's {' and '.join(map(repr, arms))} arm(s), not "
            f"{arm!r}: like is compared only with like; record this arm with the same "
            "options plus --record"
        )
        return empty
    figures = arms[arm]
    metrics = [_metric(key, figures[key], measured[key]) for key in METRICS]
    collected: TimingCollectedChange | None = None
    if recorded.get("collected") is not None and suite["collected"] is not None:
        change = suite["collected"] - recorded["collected"]
        collected = {
            "baseline": recorded["collected"],
            "current": suite["collected"],
            "delta": change,
            "flag": "dropped" if change < 0 else "grew" if change > 0 else "same",
        }
    reasons = [
        reason
        for key, words, option, limit in (
            ("cpu_ms", "CPU time", "max_regression", max_regression),
            ("wall_ms", "wall clock", "max_wall_regression", max_wall_regression),
        )
        if (
            reason := _gate(
                metrics[METRICS.index(key)],
                figures,
                measured,
                words=words,
                option=option,
                limit=limit,
            )
        )
    ]
    return {
        "arm": arm,
        "status": "compared",
        "reason": None,
        "metrics": metrics,
        "collected": collected,
        "gate": {
            "max_regression": max_regression,
            "max_wall_regression": max_wall_regression,
            "failed": bool(reasons),
            "reason": "; ".join(reasons) or None,
        },
    }


def _gate(
    metric: TimingMetric,
    recorded: dict[str, Any],
    measured: TimingArm,
    *,
    words: str,
    option: str,
    limit: float | None,
) -> str | None:
    """Why ``metric`` fails its gate (grown past ``limit`` percent and the spread), else None."""
    key = metric["metric"]
    spread = _spread_of(recorded[key], measured[key])
    pct = metric["delta_pct"]
    if limit is None or pct is None or pct <= limit or metric["delta"] <= spread:
        return None
    # A spread of 0 means one run on each side (two runs never agree to the
    # millisecond): say that no spread was measured, not that it is zero.
    beyond = (
        f"the spread ({spread / 1000:.2f}s)"
        if spread
        else "no spread measured (one run on each side: record and measure with --repeat 2+ for one)"
    )
    return (
        f"median {words} {metric['baseline'] / 1000:.2f}s → {metric['current'] / 1000:.2f}s "
        f"(+{pct}%) exceeds {option} {limit:g}%; {beyond}"
    )


def _spread_of(recorded: TimingStat, current: TimingStat) -> int:
    return max(recorded["max"] - recorded["min"], current["max"] - current["min"])
