"""Merge shard envelopes into module scores, or refuse: never a partial or zero score.

A merge fails, naming each problem, when a shard is

- missing: a module's shards ``1..N`` are not all there, or fewer (module,
  shard) pairs arrived than ``--expect-shards`` says the matrix started;
- duplicated: the same module and shard twice (a re-run job uploaded twice);
- crashed: its envelope says ``stage: "error"`` or it has no verdict;
- foreign: another lane's envelope, another ``group_id`` (an older CI run's
  artifact), another commit, or a registry entry / mutmut configuration /
  source digest that differs from its siblings';
- outside the registry: a module the project's ``[tool.lanes.mutation.modules]``
  does not list, or a mutant whose ``path`` is not one of its module's
  registry paths. A shard is a file someone else wrote (a CI artifact): the
  check reads each mutant's source file into the uploaded report, so a path
  is never taken from it unconfined (``/proc/self/environ``);
- malformed: a shard spec that is not ``I/N`` with ``1 <= I <= N <= MAX_SHARDS``
  (``1/100000000000`` once made the merge enumerate every index).

- from different plans: the shards of a module chose their mutants by
  different rules (a plan's cost balance, a hash) or from different plans,
  so their sets need not add up.

Completeness is also checked from the inside: every shard of a module reports
how many mutants mutmut generated for the whole module, and the shards' mutant
keys must be disjoint and add up to exactly that number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lanes.envelope import read_envelope, validate_envelope
from lanes.errors import LanesError, UsageError
from lanes.mutation.provenance import Provenance
from lanes.mutation.results import MutantRecord
from lanes.mutation.shard import parse_shard
from lanes.mutation.statuses import counts_by_status, counts_document, score

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from pathlib import Path

    from lanes.config import Config
    from lanes.payloads.mutation import MutationMergedModule, MutationModuleScores

# Outside CI a sweep's shards share a group only if the user gives them one.
_GROUP_HINT = (
    " (shards of one sweep share a group_id: GITHUB_RUN_ID in Actions; locally export "
    "LANES_GROUP_ID=<any id> before running the shards, as `nox -s mutation` does)"
)

__all__ = [
    "MergeResult",
    "MergedModule",
    "collect_envelope_paths",
    "merge_shards",
    "outside_registry",
    "registry_paths",
]


@dataclass(frozen=True)
class MergedModule:
    name: str
    shards: list[str]
    provenance: dict[str, str]
    mutants: list[MutantRecord]
    duration_ms: int  # the sum over shards: the CPU-side cost of the sweep
    slowest_shard_ms: int  # the wall clock of a fully parallel sweep
    phases_ms: dict[str, int]

    @property
    def counts(self) -> dict[str, int]:
        return counts_by_status(mutant.status for mutant in self.mutants)

    def scores(self) -> MutationModuleScores:
        """The module's figures without its mutants (what the check envelope shows)."""
        counts = self.counts
        return {
            "shards": list(self.shards),
            "provenance": Provenance.from_dict(self.provenance).to_dict(),
            "counts": counts_document(counts),
            "total": len(self.mutants),
            "score": score(counts),
            "duration_ms": self.duration_ms,
            "slowest_shard_ms": self.slowest_shard_ms,
            "phases_ms": dict(self.phases_ms),
        }

    def to_dict(self) -> MutationMergedModule:
        return {**self.scores(), "mutants": [mutant.to_dict() for mutant in self.mutants]}

    @classmethod
    def from_dict(cls, name: str, raw: dict[str, Any]) -> MergedModule:
        return cls(
            name=name,
            shards=[str(s) for s in raw["shards"]],
            provenance={str(k): str(v) for k, v in raw["provenance"].items()},
            mutants=[MutantRecord.from_dict(m) for m in raw["mutants"]],
            duration_ms=int(raw.get("duration_ms", 0)),
            slowest_shard_ms=int(raw.get("slowest_shard_ms", 0)),
            phases_ms={str(k): int(v) for k, v in raw.get("phases_ms", {}).items()},
        )


@dataclass
class MergeResult:
    modules: dict[str, MergedModule] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    group_id: str = ""
    commit: str | None = None
    shard_files: list[str] = field(default_factory=list)


