"""Lane payloads shaped like the real lanes write them (the envelope schema checks each one).

Copied from envelopes the lanes wrote on a throwaway project, trimmed; the
builders take the parts a test varies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanes.mutation.statuses import counts_document

if TYPE_CHECKING:
    from lanes.payloads.bench import BenchBenchmark, BenchData
    from lanes.payloads.fuzz import FuzzData, FuzzFailure, FuzzMode, FuzzOverhead, FuzzTarget
    from lanes.payloads.mutation import (
        MutationCheck,
        MutationCheckedModule,
        MutationCounts,
        MutationSurvivor,
        MutationVerdict,
    )
    from lanes.payloads.slow import SlowData, SlowJudged, SlowPin, SlowPinState, SlowTest
    from lanes.payloads.timing import TimingData, TimingMetric, TimingSample, TimingStat
    from lanes.payloads.torture import TortureData, TortureScheduler, TortureViolation


def slow_data(
    *,
    offenders: list[SlowJudged] | None = None,
    pins: list[SlowPin] | None = None,
    p90_ms: int = 800,
) -> SlowData:
    offenders = offenders or []
    pins = pins or []
    tests: list[SlowTest] = [
        {"nodeid": f"tests/test_a.py::test_{index}", "tier": "unit", "ms": ms}
        for index, ms in enumerate((5, 40, 300, 700, 1500))
    ]
    tests += [{"nodeid": o["nodeid"], "tier": "unit", "ms": o["ms"]} for o in offenders]
    return {
        "verdict": "fail" if offenders else "pass",
        "phases": "call+function-fixtures",
        "fail_factor": 2.0,
        "pins_file": "baselines/slow-tests.json",
        "workers": 0,
        "outcomes": {"passed": len(tests)},
        "counts": {
            "judged": len(tests),
            "ok": len(tests) - len(offenders) - 1,
            "band": 1,
            "fail": len(offenders),
        },
        "tiers": [
            {
                "name": "unit",
                "budget_ms": 1000,
                "count": len(tests),
                "total_ms": sum(t["ms"] for t in tests),
                "p50_ms": 300,
                "p90_ms": p90_ms,
                "max_ms": max(t["ms"] for t in tests),
                "slowest": tests[-1]["nodeid"],
                "slowest_tests": [],
            }
        ],
        "offenders": offenders,
        "band": [
            {
                "nodeid": "tests/test_a.py::test_4",
                "tier": "unit",
                "ms": 1500,
                "budget_ms": 1000,
                "limit_ms": 2000,
                "pinned": False,
                "own_budget": False,
                "attempts": 1,
                "samples_ms": [],
            }
        ],
        "pins": pins,
        "tighten": [],
        "slowest": [
            {
                "nodeid": t["nodeid"],
                "tier": "unit",
                "ms": t["ms"],
                "call_ms": t["ms"],
                "fixtures_ms": 0,
            }
            for t in tests[:10]
        ],
        "fixtures": [],
        "tests": tests,
        "pytest_exit": 0,
        "self_check": None,
        "confirm": 0,
        "retimed": None,
        "partial": False,
        "partial_reasons": [],
        "pytest_args": [],
        "removable_after": 3,
        "unconfirmed": [],
    }


def offender(nodeid: str, ms: int) -> SlowJudged:
    return {
        "nodeid": nodeid,
        "tier": "unit",
        "ms": ms,
        "budget_ms": 1000,
        "limit_ms": 2000,
        "pinned": False,
        "own_budget": False,
        "attempts": 1,
        "samples_ms": [],
    }


def pin(nodeid: str, state: SlowPinState, ms: int | None) -> SlowPin:
    return {
        "nodeid": nodeid,
        "tier": "unit",
        "ceiling_ms": 4000,
        "reason": "talks to a real subprocess",
        "tracking": "#12",
        "added": "2026-11-01",
        "state": state,
        "ms": ms,
        "history_ms": [] if ms is None else [ms + 100, ms],
        "streak": 3 if state == "removable" else 0,
    }


def _overhead(run: float, goal: float | None) -> FuzzOverhead:
    return {"watchdog_ms": 323, "in_process_ms": 245, "execution": 0.3206, "run": run, "goal": goal}


def fuzz_data(
    *,
    failures: list[FuzzFailure] | None = None,
    cases_per_second: float = 300.0,
    run: float = 0.05,
    mode: FuzzMode = "run",
    goal: float | None = 0.2,
) -> FuzzData:
    """``goal``: lanekit's own watchdog goal, None as in a user's project."""
    failures = failures or []
    failing = {f["target"] for f in failures}
    targets: list[FuzzTarget] = [
        {
            "name": name,
            "cases": 2000,
            "failures": int(name in failing),
            "stalls": 0,
            "worker_restarts": 0,
            "duration_ms": round(2000 / cases_per_second * 1000),
            "cases_per_second": cases_per_second,
            "shrink_cut_short": False,
            "slowest_case_ms": 3.6,
            "overhead": _overhead(run, goal),
        }
        for name in ("classify", "payload", "ledger")
    ]
    return {
        "mode": mode,
        "iterations": 2000,
        "case_budget_ms": 2000,
        "database": ".hypothesis/fuzz",
        "targets": targets,
        "failures": failures,
        "watchdog_overhead": _overhead(run, goal),
        "self_check": None,
        "replay": None,
        "corpus": None,
    }


def fuzz_failure(target: str = "ledger", message: str = "''") -> FuzzFailure:
    artifact = f"envelopes/fuzz/{target}-untyped-23a6a3302f92.json"
    return {
        "target": target,
        "kind": "untyped",
        "error_type": "KeyError",
        "message": message,
        "input_preview": "'{}'",
        "artifact": artifact,
        "repro": f"lanes fuzz --input-file {artifact}",
        "promote": f"lanes fuzz --input-file {artifact} --append-corpus",
    }


def torture_data(
    *, violations: list[TortureViolation] | None = None, runs_per_second: float = 56.0
) -> TortureData:
    detections: tuple[tuple[TortureScheduler, int], ...] = (("random", 20), ("pct", 0))
    return {
        "mode": "sweep",
        "scheduler": "random",
        "clients": 4,
        "ops": 40,
        "ttl": 1800,
        "seed_start": 0,
        "runs": 60,
        "executions": 120,
        "steps": 42140,
        "runs_per_second": runs_per_second,
        "contention": {
            "acquired": 1191,
            "held_blocks": 2782,
            "dedup_blocks": 1243,
            "flock_waits": 2496,
            "crashes": 186,
            "interrupts": 224,
            "pid_reuses": 92,
            "runner_locks": 610,
            "runner_blocks": 37,
            "breaks": {"own token": 162, "expired": 540, "owner dead": 74},
        },
        "ttl_overlaps": 5,
        "scenario": {"held_blocks": 1, "acquired": 2, "passed": True},
        "signature": None,
        "violations": violations or [],
        "nondeterminism": [],
        "self_check": {
            "passed": True,
            "seeds": 20,
            "pct_steps": 702,
            "pct_bound": 5.07e-07,
            "rows": [
                {
                    "bug": "no-ttl",
                    "description": "a lock never expires",
                    "scheduler": scheduler,
                    "seeds": 20,
                    "detected": detected,
                    "rate": detected / 20,
                    "first_seed": 0 if detected else None,
                    "seeds_to_detection": 1 if detected else None,
                    "invariant": "liveness" if detected else None,
                }
                for scheduler, detected in detections
            ],
        },
        "real": None,
    }


def violation(seed: int) -> TortureViolation:
    return {
        "seed": seed,
        "invariant": "foreign-lock",
        "message": "client 2 released a lock it did not hold",
        "replay": f"lanes torture --seed {seed} --clients 4 --ops 40",
        "schedule_file": f"envelopes/torture/seed-{seed}.json",
        "shrunk_choices": 7,
        "shrunk_ops": 5,
    }


def bench_data(*, miss: bool = True) -> BenchData:
    benchmarks: list[BenchBenchmark] = [
        {
            "name": "hook-latency",
            "description": "lanes hook vs python -c pass, paired runs",
            "figures": {"pairs": 40, "ratio_median": 1.107},
            "goal": "median ratio <= 2.0",
            "verdict": "pass",
            "note": "",
        },
        {
            "name": "slow-plugin-overhead",
            "description": "the slow ratchet enabled vs not loaded",
            "figures": {"overhead_median": 0.0282},
            "goal": "median CPU-time overhead <= 2%",
            "verdict": "miss" if miss else "pass",
            "note": "a tracked goal: reported, it does not fail the lane",
        },
    ]
    return {"iterations": 40, "benchmarks": benchmarks}


def _counts(killed: int, survived: int) -> MutationCounts:
    return counts_document({"killed": killed, "survived": survived})


def survivor(path: str = "lanes/governor/state/lock.py", line: int = 42) -> MutationSurvivor:
    return {
        "key": f"{path}::acquire::3f2a9c",
        "name": "lanes.governor.state.lock.x_acquire__mutmut_7",
        "path": path,
        "line": line,
        "function": "acquire",
        "status": "survived",
        "diff": f"--- a/{path}\n+++ b/{path}\n@@ -42 +42 @@\n-    if age > ttl:\n+    if age >= ttl:\n",
        "tests": ["tests/governor/test_lock.py::test_expiry"],
        "tests_total": 1,
    }


def mutation_check_data(
    *,
    score: float = 0.82,
    baseline: float = 0.85,
    verdict: MutationVerdict = "regression",
    gating: bool = True,
    regressed: bool = True,
) -> MutationCheck:
    """One module; ``regressed``: a mutant killed in the baseline survives (else a score drop)."""
    module: MutationCheckedModule = {
        "shards": ["1/1"],
        "provenance": {
            "mutmut": "3.8.1",
            "lanekit": "0.1.0",
            "python": "3.13",
            "registry_hash": "sha256:aa",
            "mutmut_config_hash": "sha256:bb",
            "source_digest": "sha256:cc",
        },
        "counts": _counts(82, 18),
        "total": 100,
        "score": score,
        "duration_ms": 61000,
        "slowest_shard_ms": 61000,
        "phases_ms": {"mutate": 60000},
        "verdict": verdict,
        "gating": gating,
        # The ratchet's rule (ModuleVerdict.fails): a regressed mutant fails at
        # once, a score drop only once the module is gating.
        "fails": verdict == "regression" and (gating or regressed),
        "baseline_score": baseline,
        "stable_runs": 3,
        "required_stable_runs": 3,
        "drift": [],
        "regressions": [survivor()] if regressed and verdict == "regression" else [],
        "new_survivors": [],
        "equivalent_survivors": 0,
    }
    return {
        "kind": "check",
        "merged_from": "envelopes/mutation/merged.json",
        "problems": [],
        "modules": {"lock": module},
    }


def _stat(median: int) -> TimingStat:
    return {"median": median, "min": median - 100, "max": median + 100}


def timing_data(*, cpu_delta_pct: float = 12.5, failed: bool = True) -> TimingData:
    """One suite, compared with its baseline: CPU time grew by ``cpu_delta_pct``."""
    cpu_now = round(1280 * (1 + cpu_delta_pct / 100))
    metrics: list[TimingMetric] = [
        {
            "metric": "wall_ms",
            "baseline": 5003,
            "current": 5100,
            "delta": 97,
            "delta_pct": 1.9,
            "noise": 460,
            "flag": "within noise",
        },
        {
            "metric": "cpu_ms",
            "baseline": 1280,
            "current": cpu_now,
            "delta": cpu_now - 1280,
            "delta_pct": cpu_delta_pct,
            "noise": 65,
            "flag": "regressed" if failed else "within noise",
        },
        {
            "metric": "peak_rss_kib",
            "baseline": 48246,
            "current": 48300,
            "delta": 54,
            "delta_pct": 0.1,
            "noise": 68,
            "flag": "within noise",
        },
    ]
    sample: TimingSample = {
        "wall_ms": 5100,
        "cpu_ms": cpu_now,
        "user_ms": cpu_now - 80,
        "system_ms": 80,
        "peak_rss_kib": 48300,
        "tree_peak_rss_kib": 48300,
        "exit_code": 0,
    }
    return {
        "fingerprint": {
            "cpu_count": 2,
            "cpu_model": "AMD EPYC",
            "platform": "linux",
            "machine": "x86_64",
        },
        "baseline": {
            "path": "baselines/timing.json",
            "present": True,
            "recorded_at": "2026-11-29T03:00:00Z",
            "commit": "4d8a739c50e7842ce715d332b7f159cb59074bb7",
            "fingerprint": {
                "cpu_count": 2,
                "cpu_model": "AMD EPYC",
                "platform": "linux",
                "machine": "x86_64",
            },
        },
        "record": {"requested": False, "written": False, "reason": None},
        "self_check": None,
        "suites": [
            {
                "name": "unit",
                "command": "pytest tests",
                "runner": "pytest",
                "python": "cpython 3.13.1",
                "status": "passed",
                "exit_codes": [0, 0],
                "outcomes": {"passed": 2},
                "collected": 2,
                "measured": {
                    "arm": "serial",
                    "argv": ["pytest", "tests"],
                    "repeat": 2,
                    "workers": 0,
                    "wall_ms": _stat(5100),
                    "cpu_ms": _stat(cpu_now),
                    "peak_rss_kib": _stat(48300),
                    "tree_peak_rss_kib": _stat(48300),
                    "processes": [{"role": "controller", "peak_rss_kib": 48300, "cpu_ms": 990}],
                    "samples": [sample],
                },
                "offenders": None,
                "xdist": None,
                "xdist_skipped": "pytest-xdist is not installed in the suite's environment",
                "failure": None,
                "sizing": {
                    "repeat": 2,
                    "arms": 1,
                    "first_run_ms": 5100,
                    "chosen_by": "configured",
                    "reason": "2 runs per arm, as configured",
                },
                "comparison": {
                    "status": "compared",
                    "reason": None,
                    "metrics": metrics,
                    "collected": {"baseline": 2, "current": 2, "delta": 0, "flag": "same"},
                    "gate": {
                        "max_regression": 10.0,
                        "max_wall_regression": None,
                        "failed": failed,
                        "reason": f"median CPU time 1.28s → {cpu_now / 1000:.2f}s (+{cpu_delta_pct}%) exceeds max_regression 10%; the spread (0.20s)"
                        if failed
                        else None,
                    },
                },
            }
        ],
        "table": [
            {
                "suite": "unit",
                "collected": "2",
                "wall": "5.1s [5.0-5.2]",
                "cpu": f"{cpu_now / 1000:.1f}s",
                "peak_memory": "47 MiB",
                "top_offender": "tests/test_a.py::test_slow 0.1s",
                "xdist": "not measured",
                "delta": f"CPU +{cpu_delta_pct}% (regressed)" if failed else "within noise",
            }
        ],
    }
