"""The ratchet: merged module scores against the baseline, with drift and graduation.

Per module, in this order:

- *new*: the baseline has no entry; reported, never failing; proposed as is.
- *drift*: any provenance field differs (mutmut, lanekit, Python minor,
  registry entry, mutmut configuration, source digest): the mutants are not
  the same population, so nothing is compared. Reported, never failing; the
  proposal takes the new results with the graduation count at 0.
- *regression*: the score is below the baseline's, or a mutant the baseline
  has as detected now survives (equivalents excepted). A mutant killed in
  the baseline that survives now, under the same key and provenance, is a
  deterministic regression: it fails the lane at once, whatever the stable
  run count (a ratchet that let it pass until the module graduated, and
  restarted that count on each regression, never held). A mutant that only
  *timed out* in the baseline and survives now is no such proof: mutmut's
  wall-clock limit fires under load (a sweep on a loaded machine timed out 9
  mutants that a quiet one found surviving, one of them equivalent), so it
  is a new survivor, and what it takes from the score is judged as a score
  drop. Graduation —
  ``stable_runs >= required_stable_runs`` consecutive comparable passing
  sweeps — is for the score only: a score drop without such a mutant fails
  once the module has graduated; before that it is reported and the count
  starts again. The proposal keeps the baseline's score: a ratchet never
  goes down.
- *pass*: the proposal takes the new results (the score may only have
  risen) and one more stable run.

A survivor whose key the baseline does not have as a survivor is a *new
survivor*: listed with its diff and tests whatever the verdict — unless it is
already listed as a regression (each survivor is listed once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from lanes.mutation.baseline import Baseline, ModuleBaseline
from lanes.mutation.provenance import Provenance, drift
from lanes.mutation.statuses import DETECTED, NOT_SCORED, Status, score, status_name

if TYPE_CHECKING:
    from lanes.mutation.merge import MergedModule
    from lanes.mutation.results import MutantRecord
    from lanes.payloads.mutation import MutationDrift, MutationSurvivor, MutationVerdict

__all__ = ["ModuleVerdict", "ratchet"]

# Scores are stored rounded to 6 places; a difference below that is noise.
_EPSILON: Final = 1e-9
_DETECTED_VALUES: Final = frozenset(status.value for status in DETECTED)
# What proves a mutant killed whatever the machine's load: a timeout does not.
_KILLED_VALUES: Final = _DETECTED_VALUES - {Status.TIMEOUT.value}


def _undetected(record: MutantRecord) -> bool:
    return record.status not in DETECTED and record.status not in NOT_SCORED


def survivor_view(record: MutantRecord) -> MutationSurvivor:
    """A survivor as a reviewer reads it: where, what changed, and which tests ran."""
    return {
        "key": record.key,
        "name": record.name,
        "path": record.path,
        "line": record.line,
        "function": record.function,
        "status": status_name(record.status),
        "diff": record.diff,
        "tests": list(record.tests),
        "tests_total": record.tests_total,
    }


@dataclass
class ModuleVerdict:
    name: str
    verdict: MutationVerdict
    gating: bool  # graduated: a score drop here fails the lane
    score: float | None
    baseline_score: float | None
    stable_runs: int  # in the proposal
    drift: list[MutationDrift] = field(default_factory=list)
    regressions: list[MutationSurvivor] = field(default_factory=list)
    new_survivors: list[MutationSurvivor] = field(default_factory=list)
    equivalent_survivors: int = 0

    @property
    def fails(self) -> bool:
        # A regressed mutant (killed in the baseline, surviving now) is the
        # same mutant judged twice with a different outcome: no noise to wait
        # out, so it gates at once; graduation only guards the score.
        return self.verdict == "regression" and (self.gating or bool(self.regressions))


def _entry(
    module: MergedModule, stable_runs: int, equivalent: dict[str, str], sweep: str
) -> ModuleBaseline:
    present = {mutant.key for mutant in module.mutants}
    kept = {key: reason for key, reason in equivalent.items() if key in present}
    counts = module.counts
    return ModuleBaseline(
        score=score(counts, equivalent=_equivalent_survivors(module, kept)),
        total=len(module.mutants),
        counts=counts,
        provenance=dict(module.provenance),
        stable_runs=stable_runs,
        mutants={mutant.key: mutant.status.value for mutant in module.mutants},
        equivalent=kept,
        sweep=sweep,
    )


def _equivalent_survivors(module: MergedModule, equivalent: dict[str, str]) -> int:
    return sum(1 for m in module.mutants if m.key in equivalent and _undetected(m))


def _judge(
    module: MergedModule, old: ModuleBaseline | None, required_stable_runs: int, sweep: str
) -> tuple[ModuleVerdict, ModuleBaseline]:
    equivalent = {} if old is None else old.equivalent
    current = score(module.counts, equivalent=_equivalent_survivors(module, equivalent))
    survivors = [m for m in module.mutants if _undetected(m) and m.key not in equivalent]
    old_survivors = (
        set() if old is None else {k for k, s in old.mutants.items() if s not in _DETECTED_VALUES}
    )
    verdict = ModuleVerdict(
        name=module.name,
        verdict="new",
        gating=False,
        score=current,
        baseline_score=None if old is None else old.score,
        stable_runs=0,
        new_survivors=[survivor_view(m) for m in survivors if m.key not in old_survivors],
        equivalent_survivors=_equivalent_survivors(module, equivalent),
    )
    if old is None:
        return verdict, _entry(module, 0, {}, sweep)
    verdict.drift = drift(
        Provenance.from_dict(old.provenance), Provenance.from_dict(module.provenance)
    )
    if verdict.drift:
        verdict.verdict = "drift"
        return verdict, _entry(module, 0, equivalent, sweep)
    verdict.gating = old.stable_runs >= required_stable_runs
    verdict.regressions = [
        survivor_view(m) for m in survivors if old.mutants.get(m.key) in _KILLED_VALUES
    ]
    # A regressed mutant is listed once, as a regression: it was not a
    # survivor in the baseline either, and listing it under both showed every
    # regressed mutant twice in the report.
    regressed = {r["key"] for r in verdict.regressions}
    verdict.new_survivors = [s for s in verdict.new_survivors if s["key"] not in regressed]
    dropped = current is not None and old.score is not None and current < old.score - _EPSILON
    if dropped or verdict.regressions:
        verdict.verdict = "regression"
        # The ratchet never goes down; the count of stable runs starts again.
        return verdict, ModuleBaseline(
            score=old.score,
            total=old.total,
            counts=old.counts,
            provenance=old.provenance,
            stable_runs=0,
            mutants=old.mutants,
            equivalent=old.equivalent,
            sweep=sweep,
        )
    verdict.verdict = "pass"
    # The same sweep checked again is not one more stable run.
    counted = bool(sweep) and sweep == old.sweep
    verdict.stable_runs = old.stable_runs + (0 if counted else 1)
    return verdict, _entry(module, verdict.stable_runs, equivalent, sweep)


def ratchet(
    modules: dict[str, MergedModule],
    baseline: Baseline,
    *,
    required_stable_runs: int,
    sweep: str = "",
) -> tuple[list[ModuleVerdict], Baseline]:
    """Judge every merged module; return the verdicts and the proposed baseline.

    Modules of the baseline that this sweep did not run (a PR job mutates only
    the affected ones) are carried over unchanged. ``sweep`` (the shards'
    group_id) keeps a sweep checked twice from counting two stable runs.
    """
    verdicts: list[ModuleVerdict] = []
    proposal = dict(baseline.modules)
    for name in sorted(modules):
        verdict, entry = _judge(
            modules[name], baseline.modules.get(name), required_stable_runs, sweep
        )
        verdicts.append(verdict)
        proposal[name] = entry
    return verdicts, Baseline(proposal)


def status_counts_line(counts: dict[str, int]) -> str:
    """``killed 40, survived 3, timeout 1`` (non-zero statuses, in mutmut's order)."""
    return ", ".join(
        f"{status.value} {counts[status.value]}" for status in Status if counts.get(status.value)
    )