def collect_envelope_paths(inputs: Iterable[Path]) -> list[Path]:
    """Every ``*.json`` under the given directories (any depth), plus the given files."""
    found: list[Path] = []
    for item in inputs:
        if item.is_dir():
            found.extend(sorted(p for p in item.rglob("*.json") if p.is_file()))
        elif item.is_file():
            found.append(item)
        else:
            # Said truthfully: a FIFO or a device is there, it just is not a shard.
            what = "is not a regular file or a directory" if item.exists() else "does not exist"
            msg = f"merge input {str(item)!r} {what}"
            raise UsageError(
                msg, hint="pass the directories the shard jobs' artifacts were downloaded to"
            )
    return found


def _load(path: Path, problems: list[str]) -> dict[str, Any] | None:
    try:
        envelope = read_envelope(path)
    except LanesError as exc:
        problems.append(f"{path}: not a readable lane envelope ({exc.message})")
        return None
    invalid = validate_envelope(envelope)
    if invalid:
        problems.append(f"{path}: not a valid lane envelope: {invalid[0]}")
        return None
    if envelope.get("lane") != "mutation" or envelope.get("data", {}).get("kind") != "shard":
        kind = envelope.get("data", {}).get("kind")
        problems.append(
            f"{path}: foreign file: lane {envelope.get('lane')!r}, kind {kind!r} (expected a mutation shard)"
        )
        return None
    if envelope.get("stage") != "complete" or envelope.get("result") != "pass":
        error = envelope.get("error") or {}
        problems.append(
            f"{path}: crashed shard (stage {envelope.get('stage')!r}): "
            f"{error.get('type', '?')}: {error.get('message', 'no verdict')}"
        )
        return None
    return envelope


def registry_paths(config: Config) -> dict[str, tuple[str, ...]]:
    """Module name -> the source paths the project registered for it."""
    return {name: module.paths for name, module in config.mutation.modules.items()}


def outside_registry(
    modules: Mapping[str, MergedModule], registry: Mapping[str, Sequence[str]]
) -> list[str]:
    """Problems for every module not in ``registry`` and every mutant path not its module's.

    ``registry`` maps a module name to its configured source paths; the
    comparison is exact, as mutmut reports the path the registry gave it.
    """
    problems: list[str] = []
    for name, module in sorted(modules.items()):
        allowed = registry.get(name)
        if allowed is None:
            problems.append(
                f"module {name!r} is not in [tool.lanes.mutation.modules] "
                f"(registered: {', '.join(sorted(registry)) or 'none'}): a foreign shard"
            )
            continue
        problems.extend(
            f"module {name!r}: a mutant names path {path!r}, which is not one of the "
            f"module's registry paths ({', '.join(allowed)}); it is not read"
            for path in sorted({mutant.path for mutant in module.mutants} - set(allowed))
        )
    return problems


def merge_shards(
    paths: Iterable[Path], *, expect_shards: int, registry: Mapping[str, Sequence[str]]
) -> MergeResult:
    """Merge the shard envelopes at ``paths``; ``problems`` non-empty means the merge failed.

    ``registry`` (module name -> its source paths) confines what the shards
    may name; see :func:`outside_registry`.
    """
    result = MergeResult()
    envelopes: list[tuple[Path, dict[str, Any]]] = []
    for path in paths:
        envelope = _load(path, result.problems)
        if envelope is not None:
            envelopes.append((path, envelope))
            result.shard_files.append(str(path))
    if not envelopes and not result.problems:
        result.problems.append("no shard envelopes found in the merge inputs")
    _check_same_run(envelopes, result)
    by_module: dict[str, dict[int, tuple[Path, dict[str, Any]]]] = {}
    counts: dict[str, set[int]] = {}
    pairs = 0
    for path, envelope in envelopes:
        for shard in envelope["data"]["shards"]:
            pairs += 1
            name = str(shard["module"])
            try:
                spec = parse_shard(str(shard["shard"]), what="shard")
            except UsageError as exc:
                result.problems.append(f"{path}: module {name!r}: {exc.message}")
                continue
            counts.setdefault(name, set()).add(spec.count)
            slot = by_module.setdefault(name, {})
            if spec.index in slot:
                result.problems.append(
                    f"module {name!r} shard {spec} appears twice: {slot[spec.index][0]} and {path}"
                )
                continue
            slot[spec.index] = (path, shard)
    if pairs != expect_shards:
        result.problems.append(
            f"expected {expect_shards} shard(s) (--expect-shards), found {pairs}: "
            "a shard job did not upload its envelope, or the matrix changed"
        )
    for name in sorted(by_module):
        module = _merge_module(name, by_module[name], counts[name], result.problems)
        if module is not None:
            result.modules[name] = module
    result.problems.extend(outside_registry(result.modules, registry))
    if result.problems:
        result.modules = {}  # never a partial score
    return result


