"""Read one mutmut run's result files into the lane's mutant records.

mutmut keeps, next to each mutated file, ``mutants/<path>.meta`` (JSON:
``exit_code_by_key`` — mutant name -> the exit code of its test run, ``null``
until checked — and ``durations_by_key`` in seconds), and for the whole run
``mutants/mutmut-stats.json`` (``tests_by_mangled_function_name``: which tests
ran each function while the suite was mapped). The statuses come from those
codes (:mod:`lanes.mutation.statuses`), never from ``mutmut run``'s exit
status, which is 0 even when mutants survive.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from lanes.mutation.keys import MutantSource, describe_mutants
from lanes.mutation.statuses import DETECTED, Status, status_from_exit_code, status_name

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from lanes.payloads.mutation import MutationMutant

__all__ = ["MutantRecord", "mutant_names", "read_results"]

# A survivor's record lists the tests that ran against it; a popular function
# can have hundreds, and the first ones are enough to start from.
MAX_TESTS_LISTED: Final = 20


@dataclass(frozen=True)
class MutantRecord:
    """One mutant as the lane reports it: identity, verdict, cost, and what to read."""

    key: str
    name: str
    path: str
    function: str
    line: int | None
    status: Status
    duration_ms: int
    diff: str
    original: str
    replacement: str
    tests: tuple[str, ...] = field(default=())
    tests_total: int = 0

    def to_dict(self) -> MutationMutant:
        return {
            "key": self.key,
            "name": self.name,
            "path": self.path,
            "function": self.function,
            "line": self.line,
            "status": status_name(self.status),
            "duration_ms": self.duration_ms,
            "diff": self.diff,
            "original": self.original,
            "replacement": self.replacement,
            "tests": list(self.tests),
            "tests_total": self.tests_total,
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> MutantRecord:
        return cls(
            key=str(raw["key"]),
            name=str(raw["name"]),
            path=str(raw["path"]),
            function=str(raw["function"]),
            line=raw.get("line"),
            status=Status(raw["status"]),
            duration_ms=int(raw["duration_ms"]),
            diff=str(raw["diff"]),
            original=str(raw.get("original", "")),
            replacement=str(raw.get("replacement", "")),
            tests=tuple(raw.get("tests", ())),
            tests_total=int(raw.get("tests_total", 0)),
        )


def _meta(copy_root: Path, path: str) -> dict[str, Any]:
    meta_path = copy_root / "mutants" / f"{path}.meta"
    loaded: dict[str, Any] = json.loads(meta_path.read_text(encoding="utf-8"))
    return loaded


def mutant_names(copy_root: Path, path: str) -> list[str]:
    """mutmut's names of every mutant of ``path`` (after generation)."""
    return list(_meta(copy_root, path)["exit_code_by_key"])


def describe(copy_root: Path, path: str) -> dict[str, MutantSource]:
    """Key, function, line and diff of every mutant of ``path``."""
    return describe_mutants(
        path,
        (copy_root / path).read_text(encoding="utf-8"),
        (copy_root / "mutants" / path).read_text(encoding="utf-8"),
        mutant_names(copy_root, path),
    )


def _tests_by_function(copy_root: Path) -> dict[str, list[str]]:
    stats_path = copy_root / "mutants" / "mutmut-stats.json"
    try:
        stats = json.loads(stats_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    raw = stats.get("tests_by_mangled_function_name", {})
    return {str(name): sorted(map(str, tests)) for name, tests in raw.items()}


def read_results(
    copy_root: Path, sources: Iterable[MutantSource], *, names: Iterable[str] | None = None
) -> list[MutantRecord]:
    """The records of ``sources`` (only ``names`` of them when given), from the copy's results."""
    wanted = None if names is None else set(names)
    tests_by_function = _tests_by_function(copy_root)
    metas: dict[str, dict[str, Any]] = {}
    records: list[MutantRecord] = []
    for source in sources:
        if wanted is not None and source.name not in wanted:
            continue
        meta = metas.get(source.path)
        if meta is None:
            meta = metas[source.path] = _meta(copy_root, source.path)
        status = status_from_exit_code(meta["exit_code_by_key"].get(source.name))
        seconds = meta.get("durations_by_key", {}).get(source.name) or 0.0
        tests: list[str] = []
        if status not in DETECTED:
            tests = tests_by_function.get(source.name.rpartition("__mutmut_")[0], [])
        records.append(
            MutantRecord(
                key=source.key,
                name=source.name,
                path=source.path,
                function=source.function,
                line=source.line,
                status=status,
                duration_ms=round(float(seconds) * 1000),
                diff=source.diff,
                original=source.original,
                replacement=source.replacement,
                tests=tuple(tests[:MAX_TESTS_LISTED]),
                tests_total=len(tests),
            )
        )
    records.sort(key=lambda record: record.key)
    return records
