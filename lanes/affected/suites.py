"""What a plan runs: one pytest command per suite holding selected files, and the gates.

A file the map narrowed is named by its test ids (``path::test``); a large
selection gets xdist's workers only when the project runs its suite under
xdist: large by the time its tests took in the recorded map, else by its
file count. Gates (lint, type check) fire for their input patterns, whatever
else the plan selects.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lanes.affected.rules import Reason, matches, under
from lanes.affected.settings import Gate

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.affected.changes import Changes
    from lanes.affected.rules import Project
    from lanes.affected.testmap import TestMap
    from lanes.payloads.affected import AffectedSuite

__all__ = [
    "PARALLEL_FROM",
    "PARALLEL_SECONDS",
    "RecordedTimes",
    "SuiteRun",
    "plan_gates",
    "runs_xdist",
    "suite_runs",
]


@dataclass
class SuiteRun:
    name: str
    command: list[str]
    files: list[str]
    full: bool
    # The test ids the command names instead of their files (a file narrowed by the map).
    nodes: list[str] = field(default_factory=list)

    def to_dict(self) -> AffectedSuite:
        entry: AffectedSuite = {
            "name": self.name,
            "command": self.command,
            "files": self.files,
            "full": self.full,
        }
        if self.nodes:
            entry["nodes"] = self.nodes
        return entry


@dataclass(frozen=True)
class RecordedTimes:
    """How long each recorded test ran (the map's per-test ``ms``): what a
    selection will take serially, to choose whether workers pay for themselves."""

    by_id: dict[str, int]
    by_file: dict[str, int]

    @classmethod
    def of(cls, test_map: TestMap | None) -> RecordedTimes | None:
        """None: no map, or one recorded without durations (before version 6)."""
        tests = test_map.document["tests"] if test_map is not None else []
        if not tests or any("ms" not in test for test in tests):
            return None
        by_id: dict[str, int] = {}
        by_file: dict[str, int] = {}
        for test in tests:
            by_id[test["id"]] = test["ms"]
            by_file[test["file"]] = by_file.get(test["file"], 0) + test["ms"]
        return cls(by_id, by_file)

    def seconds(self, whole: list[str], ids: list[str]) -> float | None:
        """The serial run time of whole files and single tests; None: the map
        never recorded one of them (a new file, a new test)."""
        if any(f not in self.by_file for f in whole) or any(i not in self.by_id for i in ids):
            return None
        return (sum(self.by_file[f] for f in whole) + sum(self.by_id[i] for i in ids)) / 1000


def suite_runs(
    project: Project,
    tests: list[str],
    nodes: dict[str, list[str]],
    *,
    full: bool,
    times: RecordedTimes | None = None,
) -> list[SuiteRun]:
    """One run per suite holding selected files; a file narrowed by the map is named
    by its test ids (``path::test``), pytest's own way to run part of a file.
    ``times``: the recorded map's durations, which size each run."""

    parallel = runs_xdist(project.config.root)

    def narrowed(name: str, argv: list[str], files: list[str]) -> SuiteRun:
        """``argv`` on the selected files: whole ones by path, narrowed ones by id."""
        ids = [node for f in files for node in nodes.get(f, ())]
        whole = [f for f in files if f not in nodes]
        seconds = times.seconds(whole, ids) if times is not None else None
        command = [*_parallel(argv, files, seconds, suite_parallel=parallel), *whole, *ids]
        return SuiteRun(name, command, files, False, ids)

    runs: list[SuiteRun] = []
    claimed: set[str] = set()
    for suite in project.suites.values():
        argv = shlex.split(suite.command)
        if full:
            runs.append(SuiteRun(suite.name, argv, [], full=True))
            continue
        files = [t for t in tests if t not in claimed and any(under(t, p) for p in suite.paths)]
        if not files or suite.runner != "pytest":
            continue
        claimed.update(files)
        # The suite's own options, its path selectors replaced by the selected files.
        kept = [arg for arg in argv if arg.rstrip("/") not in {p.rstrip("/") for p in suite.paths}]
        runs.append(narrowed(suite.name, kept, files))
    rest = [t for t in tests if t not in claimed]
    if rest and not full:
        runs.append(narrowed("(no suite)", ["pytest"], rest))
    return runs


# Without recorded durations: from this many selected files on, a serial run
# costs more than starting xdist's workers (38 files ran serially in 270 s; the
# full suite at -n 2, 106-350 s).
PARALLEL_FROM = 8
# With them: from this many seconds of recorded test time on. Each worker
# imports and collects what the selection needs before its first test: on attrs
# (a 12 s suite) all 24 files under -n auto cost 21-26 s of CPU and 23 s of wall
# against 11-12 s and 12.5 s serially, on two cores. Below a minute, workers buy
# little wall time for their CPU.
PARALLEL_SECONDS = 60.0

# Where a project says it runs its suite under xdist.
_PARALLEL_SOURCES = ("pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", "noxfile.py")


def runs_xdist(root: Path) -> bool:
    """Whether the project runs its own suite under pytest-xdist (names it in its config)."""
    for name in _PARALLEL_SOURCES:
        try:
            text = (root / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "xdist" in text or "numprocesses" in text:
            return True
    return False


def _parallel(
    argv: list[str], files: list[str], seconds: float | None, *, suite_parallel: bool
) -> list[str]:
    """The suite's own parallelism: xdist's ``-n auto`` for a large selection, when the
    project runs its suite under xdist, xdist is installed and the command does not
    choose already. A project that runs serially stays serial: xdist's workers buy
    wall time with CPU (toolz's 12 files under -n auto cost 2.5x its serial full run).
    Large: ``seconds`` (its recorded serial time) from :data:`PARALLEL_SECONDS`
    on, else (no durations) :data:`PARALLEL_FROM` files."""
    import importlib.util  # noqa: PLC0415  # only when a plan runs suites

    chooses = any(
        a in ("-n", "--numprocesses") or a.startswith(("-n", "--numprocesses=")) for a in argv
    )
    if (
        chooses
        or not suite_parallel
        or (len(files) < PARALLEL_FROM if seconds is None else seconds < PARALLEL_SECONDS)
        or importlib.util.find_spec("xdist") is None
    ):
        return argv
    return [*argv, "-n", "auto"]


def _gates(project: Project) -> dict[str, Gate]:
    configured = project.config.affected.gates
    if configured is not None:
        return dict(configured)
    # Derived: a project whose noxfile has a `lint` session runs it for Python changes.
    noxfile = project.config.root / "noxfile.py"
    try:
        text = noxfile.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    if "def lint(" not in text:
        return {}
    inputs = ("*.py", "*.pyi", "pyproject.toml", "setup.cfg", "noxfile.py")
    return {"lint": Gate(name="lint", command="nox -s lint", inputs=inputs)}


def plan_gates(
    project: Project, changes: Changes, full_reasons: list[Reason]
) -> dict[str, tuple[Gate, list[Reason]]]:
    """The gates the changed paths fire (every gate for the full set), one reason per path."""
    full = bool(full_reasons)
    gates: dict[str, tuple[Gate, list[Reason]]] = {}
    for name, gate in _gates(project).items():
        reasons = [
            Reason("gate", path, f"matches {pattern}")
            for path in sorted(changes.paths)
            for pattern in gate.inputs
            if matches(path, pattern)
        ]
        if full and not reasons:
            reasons = [Reason("full", full_reasons[0].changed, "the full set includes every gate")]
        if reasons:
            # One reason per changed path is enough to explain the gate.
            seen: dict[str, Reason] = {}
            for reason in reasons:
                seen.setdefault(reason.changed, reason)
            gates[name] = (gate, list(seen.values()))
    return gates