def _check_same_run(envelopes: list[tuple[Path, dict[str, Any]]], result: MergeResult) -> None:
    if not envelopes:
        return
    first_path, first = envelopes[0]
    result.group_id = str(first.get("group_id", ""))
    result.commit = first.get("subject", {}).get("commit")
    for path, envelope in envelopes[1:]:
        for field_name, mine, theirs in (
            ("group_id", envelope.get("group_id"), first.get("group_id")),
            ("commit", envelope["subject"].get("commit"), first["subject"].get("commit")),
            ("config_hash", envelope.get("config_hash"), first.get("config_hash")),
        ):
            if mine != theirs:
                result.problems.append(
                    f"{path}: foreign shard: {field_name} {mine!r} differs from {first_path}'s {theirs!r}"
                    + (_GROUP_HINT if field_name == "group_id" else "")
                )


def _merge_module(
    name: str,
    shards: dict[int, tuple[Path, dict[str, Any]]],
    counts: set[int],
    problems: list[str],
) -> MergedModule | None:
    if len(counts) != 1:
        problems.append(f"module {name!r}: shards disagree on the shard count: {sorted(counts)}")
        return None
    count = counts.pop()
    missing = [str(i) for i in range(1, count + 1) if i not in shards]
    if missing:
        problems.append(f"module {name!r}: missing shard(s) {', '.join(missing)} of {count}")
        return None
    ordered = [shards[i] for i in range(1, count + 1)]
    provenances = {tuple(sorted(s["provenance"].items())) for _, s in ordered}
    generated = {int(s["generated"]) for _, s in ordered}
    if len(provenances) != 1 or len(generated) != 1:
        problems.append(
            f"module {name!r}: foreign shard: the shards ran different mutmut, Python, "
            "registry, configuration or source (their provenance differs)"
        )
        return None
    plans = {(s["sharding"]["strategy"], s["sharding"]["plan"]) for _, s in ordered}
    if len(plans) != 1:
        problems.append(
            f"module {name!r}: foreign shard: the shards chose their mutants differently "
            f"(strategy and plan: {sorted(plans, key=str)}); every shard of a sweep runs from one plan"
        )
        return None
    mutants: dict[str, MutantRecord] = {}
    for path, shard in ordered:
        for raw in shard["mutants"]:
            record = MutantRecord.from_dict(raw)
            if record.key in mutants:
                problems.append(
                    f"module {name!r}: mutant {record.key} reported twice (again in {path})"
                )
                return None
            mutants[record.key] = record
    total = generated.pop()
    if len(mutants) != total:
        problems.append(
            f"module {name!r}: the shards hold {len(mutants)} mutants but mutmut generated {total}"
        )
        return None
    phases: dict[str, int] = {}
    for _, shard in ordered:
        for phase, ms in shard.get("phases_ms", {}).items():
            phases[phase] = phases.get(phase, 0) + int(ms)
    durations = [sum(int(ms) for ms in s.get("phases_ms", {}).values()) for _, s in ordered]
    # The plan's generation and mapping, paid once for every shard: counted once.
    plan_ms = int(ordered[0][1]["sharding"]["plan_ms"])
    if plan_ms:
        phases["plan"] = plan_ms
    return MergedModule(
        name=name,
        shards=[str(s["shard"]) for _, s in ordered],
        provenance=dict(ordered[0][1]["provenance"]),
        mutants=sorted(mutants.values(), key=lambda m: m.key),
        duration_ms=sum(durations) + plan_ms,
        slowest_shard_ms=max(durations),
        phases_ms=phases,
    )
