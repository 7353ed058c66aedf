"""What a plan runs: one pytest command per suite holding selected files, and the gates.

A file the map narrowed is named by its test ids (``path::test``); a large
selection gets xdist's workers only when the project runs its suite under
xdist. Gates (lint, type check) fire for their input patterns, whatever else
the plan selects.
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
    from lanes.payloads.affected import AffectedSuite

__all__ = ["PARALLEL_FROM", "SuiteRun", "plan_gates", "runs_xdist", "suite_runs"]


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


def suite_runs(
    project: Project, tests: list[str], nodes: dict[str, list[str]], *, full: bool
) -> list[SuiteRun]:
    """One run per suite holding selected files; a file narrowed by the map is named
    by its test ids (``path::test``), pytest's own way to run part of a file."""

    def args(files: list[str]) -> tuple[list[str], list[str]]:
        ids = [node for f in files for node in nodes.get(f, ())]
        return [f for f in files if f not in nodes], ids

    runs: list[SuiteRun] = []
    claimed: set[str] = set()
    parallel = runs_xdist(project.config.root)
    for suite in project.config.suites.values():
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
        whole, ids = args(files)
        runs.append(
            SuiteRun(
                suite.name,
                [*_parallel(kept, files, suite_parallel=parallel), *whole, *ids],
                files,
                False,
                ids,
            )
        )
    rest = [t for t in tests if t not in claimed]
    if rest and not full:
        whole, ids = args(rest)
        runs.append(
            SuiteRun(
                "(no suite)",
                [*_parallel(["pytest"], rest, suite_parallel=parallel), *whole, *ids],
                rest,
                False,
                ids,
            )
        )
    return runs


# From this many selected files on, a serial run costs more than starting
# xdist's workers (38 files ran serially in 270 s; the full suite at -n 2, 106-350 s).
PARALLEL_FROM = 8

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


def _parallel(argv: list[str], files: list[str], *, suite_parallel: bool) -> list[str]:
    """The suite's own parallelism: xdist's ``-n auto`` for a large selection, when the
    project runs its suite under xdist, xdist is installed and the command does not
    choose already. A project that runs serially stays serial: xdist's workers buy
    wall time with CPU (toolz's 12 files under -n auto cost 2.5x its serial full run)."""
    import importlib.util  # noqa: PLC0415  # only when a plan runs suites

    chooses = any(
        a in ("-n", "--numprocesses") or a.startswith(("-n", "--numprocesses=")) for a in argv
    )
    if (
        chooses
        or not suite_parallel
        or len(files) < PARALLEL_FROM
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
