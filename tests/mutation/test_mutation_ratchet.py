"""The ratchet on real baseline files: regressions, drift, graduation, equivalents, the proposal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from lanes.errors import StateError
from lanes.mutation.baseline import Baseline, read_baseline, write_baseline
from lanes.mutation.merge import MergedModule
from lanes.mutation.ratchet import ModuleVerdict, ratchet
from tests.mutation.mutation_fixtures import PROVENANCE, mutant

if TYPE_CHECKING:
    from lanes.payloads.mutation import MutationBaselineModule, MutationStatus

DATA = Path(__file__).with_name("data")


def _module(statuses: dict[str, MutationStatus], **provenance: str) -> MergedModule:
    raw = {
        "shards": ["1/1"],
        "provenance": {**PROVENANCE, **provenance},
        "mutants": [mutant(key, status) for key, status in statuses.items()],
    }
    return MergedModule.from_dict("lock", raw)


def _judge(
    statuses: dict[str, MutationStatus], baseline: Baseline, *, required: int = 2, **provenance: str
) -> tuple[ModuleVerdict, MutationBaselineModule]:
    verdicts, proposal = ratchet(
        {"lock": _module(statuses, **provenance)}, baseline, required_stable_runs=required
    )
    return verdicts[0], proposal.to_dict()["modules"]["lock"]


@pytest.fixture
def baseline() -> Baseline:
    return read_baseline(DATA / "baseline-lock.json")


SAME: dict[str, MutationStatus] = {"k1": "killed", "k2": "killed", "k3": "killed", "k4": "survived"}


def test_an_equal_sweep_passes_and_counts_one_more_stable_run(baseline: Baseline) -> None:
    verdict, proposed = _judge(SAME, baseline)
    assert (verdict.verdict, verdict.fails, verdict.score) == ("pass", False, 0.75)
    assert proposed["stable_runs"] == 3
    assert verdict.new_survivors == []  # k4 survived last week too


def test_a_killed_mutant_that_survives_is_a_gating_regression_with_its_diff(
    baseline: Baseline,
) -> None:
    verdict, proposed = _judge({**SAME, "k2": "survived"}, baseline)
    assert (verdict.verdict, verdict.gating, verdict.fails) == ("regression", True, True)
    assert [r["key"] for r in verdict.regressions] == ["k2"]
    assert "+new k2" in verdict.regressions[0]["diff"]
    assert verdict.regressions[0]["tests"] == ["tests/test_calc.py::test_f"]
    # The ratchet never goes down: the proposal keeps last week's score.
    assert (proposed["score"], proposed["stable_runs"]) == (0.75, 0)


def test_a_regressed_survivor_is_not_also_a_new_survivor(baseline: Baseline) -> None:
    # Regression: the report showed every regressed mutant twice, once as a
    # regression and once as a new survivor (54 rows for 27 mutants). k2 was
    # killed last week (a regression), k5 did not exist (a new survivor).
    verdict, _ = _judge({**SAME, "k2": "survived", "k5": "survived"}, baseline)
    assert [r["key"] for r in verdict.regressions] == ["k2"]
    assert [s["key"] for s in verdict.new_survivors] == ["k5"]


def test_a_score_drop_alone_is_a_regression(baseline: Baseline) -> None:
    # k1..k3 still killed, but two new mutants survive: 3/6 < 0.75.
    verdict, _ = _judge({**SAME, "k5": "survived", "k6": "no tests"}, baseline)
    assert verdict.verdict == "regression"
    assert verdict.regressions == []
    assert sorted(s["key"] for s in verdict.new_survivors) == ["k5", "k6"]


def test_a_regressed_mutant_gates_at_once_before_graduation(baseline: Baseline) -> None:
    # Regression: k2, killed in the baseline, survived under the same key and
    # provenance, and the lane exited 0 until the module had 2 stable sweeps,
    # while each regression restarted that count: the ratchet never held.
    # A deterministic regression fails at once; graduation is for the score.
    verdict, proposed = _judge({**SAME, "k2": "survived"}, baseline, required=3)
    assert (verdict.verdict, verdict.gating, verdict.fails) == ("regression", False, True)
    assert proposed["stable_runs"] == 0


def test_a_mutant_that_only_timed_out_in_the_baseline_is_a_new_survivor_not_a_regression(
    tmp_path: Path,
) -> None:
    # Regression: a whole-registry sweep on a quiet machine failed the lane on
    # nine mutants "killed in the baseline" that had only timed out in a sweep
    # on a loaded one (mutmut's wall-clock limit fires under load); one of
    # them behaves exactly like the original. A timeout proves no kill.
    raw = json.loads((DATA / "baseline-lock.json").read_text(encoding="utf-8"))
    raw["modules"]["lock"]["mutants"]["k2"] = "timeout"
    raw["modules"]["lock"]["counts"] = {"killed": 2, "timeout": 1, "survived": 1}
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    verdict, proposed = _judge({**SAME, "k2": "survived"}, read_baseline(path), required=3)
    assert verdict.regressions == []
    assert [s["key"] for s in verdict.new_survivors] == ["k2"]
    # What it takes from the score is a score drop: reported before graduation.
    assert (verdict.verdict, verdict.fails, proposed["stable_runs"]) == ("regression", False, 0)
    # A mutant the baseline saw killed still gates at once.
    killed, _ = _judge({**SAME, "k1": "survived"}, read_baseline(path), required=3)
    assert ([r["key"] for r in killed.regressions], killed.fails) == (["k1"], True)


def test_before_graduation_a_score_drop_alone_is_reported_not_failing(
    baseline: Baseline,
) -> None:
    # No mutant of the baseline changed outcome: only new survivors lower the
    # score, which may be noise until the module has graduated.
    verdict, proposed = _judge({**SAME, "k5": "survived", "k6": "no tests"}, baseline, required=3)
    assert (verdict.verdict, verdict.gating, verdict.fails) == ("regression", False, False)
    assert proposed["stable_runs"] == 0


def test_drift_is_reported_never_failing_and_restarts_graduation(baseline: Baseline) -> None:
    verdict, proposed = _judge({**SAME, "k2": "survived"}, baseline, mutmut="3.9.0")
    assert (verdict.verdict, verdict.fails) == ("drift", False)
    assert verdict.drift == [{"field": "mutmut", "baseline": "3.8.1", "current": "3.9.0"}]
    assert proposed["stable_runs"] == 0
    assert proposed["provenance"]["mutmut"] == "3.9.0"
    assert [s["key"] for s in verdict.new_survivors] == ["k2"]


def test_a_module_without_baseline_is_new() -> None:
    verdicts, proposal = ratchet({"lock": _module(SAME)}, Baseline(), required_stable_runs=2)
    assert verdicts[0].verdict == "new"
    assert proposal.modules["lock"].stable_runs == 0


def test_equivalent_survivors_leave_the_denominator(tmp_path: Path) -> None:
    raw = json.loads((DATA / "baseline-lock.json").read_text(encoding="utf-8"))
    raw["modules"]["lock"]["equivalent"] = {"k4": "k4 swaps < for <= on a value never equal"}
    (tmp_path / "b.json").write_text(json.dumps(raw), encoding="utf-8")
    verdict, proposed = _judge(SAME, read_baseline(tmp_path / "b.json"))
    assert verdict.score == 1.0
    assert verdict.equivalent_survivors == 1
    assert proposed["equivalent"] == {"k4": "k4 swaps < for <= on a value never equal"}


def test_modules_not_run_are_carried_over(baseline: Baseline) -> None:
    _, proposal = ratchet({}, baseline, required_stable_runs=2)
    assert proposal.to_dict() == baseline.to_dict()


def test_the_baseline_round_trips(baseline: Baseline, tmp_path: Path) -> None:
    write_baseline(tmp_path / "m.json", baseline)
    assert read_baseline(tmp_path / "m.json") == baseline
    assert read_baseline(tmp_path / "absent.json") == Baseline()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(format="other"), "is not a mutation baseline"),
        (lambda d: d.update(version=2), "has version 2"),
        (lambda d: d["modules"]["lock"].update(score=1.5), "score must be a number in"),
        (lambda d: d["modules"]["lock"].update(stable_runs=-1), "stable_runs must be"),
        (lambda d: d["modules"]["lock"]["mutants"].update(k1="dead"), "mutants must map"),
        (lambda d: d["modules"]["lock"].update(equivalent={"k4": " "}), "non-empty reason"),
        (lambda d: d["modules"]["lock"]["provenance"].pop("python"), "provenance must hold"),
    ],
)
def test_a_damaged_baseline_is_a_typed_error_with_a_hint(
    tmp_path: Path, edit: Any, message: str
) -> None:
    raw = json.loads((DATA / "baseline-lock.json").read_text(encoding="utf-8"))
    edit(raw)
    (tmp_path / "b.json").write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(StateError, match=message) as excinfo:
        read_baseline(tmp_path / "b.json")
    assert "lanes mutation baseline" in excinfo.value.hint


def test_checking_the_same_sweep_twice_counts_one_stable_run(baseline: Baseline) -> None:
    verdicts, once = ratchet(
        {"lock": _module(SAME)}, baseline, required_stable_runs=2, sweep="github-7-1"
    )
    _, twice = ratchet({"lock": _module(SAME)}, once, required_stable_runs=2, sweep="github-7-1")
    _, next_week = ratchet(
        {"lock": _module(SAME)}, twice, required_stable_runs=2, sweep="github-8-1"
    )
    assert verdicts[0].stable_runs == 3
    assert [b.modules["lock"].stable_runs for b in (once, twice, next_week)] == [3, 3, 4]
