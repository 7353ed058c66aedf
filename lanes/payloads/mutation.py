"""The mutation lane's payload: one type per envelope kind, told apart by ``kind``.

``lanes mutation plan`` writes a :class:`MutationPlan` (``plan.json`` in the
plan's directory, next to mutmut's files), ``lanes mutation run`` writes a
:class:`MutationShardRun` per shard,
``merge`` a :class:`MutationMerged`, ``check`` the lane's verdict
(:class:`MutationCheck`, ``envelopes/mutation.json``) and ``--self-check`` a
:class:`MutationSelfCheck`. :data:`MutationData` is their union, the type the
report's view reads; mypy narrows it on ``data["kind"]``.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict

from lanes.payloads.constraints import Doc, Max, Min, Pattern

__all__ = [
    "MutationBaselineDocument",
    "MutationBaselineModule",
    "MutationCheck",
    "MutationCheckedModule",
    "MutationCounts",
    "MutationData",
    "MutationDrift",
    "MutationMerged",
    "MutationMergedModule",
    "MutationModuleShard",
    "MutationMutant",
    "MutationPlan",
    "MutationPlanModule",
    "MutationPlanMutant",
    "MutationPlantedCheck",
    "MutationProvenance",
    "MutationSelfCheck",
    "MutationShardRun",
    "MutationSharding",
    "MutationStatus",
    "MutationSurvivor",
    "MutationVerdict",
]

# mutmut's statuses as it spells them; lanes.mutation.statuses.Status has the
# same values (a test keeps the two equal).
MutationStatus = Literal[
    "killed",
    "survived",
    "timeout",
    "no tests",
    "suspicious",
    "skipped",
    "caught by type check",
    "segfault",
    "not checked",
    "check was interrupted by user",
]
MutationVerdict = Literal["pass", "regression", "drift", "new"]
_Count = Annotated[int, Min(0)]
_Score = Annotated[float, Min(0), Max(1)] | None
_ShardSpec = Annotated[str, Pattern("^[0-9]+/[0-9]+$")]

# Statuses hold spaces, so the counts are declared in the functional form.
MutationCounts = TypedDict(
    "MutationCounts",
    {
        "killed": _Count,
        "survived": _Count,
        "timeout": _Count,
        "no tests": _Count,
        "suspicious": _Count,
        "skipped": _Count,
        "caught by type check": _Count,
        "segfault": _Count,
        "not checked": _Count,
        "check was interrupted by user": _Count,
    },
)
MutationCounts.__doc__ = "Every mutmut status with its count (zeros included)."


class MutationProvenance(TypedDict):
    """What the score depends on besides the tests; any difference from the baseline's is drift."""

    mutmut: str
    lanekit: str
    python: str
    registry_hash: str
    mutmut_config_hash: str
    source_digest: str


class MutationMutant(TypedDict):
    """One mutant: key is stable across unrelated edits (path::function::hash of the changed
    lines); name is mutmut's, valid for one run. tests lists (up to 20 of tests_total) the
    tests that ran against an undetected mutant."""

    key: str
    name: str
    path: str
    function: str
    line: Annotated[int, Min(1)] | None
    status: MutationStatus
    duration_ms: _Count
    diff: str
    original: str
    replacement: str
    tests: list[str]
    tests_total: _Count


class MutationSurvivor(TypedDict):
    """A surviving mutant as a reviewer reads it: file, line, unified diff against the original
    file, the tests that ran."""

    key: str
    name: str
    path: str
    line: Annotated[int, Min(1)] | None
    function: str
    status: MutationStatus
    diff: str
    tests: list[str]
    tests_total: _Count


class MutationSharding(TypedDict):
    """How a shard's mutants were chosen. strategy: whole (one shard holds every mutant), hash
    (SHA-256 of the key, without a plan: each shard generated and mapped on its own) or cost
    (balanced by estimated cost from a plan). note says why the shard count differs from the
    registry's (a module below shard_threshold is not sharded)."""

    strategy: Literal["whole", "hash", "cost"]
    plan: Annotated[str | None, Doc("the run_id of the plan the shard ran from")]
    plan_ms: Annotated[int, Min(0), Doc("the plan's generate-and-map time for the module")]
    estimated_ms: Annotated[int, Min(0), Doc("this shard's estimated cost, from the plan")]
    note: str


class MutationModuleShard(TypedDict):
    """One shard of one registry module: its provenance and every mutant it ran."""

    module: str
    shard: _ShardSpec
    provenance: MutationProvenance
    generated: Annotated[
        int, Min(0), Doc("mutants mutmut generated for the whole module (every shard)")
    ]
    phases_ms: Annotated[
        dict[str, _Count],
        Doc("copy, generate (hash shards only), restore (from a plan), mutate, read"),
    ]
    sharding: MutationSharding
    mutants: list[MutationMutant]


class MutationPlanMutant(TypedDict):
    """A mutant of the plan: mutmut's name, the lane's key, its estimated cost."""

    name: str
    key: str
    cost_ms: _Count


class MutationPlanModule(TypedDict):
    """One module of a plan: mutmut's generated mutants and test map, made once for every shard."""

    provenance: MutationProvenance
    registry_shards: Annotated[int, Min(1), Doc("the shards the registry asks for")]
    shards: Annotated[int, Min(1), Doc("the shards the module runs in")]
    note: str
    generated: _Count
    phases_ms: Annotated[dict[str, _Count], Doc("copy, generate (mutmut's generation and mapping)")]
    files: Annotated[
        dict[str, Annotated[str, Pattern("^sha256:[0-9a-f]{64}$")]],
        Doc("mutmut's files under the module's mutants/ directory in the plan -> their digest"),
    ]
    mutants: list[MutationPlanMutant]


