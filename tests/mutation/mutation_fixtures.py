"""Fixtures shared by the mutation lane's tests: mutmut's files as it writes them, and shard envelopes."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from lanes.config import parse_config
from lanes.envelope import lane_run
from lanes.mutation.provenance import Provenance

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.payloads.mutation import (
        MutationMerged,
        MutationMergedModule,
        MutationModuleShard,
        MutationMutant,
        MutationProvenance,
        MutationShardRun,
        MutationStatus,
    )

ORIGINAL = """\
def clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return high
    return value


class Counter:
    def bump(self, n):
        return n + 1
"""

# mutants/pkg/calc.py as mutmut 3.8.1 wrote it for ORIGINAL (trampolines trimmed).
MUTATED = """\
from mutmut.mutation.trampoline import wrap_in_trampoline as _mutmut_mutated, MutantDict
mutants_x_clamp__mutmut: MutantDict = {}  # type: ignore
@_mutmut_mutated(mutants_x_clamp__mutmut)
def clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return high
    return value
def x_clamp__mutmut_orig(value, low, high):
    if value < low:
        return low
    if value > high:
        return high
    return value
def x_clamp__mutmut_1(value, low, high):
    if value <= low:
        return low
    if value > high:
        return high
    return value
def x_clamp__mutmut_2(value, low, high):
    if value < low:
        return low
    if value >= high:
        return high
    return value
mutants_xǁCounterǁbump__mutmut: MutantDict = {}  # type: ignore


class Counter:
    @_mutmut_mutated(mutants_xǁCounterǁbump__mutmut)
    def bump(self, n):
        return n + 1
    def xǁCounterǁbump__mutmut_orig(self, n):
        return n + 1
    def xǁCounterǁbump__mutmut_1(self, n):
        return n - 1
    def xǁCounterǁbump__mutmut_2(self, n):
        return n + 2
"""

NAMES = (
    "pkg.calc.x_clamp__mutmut_1",
    "pkg.calc.x_clamp__mutmut_2",
    "pkg.calc.xǁCounterǁbump__mutmut_1",
    "pkg.calc.xǁCounterǁbump__mutmut_2",
)

PROVENANCE: MutationProvenance = {
    "mutmut": "3.8.1",
    "lanekit": "0.1.0",
    "python": "3.11",
    "registry_hash": "sha256:" + "a" * 64,
    "mutmut_config_hash": "sha256:" + "b" * 64,
    "source_digest": "sha256:" + "c" * 64,
}


def mutant(key: str, status: MutationStatus = "killed") -> MutationMutant:
    return {
        "key": key,
        "name": f"pkg.calc.x_f__mutmut_{abs(hash(key)) % 1000}",
        "path": "pkg/calc.py",
        "function": "f",
        "line": 2,
        "status": status,
        "duration_ms": 10,
        "diff": f"--- a/pkg/calc.py\n+++ b/pkg/calc.py\n@@ -2 +2 @@\n-old {key}\n+new {key}",
        "original": "old",
        "replacement": "new",
        "tests": ["tests/test_calc.py::test_f"] if status != "killed" else [],
        "tests_total": 1 if status != "killed" else 0,
    }


def shard_data(
    module: str, shard: str, mutants: list[MutationMutant], *, generated: int, **provenance: str
) -> MutationModuleShard:
    return {
        "module": module,
        "shard": shard,
        "provenance": Provenance.from_dict({**PROVENANCE, **provenance}).to_dict(),
        "generated": generated,
        "phases_ms": {"copy": 5, "mutate": 100, "read": 1},
        "sharding": {
            "strategy": "hash" if shard != "1/1" else "whole",
            "plan": None,
            "plan_ms": 0,
            "estimated_ms": 0,
            "note": "",
        },
        "mutants": mutants,
    }


def write_shard_envelope(
    path: Path, shards: list[MutationModuleShard], *, crash: bool = False, lane: str = "mutation"
) -> Path:
    """A shard envelope written by the real envelope writer (optionally crashing mid-run)."""
    config = parse_config({}, root=path.parent)
    with contextlib.suppress(RuntimeError), lane_run(lane, config=config, path=path) as run:
        payload: MutationShardRun = {
            "kind": "shard",
            "shard": shards[0]["shard"] if shards else "1/1",
            "shards": [] if crash else shards,
        }
        run.publish(payload)
        if crash:
            msg = "mutmut died"
            raise RuntimeError(msg)
        run.verdict(passed=True)
    return path


# A project whose registry has the module the fixtures' mutants belong to.
LOCK_PYPROJECT = '[tool.lanes.mutation.modules.lock]\npaths = ["pkg/calc.py"]\n'


def write_merged_envelope(path: Path, modules: dict[str, MutationMergedModule]) -> Path:
    """A merged envelope as `lanes mutation merge` writes it, holding ``modules`` as given."""
    config = parse_config({}, root=path.parent)
    with lane_run("mutation", config=config, path=path) as run:
        payload: MutationMerged = {
            "kind": "merged",
            "expect_shards": 1,
            "shard_files": [],
            "shard_group_id": "sweep-1",
            "problems": [],
            "modules": modules,
        }
        run.publish(payload)
        run.verdict(passed=True)
    return path


# A two-shard sweep of one module, for the merge's tests: the project's
# [tool.lanes.mutation.modules] (module -> the files it mutates) and each
# shard's mutants.
REGISTRY = {"lock": ("pkg/calc.py",)}
FIRST = [mutant("k1"), mutant("k2", "survived")]
SECOND = [mutant("k3", "timeout"), mutant("k4", "skipped")]
