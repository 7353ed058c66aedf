"""The affected lane's view: the plan's counts and rules, what ran, the self-check."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanes.report.views import lane_detail
from lanes.report.views._blocks import Callout, Facts, Table

if TYPE_CHECKING:
    from lanes.payloads.affected import AffectedData

DATA: AffectedData = {
    "plan": {
        "base": "main",
        "base_commit": "4d8a739c50e7842ce715d332b7f159cb59074bb7",
        "full": True,
        "full_reasons": [{"rule": "full", "changed": "pyproject.toml", "detail": "packaging"}],
        "changed": [
            {
                "path": "pyproject.toml",
                "change": "modified",
                "rule": "full",
                "detail": "packaging",
                "tests": 0,
            }
        ],
        "tests": [],
        "suites": [],
        "gates": [],
        "blind_spots": [],
        "counts": {"selected": 4, "total": 4, "share": 1.0},
    },
    "runs": [
        {"what": "suite unit", "command": ["pytest", "tests"], "exit_code": 1, "duration_ms": 900},
        {
            "what": "gate lint",
            "command": ["nox", "-s", "lint"],
            "exit_code": 127,
            "duration_ms": 1,
            "skipped": "'nox' is not installed in this environment",
        },
    ],
    "self_check": {
        "passed": True,
        "checks": [
            {
                "name": "conftest selects its subtree",
                "expected": ["t/a.py"],
                "observed": ["t/a.py"],
                "passed": True,
            }
        ],
        "planted": [
            {
                "fault": "direct imports only",
                "expected": "t/a.py, t/b.py",
                "real": "t/a.py, t/b.py",
                "planted": "t/a.py",
                "caught": True,
            }
        ],
    },
}


def test_the_view_answers_what_was_selected_why_and_what_ran() -> None:
    detail = lane_detail("affected", DATA)
    assert detail is not None
    facts = next(b for b in detail.blocks if isinstance(b, Facts))
    assert ("selected", "4 of 4 test files (100.0%)") in facts.items
    callouts = [b.text for b in detail.blocks if isinstance(b, Callout)]
    assert "full set: pyproject.toml — packaging" in callouts
    tables = {b.caption: b for b in detail.blocks if isinstance(b, Table)}
    ran = tables["What ran (each selected suite once, then the gates)"]
    assert ran.rows == (
        ("suite unit", "pytest tests", "1", "900 ms"),
        ("gate lint", "nox -s lint", "skipped: 'nox' is not installed in this environment", "1 ms"),
    )
    # The skipped gate is shown as a warning, never as a failure of the run.
    assert ran.status == ("fail", "warn")
    check = tables["Self-check on a project whose answer is known"]
    assert check.rows == (
        ("conftest selects its subtree", "t/a.py", "t/a.py"),
        (
            "planted fault: direct imports only",
            "t/a.py, t/b.py",
            "t/a.py, t/b.py (the fault: t/a.py)",
        ),
    )
    assert check.status == ("pass", "pass")
    assert [f.name for f in detail.findings if f.failed] == ["suite unit"]
    assert detail.figures == {"selected share": 1.0}


def test_a_plan_the_type_does_not_describe_gets_the_generic_table_not_a_crash() -> None:
    # The view reads its typed data directly (change["rule"]); the old
    # hand-written schema did not describe a changed path, so one without its
    # rule reached the view and crashed it.
    changed = {key: value for key, value in DATA["plan"]["changed"][0].items() if key != "rule"}
    detail = lane_detail("affected", {**DATA, "plan": {**DATA["plan"], "changed": [changed]}})
    assert detail is not None
    [callout] = [b for b in detail.blocks if isinstance(b, Callout)]
    assert callout.level == "warn"
    assert "does not match the affected lane's payload type" in callout.text
    assert "'rule' is a required property" in callout.text
