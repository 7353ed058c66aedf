"""Lane payloads shaped like the real lanes write them (the envelope schema checks each one).

Copied from envelopes the lanes wrote on a throwaway project, trimmed; the
builders take the parts a test varies.
"""

from __future__ import annotations

from typing import Any


def slow_data(
    *,
    offenders: list[dict[str, Any]] | None = None,
    pins: list[dict[str, Any]] | None = None,
    p90_ms: int = 800,
) -> dict[str, Any]:
    offenders = offenders or []
    pins = pins or []
    tests = [
        {"nodeid": f"tests/test_a.py::test_{index}", "tier": "unit", "ms": ms}
        for index, ms in enumerate((5, 40, 300, 700, 1500))
    ] + [{"nodeid": o["nodeid"], "tier": "unit", "ms": o["ms"]} for o in offenders]
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
        "partial": False,
        "partial_reasons": [],
        "pytest_args": [],
        "removable_after": 3,
        "unconfirmed": [],
    }


def offender(nodeid: str, ms: int) -> dict[str, Any]:
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


def pin(nodeid: str, state: str, ms: int | None) -> dict[str, Any]:
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


def _overhead(run: float) -> dict[str, Any]:
    return {"watchdog_ms": 323, "in_process_ms": 245, "execution": 0.3206, "run": run, "goal": 0.2}


def fuzz_data(
    *,
    failures: list[dict[str, Any]] | None = None,
    cases_per_second: float = 300.0,
    run: float = 0.05,
) -> dict[str, Any]:
    failures = failures or []
    failing = {f["target"] for f in failures}
    targets = [
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
            "overhead": _overhead(run),
        }
        for name in ("classify", "payload", "ledger")
    ]
    return {
        "mode": "run",
        "iterations": 2000,
        "case_budget_ms": 2000,
        "database": ".hypothesis/fuzz",
        "targets": targets,
        "failures": failures,
        "watchdog_overhead": _overhead(run),
        "self_check": None,
        "replay": None,
        "corpus": None,
    }


def fuzz_failure(target: str = "ledger", message: str = "''") -> dict[str, Any]:
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
    *, violations: list[dict[str, Any]] | None = None, runs_per_second: float = 56.0
) -> dict[str, Any]:
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
                for scheduler, detected in (("random", 20), ("pct", 0))
            ],
        },
        "real": None,
    }


def violation(seed: int) -> dict[str, Any]:
    return {
        "seed": seed,
        "invariant": "foreign-lock",
        "message": "client 2 released a lock it did not hold",
        "replay": f"lanes torture --seed {seed} --clients 4 --ops 40",
        "schedule_file": f"envelopes/torture/seed-{seed}.json",
        "shrunk_choices": 7,
        "shrunk_ops": 5,
    }


def bench_data(*, miss: bool = True) -> dict[str, Any]:
    benchmarks = [
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
