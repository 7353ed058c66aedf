"""``baselines/mutation.json``: the reviewed high-water mark per module, read strictly, written atomically.

::

    {"format": "lanekit.mutation-baseline", "version": 1,
     "modules": {"lock": {
        "score": 0.91, "total": 120, "counts": {"killed": 104, ...},
        "provenance": {"mutmut": "3.8.1", "lanekit": "0.1.0", "python": "3.11",
                       "registry_hash": "sha256:...", "mutmut_config_hash": "sha256:...",
                       "source_digest": "sha256:..."},
        "stable_runs": 2, "sweep": "github-1234-1",
        "mutants": {"<key>": "killed", ...},
        "equivalent": {"<key>": "why no test can tell this mutant from the original"}}}}

``stable_runs`` is the graduation count: consecutive comparable passing
sweeps. ``equivalent`` is written by a person: survivors that are not bugs in
the tests (the mutant behaves exactly like the original); they leave the
score's denominator. The lane only ever proposes a new file; a person reviews
and commits it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from lanes._atomic import flocked_directory, write_atomic
from lanes._jsondoc import load_object
from lanes.errors import StateError
from lanes.mutation.provenance import FIELDS, Provenance
from lanes.mutation.statuses import Status

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.payloads.mutation import MutationBaselineDocument, MutationBaselineModule

__all__ = [
    "FORMAT",
    "Baseline",
    "ModuleBaseline",
    "parse_baseline",
    "read_baseline",
    "write_baseline",
]

FORMAT: Final = "lanekit.mutation-baseline"
VERSION: Final = 1
_STATUSES: Final = frozenset(status.value for status in Status)


@dataclass(frozen=True)
class ModuleBaseline:
    score: float | None
    total: int
    counts: dict[str, int]
    provenance: dict[str, str]
    stable_runs: int
    mutants: dict[str, str]  # key -> status value
    equivalent: dict[str, str] = field(default_factory=dict)  # key -> reason
    # The group_id of the sweep these results came from: checking the same
    # sweep twice must not count two stable runs.
    sweep: str = ""

    def to_dict(self) -> MutationBaselineModule:
        return {
            "score": self.score,
            "total": self.total,
            "counts": dict(sorted(self.counts.items())),
            "provenance": Provenance.from_dict(self.provenance).to_dict(),
            "stable_runs": self.stable_runs,
            "mutants": dict(sorted(self.mutants.items())),
            "equivalent": dict(sorted(self.equivalent.items())),
            "sweep": self.sweep,
        }


@dataclass(frozen=True)
class Baseline:
    modules: dict[str, ModuleBaseline] = field(default_factory=dict)

    def to_dict(self) -> MutationBaselineDocument:
        return {
            "format": FORMAT,
            "version": VERSION,
            "modules": {name: self.modules[name].to_dict() for name in sorted(self.modules)},
        }


def _bad(path: Path, what: str) -> StateError:
    return StateError(
        f"{path}: {what}",
        hint="restore the file from git (git checkout -- baselines/mutation.json), or delete it "
        "and write a new one with `lanes mutation baseline`",
    )


def _module(path: Path, name: str, raw: object) -> ModuleBaseline:
    where = f"modules.{name}"
    if not isinstance(raw, dict):
        raise _bad(path, f"{where} must be an object, got {raw!r:.80}")
    score = raw.get("score")
    if score is not None and (
        isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1
    ):
        raise _bad(path, f"{where}.score must be a number in [0, 1] or null, got {score!r}")
    stable = raw.get("stable_runs", 0)
    if isinstance(stable, bool) or not isinstance(stable, int) or stable < 0:
        raise _bad(path, f"{where}.stable_runs must be an integer >= 0, got {stable!r}")
    provenance = raw.get("provenance", {})
    if not isinstance(provenance, dict) or not all(
        isinstance(provenance.get(f), str) for f in FIELDS
    ):
        raise _bad(path, f"{where}.provenance must hold the strings {', '.join(FIELDS)}")
    mutants = raw.get("mutants", {})
    if not isinstance(mutants, dict) or not all(
        isinstance(k, str) and v in _STATUSES for k, v in mutants.items()
    ):
        raise _bad(path, f"{where}.mutants must map mutant keys to mutmut statuses")
    equivalent = raw.get("equivalent", {})
    if not isinstance(equivalent, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in equivalent.items()
    ):
        raise _bad(path, f"{where}.equivalent must map mutant keys to a non-empty reason")
    counts = raw.get("counts", {})
    if not isinstance(counts, dict) or not all(
        k in _STATUSES and isinstance(v, int) and not isinstance(v, bool) for k, v in counts.items()
    ):
        raise _bad(path, f"{where}.counts must map mutmut statuses to integers")
    sweep = raw.get("sweep", "")
    if not isinstance(sweep, str):
        raise _bad(path, f"{where}.sweep must be a string, got {sweep!r}")
    total = raw.get("total", len(mutants))
    if isinstance(total, bool) or not isinstance(total, int) or total < 0:
        raise _bad(path, f"{where}.total must be an integer >= 0, got {total!r}")
    return ModuleBaseline(
        score=None if score is None else float(score),
        total=total,
        counts=dict(counts),
        provenance={f: str(provenance[f]) for f in FIELDS},
        stable_runs=stable,
        mutants=dict(mutants),
        equivalent=dict(equivalent),
        sweep=sweep,
    )


def read_baseline(path: Path) -> Baseline:
    """The committed baseline; an absent file is an empty baseline (every module is new)."""
    # The one strict reader: a FIFO, a huge or deeply nested file is a typed error.
    raw = load_object(
        path,
        what="the file",
        fail=lambda why: _bad(path, why.removeprefix("the file ")),
        follow_symlinks=True,
    )
    return Baseline() if raw is None else parse_baseline(raw, path)


def parse_baseline(raw: object, path: Path) -> Baseline:
    """Validate a baseline document already parsed from JSON (``path`` names it in errors)."""
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise _bad(path, f"is not a mutation baseline (format must be {FORMAT!r})")
    if raw.get("version") != VERSION:
        raise _bad(
            path, f"has version {raw.get('version')!r}; this lanekit reads version {VERSION}"
        )
    modules = raw.get("modules", {})
    if not isinstance(modules, dict):
        raise _bad(path, "modules must be an object")
    return Baseline({str(name): _module(path, str(name), entry) for name, entry in modules.items()})


def write_baseline(path: Path, baseline: Baseline) -> None:
    """Replace the baseline atomically, under the baselines directory's lock (as every lane does)."""
    with flocked_directory(path.parent):
        write_atomic(path, json.dumps(baseline.to_dict(), indent=2, ensure_ascii=False) + "\n")
