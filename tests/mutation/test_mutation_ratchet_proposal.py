"""What the ratchet proposes and reports, field by field.

The proposal is what `lanes mutation baseline` writes for a person to commit:
its score leaves the listed equivalents out, it carries the mutant count, the
equivalents and the sweep that produced it, and a regression keeps last
week's entry. A survivor is reported with every field a reviewer reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from lanes.mutation.baseline import Baseline, read_baseline
from lanes.mutation.merge import MergedModule
from lanes.mutation.ratchet import ratchet, status_counts_line
from tests.mutation.mutation_fixtures import PROVENANCE, mutant

if TYPE_CHECKING:
    from lanes.payloads.mutation import MutationStatus

DATA = Path(__file__).with_name("data")
SAME: dict[str, MutationStatus] = {"k1": "killed", "k2": "killed", "k3": "killed", "k4": "survived"}
REASON = "k4 behaves exactly like the original"


def _module(statuses: dict[str, MutationStatus], **provenance: str) -> MergedModule:
    raw = {
        "shards": ["1/1"],
        "provenance": {**PROVENANCE, **provenance},
        "mutants": [mutant(key, status) for key, status in statuses.items()],
    }
    return MergedModule.from_dict("lock", raw)


def _baseline(tmp_path: Path, **entry: object) -> Baseline:
    document = json.loads((DATA / "baseline-lock.json").read_text(encoding="utf-8"))
    document["modules"]["lock"].update(entry)
    path = tmp_path / "mutation.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return read_baseline(path)


def test_a_first_sweep_is_new_and_proposed_as_it_is() -> None:
    verdicts, proposal = ratchet(
        {"lock": _module(SAME)}, Baseline({}), required_stable_runs=2, sweep="run-7"
    )
    verdict = verdicts[0]
    assert (verdict.name, verdict.verdict, verdict.gating, verdict.fails) == (
        "lock", "new", False, False,
    )  # fmt: skip
    assert (verdict.score, verdict.baseline_score, verdict.stable_runs) == (0.75, None, 0)
    entry = proposal.to_dict()["modules"]["lock"]
    assert (entry["score"], entry["total"], entry["stable_runs"]) == (0.75, 4, 0)
    assert (entry["sweep"], entry["equivalent"]) == ("run-7", {})


def test_a_check_without_a_sweep_id_proposes_none() -> None:
    _, proposal = ratchet({"lock": _module(SAME)}, Baseline({}), required_stable_runs=2)
    assert proposal.to_dict()["modules"]["lock"]["sweep"] == ""


def test_a_survivor_is_reported_with_everything_a_reviewer_reads() -> None:
    verdicts, _ = ratchet({"lock": _module(SAME)}, Baseline({}), required_stable_runs=2)
    survivor = mutant("k4", "survived")
    assert verdicts[0].new_survivors == [
        {
            "key": "k4",
            "name": survivor["name"],
            "path": "pkg/calc.py",
            "line": 2,
            "function": "f",
            "status": "survived",
            "diff": survivor["diff"],
            "tests": ["tests/test_calc.py::test_f"],
            "tests_total": 1,
        }
    ]


def test_the_proposed_score_leaves_the_equivalents_out(tmp_path: Path) -> None:
    baseline = _baseline(tmp_path, equivalent={"k4": REASON})
    verdicts, proposal = ratchet(
        {"lock": _module(SAME)}, baseline, required_stable_runs=2, sweep="run-8"
    )
    assert (verdicts[0].verdict, verdicts[0].score, verdicts[0].baseline_score) == (
        "pass", 1.0, 0.75,
    )  # fmt: skip
    assert verdicts[0].equivalent_survivors == 1
    entry = proposal.to_dict()["modules"]["lock"]
    assert (entry["score"], entry["total"], entry["equivalent"]) == (1.0, 4, {"k4": REASON})


def test_drift_keeps_the_equivalents_and_names_the_sweep(tmp_path: Path) -> None:
    baseline = _baseline(tmp_path, equivalent={"k4": REASON})
    verdicts, proposal = ratchet(
        {"lock": _module(SAME, mutmut="3.9.0")}, baseline, required_stable_runs=2, sweep="run-9"
    )
    assert (verdicts[0].verdict, verdicts[0].baseline_score) == ("drift", 0.75)
    entry = proposal.to_dict()["modules"]["lock"]
    assert (entry["stable_runs"], entry["sweep"]) == (0, "run-9")
    assert entry["equivalent"] == {"k4": REASON}


def test_a_regression_keeps_last_weeks_entry_and_names_the_sweep(tmp_path: Path) -> None:
    baseline = _baseline(tmp_path, equivalent={"k4": REASON}, sweep="run-1")
    verdicts, proposal = ratchet(
        {"lock": _module({**SAME, "k2": "survived", "k5": "killed"})},
        baseline,
        required_stable_runs=2,
        sweep="run-10",
    )
    assert verdicts[0].verdict == "regression"
    entry = proposal.to_dict()["modules"]["lock"]
    assert (entry["score"], entry["total"], entry["stable_runs"]) == (0.75, 4, 0)
    assert (entry["equivalent"], entry["sweep"]) == ({"k4": REASON}, "run-10")


@pytest.mark.parametrize(
    ("counts", "line"),
    [
        (
            {"killed": 40, "survived": 3, "timeout": 1, "skipped": 0},
            "killed 40, survived 3, timeout 1",
        ),
        ({"no tests": 2, "killed": 1}, "killed 1, no tests 2"),
        ({"killed": 0}, ""),
    ],
)
def test_the_counts_line_lists_the_statuses_present_in_mutmuts_order(
    counts: dict[str, int], line: str
) -> None:
    assert status_counts_line(counts) == line