class MutationPlan(TypedDict):
    """lanes mutation plan (<plan dir>/plan.json): every module's mutants, keys, estimated costs
    and shard count, and the digests a shard checks before it trusts the plan: the project's
    files (tree) and mutmut's files of each module."""

    kind: Literal["plan"]
    shard_threshold: Annotated[int, Min(1)]
    tree: Annotated[
        dict[str, str], Doc("every file the shards copy (from the project root) -> its digest")
    ]
    modules: dict[str, MutationPlanModule]


class MutationShardRun(TypedDict):
    """lanes mutation run: one shard (I/N) of each module run."""

    kind: Literal["shard"]
    shard: _ShardSpec
    shards: list[MutationModuleShard]


class MutationModuleScores(TypedDict):
    """A merged module: its shards, provenance, counts by status, Stryker score and durations
    (sum over shards, and the slowest shard)."""

    shards: list[str]
    provenance: MutationProvenance
    counts: MutationCounts
    total: _Count
    score: _Score
    duration_ms: _Count
    slowest_shard_ms: _Count
    phases_ms: dict[str, _Count]


class MutationMergedModule(MutationModuleScores):
    """A merged module's scores and every one of its mutants."""

    mutants: list[MutationMutant]


class MutationMerged(TypedDict):
    """lanes mutation merge (envelopes/mutation/merged.json): module scores, or problems and no
    module at all (a failed merge never yields a partial score)."""

    kind: Literal["merged"]
    expect_shards: Annotated[int, Min(1)]
    shard_files: list[str]
    shard_group_id: str
    problems: list[str]
    modules: dict[str, MutationMergedModule]


class MutationDrift(TypedDict):
    """A provenance field that differs from the baseline's."""

    field: str
    baseline: str
    current: str


class MutationCheckedModule(MutationModuleScores):
    """A merged module's scores (without its mutants) and its ratchet verdict. regressions
    (detected in the baseline, surviving now) and new_survivors (survivors the baseline did
    not have at all) are disjoint: each survivor is listed once."""

    verdict: MutationVerdict
    gating: bool
    fails: Annotated[
        bool,
        Doc(
            "this module fails the lane: a regressed mutant (at once), or a score drop once "
            "the module is gating"
        ),
    ]
    baseline_score: _Score
    stable_runs: _Count
    required_stable_runs: _Count
    drift: list[MutationDrift]
    regressions: list[MutationSurvivor]
    new_survivors: list[MutationSurvivor]
    equivalent_survivors: _Count


class MutationBaselineModule(TypedDict):
    """A module's entry in baselines/mutation.json: the high-water mark and its provenance."""

    score: _Score
    total: _Count
    counts: dict[str, _Count]
    provenance: MutationProvenance
    stable_runs: _Count
    mutants: Annotated[dict[str, str], Doc("mutant key -> its mutmut status")]
    equivalent: Annotated[
        dict[str, str], Doc("mutant key -> why no test can tell it from the original")
    ]
    sweep: Annotated[str, Doc("the group_id of the sweep the results came from")]


class MutationBaselineDocument(TypedDict):
    """The proposed baselines/mutation.json (what `lanes mutation baseline` writes)."""

    format: Literal["lanekit.mutation-baseline"]
    version: Literal[1]
    modules: dict[str, MutationBaselineModule]


class MutationCheck(TypedDict):
    """lanes mutation check (envelopes/mutation.json): per module the ratchet verdict against
    baselines/mutation.json. verdict: pass | regression (score below the baseline, or a
    mutant detected in the baseline survives) | drift (provenance differs: reported, never
    failing) | new (no baseline entry). A regressed mutant (killed in the baseline, surviving
    now) fails the lane at once; gating: the module has graduated (stable_runs >=
    required_stable_runs) and a score drop fails the lane too. fails: this module fails the
    lane. stable_runs is the count in the proposal. proposed_baseline is the file `lanes mutation baseline` writes."""

    kind: Literal["check"]
    merged_from: str
    problems: list[str]
    modules: dict[str, MutationCheckedModule]
    # Absent when the merge failed: no module was scored, so nothing is proposed.
    proposed_baseline: NotRequired[MutationBaselineDocument]
    baseline_path: NotRequired[str]
    report: NotRequired[
        Annotated[str, Doc("the mutation-testing-elements JSON (Stryker's schema)")]
    ]
    proposal_digest: NotRequired[str]


class MutationPlantedCheck(TypedDict):
    """One planted failure of the self-check and whether the lane caught it."""

    name: str
    ok: bool
    observed: str


class MutationSelfCheck(TypedDict):
    """lanes mutation --self-check (envelopes/mutation-self-check.json): each planted failure
    and whether the lane caught it."""

    kind: Literal["self-check"]
    checks: list[MutationPlantedCheck]


MutationData = Annotated[
    MutationPlan | MutationShardRun | MutationMerged | MutationCheck | MutationSelfCheck,
    Doc(
        "The mutation lane (lanes mutation). kind says which verb wrote it: plan, shard (run), "
        "merged (merge), check (the lane's verdict, envelopes/mutation.json), self-check. "
        "Scores are Stryker's: (killed + timeout) / (total - skipped - caught by type check "
        "- segfault - equivalent), null when no mutant is valid."
    ),
]
