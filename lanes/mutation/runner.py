"""Run one shard of one registry module through mutmut, in its own working copy.

Unsharded (``1/1``), the run is one plain ``mutmut run``: nothing is added to
mutmut's own cost but the copy and the reading of its files. Sharded without a
plan, mutmut has to generate every mutant before the lane can tell which
belong to this shard (the key needs the mutated text), so the run has two
mutmut calls:

1. ``mutmut run <a name no mutant has>``: generation and the test-mapping
   ("stats") phase, which mutmut caches in ``mutants/``; it stops, by design,
   because the filter matches nothing. The lane checks that the result files
   exist instead of trusting that exit status.
2. ``mutmut run NAME...`` with the shard's mutants (a SHA-256 of each key
   decides): mutmut reuses the cached mutants and test mapping, runs the clean
   suite on the tests of those mutants, then the mutants.

Every such shard repeats generation and mapping. A plan
(:mod:`lanes.mutation.planned`) does the first call once for every shard.
The pieces both use — the work copy, a mutmut call, generation, reading the
results — are here.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes.errors import LanesError
from lanes.mutation.balance import planned_shards
from lanes.mutation.planfile import STATS
from lanes.mutation.provenance import Provenance, mutmut_version
from lanes.mutation.results import MutantRecord, describe, read_results
from lanes.mutation.statuses import INCOMPLETE
from lanes.mutation.workcopy import copy_tree, mutmut_settings, source_digest, write_mutmut_settings

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from lanes.mutation.keys import MutantSource
    from lanes.mutation.settings import MutationModule
    from lanes.mutation.shard import Shard
    from lanes.payloads.mutation import MutationModuleShard, MutationSharding

__all__ = [
    "MutmutMissingError",
    "MutmutRunError",
    "ShardResult",
    "WorkCopy",
    "describe_all",
    "find_mutmut",
    "generate",
    "mutate",
    "read_shard",
    "run_shard",
    "work_copy",
]

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
    sharding: MutationSharding

    def to_dict(self) -> MutationModuleShard:
        return {
            "module": self.module,
            "shard": str(self.shard),
            "provenance": self.provenance.to_dict(),
            "generated": self.generated,
            "phases_ms": dict(self.phases_ms),
            "sharding": self.sharding,
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
    if clean:
        hint = "the module's tests fail without any mutation: run them (the registry's `tests`) and fix them first"
    elif "BadTestExecutionCommandsException" in done.stderr:
        # pytest refused the node ids of the shard's tests (exit 4): seen with
        # a parametrize over a generator, which only the first selection of
        # the test consumes, so the other ids are "not found".
        hint = (
            "pytest could not select the shard's tests by node id: make every parametrize "
            "argument a list or tuple (not a generator), or set the module's shards = 1"
        )
    else:
        hint = "run `mutmut run` in a copy of the project to see mutmut's full output"
    return MutmutRunError(msg, hint=hint)


@dataclass
class WorkCopy:
    """One module's private copy of the project, with mutmut's settings written into it."""

    root: Path
    module: MutationModule
    executable: str
    children: list[str]  # --max-children N, or nothing (mutmut's default: every CPU)
    provenance: Provenance
    tree: dict[str, str]  # what was copied: path -> digest (lanes.mutation.workcopy.copy_tree)
    phases_ms: dict[str, int] = field(default_factory=dict)

    def call(self, args: list[str]) -> subprocess.CompletedProcess[str]:
        return _mutmut(self.executable, [*self.children, *args], self.root)


@contextmanager
def work_copy(
    root: Path,
    module: MutationModule,
    *,
    timeout_multiplier: float,
    max_children: int | None = None,
    exclude: Iterable[Path] = (),
) -> Iterator[WorkCopy]:
    """A fresh copy of ``root`` (without ``exclude``) set up for ``module``; removed on exit."""
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
    with tempfile.TemporaryDirectory(prefix=f"lanes-mutation-{module.name}-") as tmp:
        copy_root = Path(tmp)
        clock = time.monotonic()
        tree = copy_tree(root, copy_root, exclude=exclude)
        write_mutmut_settings(copy_root, settings)
        copy = WorkCopy(
            root=copy_root,
            module=module,
            executable=executable,
            children=["--max-children", str(max_children)] if max_children else [],
            provenance=provenance,
            tree=tree,
        )
        copy.phases_ms["copy"] = _since(clock)
        yield copy


def _since(clock: float) -> int:
    return round((time.monotonic() - clock) * 1000)


def generate(copy: WorkCopy) -> list[MutantSource]:
    """Generate every mutant and map the tests (mutmut's cache in ``mutants/``), run none."""
    clock = time.monotonic()
    done = copy.call([_MATCHES_NOTHING])
    copy.phases_ms["generate"] = _since(clock)
    mutants = copy.root / "mutants"
    if (
        not all((mutants / f"{p}.meta").is_file() for p in copy.module.paths)
        or not (mutants / STATS).is_file()
    ):
        raise _failed(copy.module.name, "generate mutants and map the tests", done)
    return describe_all(copy.root, copy.module)


def mutate(copy: WorkCopy, names: list[str] | None) -> None:
    """Run the mutants ``names`` (every one not yet checked when None); raise if mutmut fails."""
    if names == []:
        return
    clock = time.monotonic()
    done = copy.call(names or [])
    copy.phases_ms["mutate"] = _since(clock)
    if done.returncode != 0:
        raise _failed(copy.module.name, "run" if names is None else "run the shard's mutants", done)


def read_shard(
    copy: WorkCopy,
    shard: Shard,
    sources: list[MutantSource],
    names: list[str] | None,
    sharding: MutationSharding,
) -> ShardResult:
    """The shard's result from mutmut's files; an unchecked mutant makes it an error."""
    clock = time.monotonic()
    records = read_results(copy.root, sources, names=names)
    copy.phases_ms["read"] = _since(clock)
    unfinished = [record.name for record in records if record.status in INCOMPLETE]
    if unfinished:
        msg = (
            f"mutmut stopped before checking {len(unfinished)} mutant(s) of module "
            f"{copy.module.name!r}, e.g. {unfinished[0]}"
        )
        raise MutmutRunError(msg, hint="re-run the shard; a partial shard is never scored")
    return ShardResult(
        module=copy.module.name,
        shard=shard,
        provenance=copy.provenance,
        mutants=tuple(records),
        generated=len(sources),
        phases_ms=dict(copy.phases_ms),
        sharding=sharding,
    )


def run_shard(
    root: Path,
    module: MutationModule,
    shard: Shard,
    *,
    timeout_multiplier: float,
    shard_threshold: int = 1,
    max_children: int | None = None,
    exclude: Iterable[Path] = (),
) -> ShardResult:
    """Mutate ``module`` (only ``shard`` of its mutants, chosen by hash) in a copy of ``root``.

    A module with fewer than ``shard_threshold`` mutants is not split: shard 1
    runs every mutant and the others none, and their ``sharding.note`` says so.
    """
    with work_copy(
        root,
        module,
        timeout_multiplier=timeout_multiplier,
        max_children=max_children,
        exclude=exclude,
    ) as copy:
        sharding: MutationSharding = {
            "strategy": "whole" if shard.count == 1 else "hash",
            "plan": None,
            "plan_ms": 0,
            "estimated_ms": 0,
            "note": "",
        }
        if shard.count == 1:
            mutate(copy, None)
            return read_shard(copy, shard, describe_all(copy.root, module), None, sharding)
        sources = generate(copy)
        count, note = planned_shards(len(sources), shard.count, shard_threshold)
        if count == 1:
            chosen = [source.name for source in sources] if shard.index == 1 else []
            sharding["strategy"] = "whole"
        else:
            chosen = [source.name for source in sources if shard.holds(source.key)]
        sharding["note"] = note
        mutate(copy, chosen)
        return read_shard(copy, shard, sources, chosen, sharding)


def describe_all(copy_root: Path, module: MutationModule) -> list[MutantSource]:
    """Every mutant of ``module`` in the work copy, described (key, function, diff)."""
    sources: list[MutantSource] = []
    for path in module.paths:
        sources.extend(describe(copy_root, path).values())
    return sources
