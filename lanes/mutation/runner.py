"""Run one shard of one registry module through mutmut, in its own working copy.

Unsharded (``1/1``), the run is one plain ``mutmut run``: nothing is added to
mutmut's own cost but the copy and the reading of its files. Sharded, mutmut
has to generate every mutant before the lane can tell which belong to this
shard (the key needs the mutated text), so the run has two mutmut calls:

1. ``mutmut run <a name no mutant has>``: generation and the test-mapping
   ("stats") phase, which mutmut caches in ``mutants/``; it stops, by design,
   because the filter matches nothing. The lane checks that the result files
   exist instead of trusting that exit status.
2. ``mutmut run NAME...`` with the shard's mutants: mutmut reuses the cached
   mutants and test mapping, runs the clean suite on the tests of those
   mutants, then the mutants.

Every shard repeats generation and mapping: that is the price of sharding
(docs/explanation/measurements.md gives the measured figure).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes.errors import LanesError
from lanes.mutation.provenance import Provenance, mutmut_version
from lanes.mutation.results import MutantRecord, describe, read_results
from lanes.mutation.statuses import INCOMPLETE
from lanes.mutation.workcopy import copy_tree, mutmut_settings, source_digest, write_mutmut_settings

if TYPE_CHECKING:
    from lanes.mutation.keys import MutantSource
    from lanes.mutation.settings import MutationModule
    from lanes.mutation.shard import Shard
    from lanes.payloads.mutation import MutationModuleShard

__all__ = ["MutmutMissingError", "MutmutRunError", "ShardResult", "find_mutmut", "run_shard"]

# A mutant name no mutmut generates: the filter of the generate-only call.
_MATCHES_NOTHING: Final = "lanes.mutation.generate-only.__mutmut_0"
_OUTPUT_TAIL: Final = 40


class MutmutMissingError(LanesError, RuntimeError):
    """mutmut is not installed where the lane runs."""


class MutmutRunError(LanesError, RuntimeError):
    """mutmut could not complete: the clean run failed, or it stopped early."""


@dataclass(frozen=True)
class ShardResult:
    module: str
    shard: Shard
    provenance: Provenance
    mutants: tuple[MutantRecord, ...]
    generated: int  # every mutant of the module (all shards)
    phases_ms: dict[str, int]

    def to_dict(self) -> MutationModuleShard:
        return {
            "module": self.module,
            "shard": str(self.shard),
            "provenance": self.provenance.to_dict(),
            "generated": self.generated,
            "phases_ms": dict(self.phases_ms),
            "mutants": [mutant.to_dict() for mutant in self.mutants],
        }


def find_mutmut() -> tuple[str, str]:
    """The ``mutmut`` executable next to this interpreter (or on PATH) and its version."""
    version = mutmut_version()
    beside = Path(sys.executable).with_name("mutmut")
    executable = str(beside) if beside.is_file() else shutil.which("mutmut")
    if version is None or executable is None or importlib.util.find_spec("mutmut") is None:
        msg = f"mutmut is not installed in {sys.prefix} (the mutation lane runs it)"
        raise MutmutMissingError(msg, hint="pip install 'lanekit[mutation]'")
    return executable, version


def _tail(output: str) -> str:
    lines = [line for line in output.replace("\r", "\n").splitlines() if line.strip()]
    return "\n".join(lines[-_OUTPUT_TAIL:])


def _mutmut(executable: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    # An outer pytest session (the lane run from a test, or under xdist) must
    # not leak into the mutant runs: its options, its coverage hook, or the
    # xdist worker markers that make plugins think they run inside a worker.
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("PYTEST_XDIST_", "COV_CORE_"))
        and name not in ("PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST")
    }
    return subprocess.run(
        [executable, "run", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
    )


def _failed(module: str, what: str, done: subprocess.CompletedProcess[str]) -> MutmutRunError:
    output = _tail(done.stdout + "\n" + done.stderr)
    # mutmut's own words when the suite fails before any mutant is applied.
    clean = "Failed to run clean test" in done.stdout or "failed to collect stats" in done.stdout
    msg = f"mutmut could not {what} for module {module!r} (exit {done.returncode}):\n{output}"
    hint = (
        "the module's tests fail without any mutation: run them (the registry's `tests`) and fix them first"
        if clean
        else "run `mutmut run` in a copy of the project to see mutmut's full output"
    )
    return MutmutRunError(msg, hint=hint)


def run_shard(
    root: Path,
    module: MutationModule,
    shard: Shard,
    *,
    timeout_multiplier: float,
    max_children: int | None = None,
) -> ShardResult:
    """Mutate ``module`` (only ``shard`` of its mutants) in a copy of ``root``."""
    executable, version = find_mutmut()
    for path in module.paths:
        if not (root / path).is_file():
            msg = f"module {module.name!r}: {path!r} does not exist under {root}"
            raise MutmutRunError(
                msg, hint=f"fix paths in [tool.lanes.mutation.modules.{module.name}]"
            )
    settings = mutmut_settings(
        root,
        module,
        timeout_multiplier=timeout_multiplier,
        xdist=importlib.util.find_spec("xdist") is not None,
    )
    provenance = Provenance.measure(
        module,
        mutmut=version,
        mutmut_settings=settings,
        source_digest=source_digest(root, module.paths),
    )
    children = ["--max-children", str(max_children)] if max_children else []
    phases: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix=f"lanes-mutation-{module.name}-") as tmp:
        copy_root = Path(tmp)
        clock = time.monotonic()
        copy_tree(root, copy_root)
        write_mutmut_settings(copy_root, settings)
        phases["copy"] = round((time.monotonic() - clock) * 1000)
        chosen: list[str] | None = None
        if shard.count > 1:
            clock = time.monotonic()
            done = _mutmut(executable, [*children, _MATCHES_NOTHING], copy_root)
            phases["generate"] = round((time.monotonic() - clock) * 1000)
            if (
                not all((copy_root / "mutants" / f"{p}.meta").is_file() for p in module.paths)
                or not (copy_root / "mutants" / "mutmut-stats.json").is_file()
            ):
                raise _failed(module.name, "generate mutants and map the tests", done)
            sources = _describe_all(copy_root, module)
            chosen = [source.name for source in sources if shard.holds(source.key)]
            if chosen:
                clock = time.monotonic()
                done = _mutmut(executable, [*children, *chosen], copy_root)
                phases["mutate"] = round((time.monotonic() - clock) * 1000)
                if done.returncode != 0:
                    raise _failed(module.name, "run the shard's mutants", done)
        else:
            clock = time.monotonic()
            done = _mutmut(executable, children, copy_root)
            phases["mutate"] = round((time.monotonic() - clock) * 1000)
            if done.returncode != 0:
                raise _failed(module.name, "run", done)
            sources = _describe_all(copy_root, module)
        clock = time.monotonic()
        records = read_results(copy_root, sources, names=chosen)
        phases["read"] = round((time.monotonic() - clock) * 1000)
    unfinished = [record.name for record in records if record.status in INCOMPLETE]
    if unfinished:
        msg = (
            f"mutmut stopped before checking {len(unfinished)} mutant(s) of module "
            f"{module.name!r}, e.g. {unfinished[0]}"
        )
        raise MutmutRunError(msg, hint="re-run the shard; a partial shard is never scored")
    return ShardResult(
        module=module.name,
        shard=shard,
        provenance=provenance,
        mutants=tuple(records),
        generated=len(sources),
        phases_ms=phases,
    )


def _describe_all(copy_root: Path, module: MutationModule) -> list[MutantSource]:
    sources: list[MutantSource] = []
    for path in module.paths:
        sources.extend(describe(copy_root, path).values())
    return sources
