"""A plan read back from its JSON (:meth:`Plan.from_dict`): the same plan, or a refusal naming the field.

The document comes from another process, maybe another lanekit version (the
base commit's selector planning a change to lanekit's own code), so the
reader trusts nothing in it.
"""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Any

import pytest

from lanes.affected.lane import build_plan
from lanes.affected.plan import Plan
from lanes.affected.planread import PlanFormatError
from lanes.affected.selfcheck import FILES
from lanes.config import load_config
from tests.support.git import make_repo

if TYPE_CHECKING:
    from collections.abc import Callable

GATED = {
    **FILES,
    "pyproject.toml": FILES["pyproject.toml"]
    + '\n[tool.lanes.affected.gates.lint]\ncommand = "ruff check"\ninputs = ["*.py"]\n',
}


@pytest.fixture(scope="module")
def plans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Real plans of the self-check's project: a narrowed one with a gate, and the full set."""
    root = make_repo(tmp_path_factory.mktemp("plans"), GATED, "base")
    (root / "pkg/leaf.py").write_text("def f(x: int) -> int:\n    return x\n")
    config = load_config(cwd=root)
    narrowed = build_plan(config, "HEAD").to_dict()
    (root / "setup.cfg").write_text("[metadata]\nname = planted\n")
    full = build_plan(config, "HEAD").to_dict()
    # As JSON text, the way another process hands a plan over.
    documents: dict[str, dict[str, Any]] = json.loads(
        json.dumps({"narrowed": narrowed, "full": full})
    )
    return documents


@pytest.mark.parametrize("kind", ["narrowed", "full"])
def test_a_plan_reads_back_as_itself(plans: dict[str, dict[str, Any]], kind: str) -> None:
    document = plans[kind]
    assert document["gates"], "the fixture's plans fire the lint gate"
    assert Plan.from_dict(copy.deepcopy(document)).to_dict() == document


def test_the_map_narrowed_test_ids_and_the_planner_read_back(
    plans: dict[str, dict[str, Any]],
) -> None:
    document = copy.deepcopy(plans["narrowed"])
    reason = {"rule": "map", "changed": "pkg/leaf.py", "detail": "executed f"}
    document["tests"][0]["nodes"] = [{"id": "tests/test_leaf.py::test_f", "reasons": [reason]}]
    document["planned_by"] = "the base commit's selector (0123456789ab): ..."
    plan = Plan.from_dict(copy.deepcopy(document))
    assert list(plan.nodes) == ["tests/test_leaf.py"]
    ((node, why),) = plan.nodes["tests/test_leaf.py"].items()
    assert (node, [r.rule for r in why]) == ("tests/test_leaf.py::test_f", ["map"])
    assert plan.planned_by.startswith("the base commit's selector")
    document["counts"].update(narrowed_files=1, node_ids=1)
    assert plan.to_dict() == document


def test_a_plan_from_before_the_optional_fields_reads(plans: dict[str, dict[str, Any]]) -> None:
    document = copy.deepcopy(plans["narrowed"])
    del document["map"]
    plan = Plan.from_dict(document)
    assert plan.map_state == ""
    assert plan.planned_by == ""


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda doc: doc.pop(key)


def _set(path: tuple[str | int, ...], value: object) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        target: Any = doc
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return change


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        (_drop("suites"), "the plan: suites must be a list, got NoneType"),
        (_drop("base"), "the plan: base must be a string, got None"),
        (_drop("counts"), "the plan: counts must be a JSON object, got NoneType"),
        (_set(("full",), "yes"), "the plan: full must be true or false, got 'yes'"),
        (_set(("full",), True), "the plan: full is True but it has 0 full_reasons"),
        (_set(("base_commit",), 7), "the plan: base_commit must be a string or null, got 7"),
        (
            _set(("tests", 0, "reasons"), "import graph"),
            "the plan: tests[0]: reasons must be a list",
        ),
        (_set(("tests", 0, "reasons", 0), ["rule"]), "tests[0]: reasons[0] must be a JSON object"),
        (
            _set(("tests", 0, "nodes"), [{"id": 3, "reasons": []}]),
            "tests[0]: nodes[0]: id must be a string",
        ),
        (_set(("suites", 0, "command"), "pytest tests"), "suites[0]: command must be a list"),
        (
            _set(("suites", 0, "command"), ["pytest", 1]),
            "suites[0]: command must be a list of strings",
        ),
        (_set(("changed", 0, "tests"), -1), "changed[0]: tests must be an integer from 0"),
        (_set(("gates", 0, "command"), None), "gates[0]: command must be a string"),
        (
            _set(("blind_spots",), [{"file": "a.py", "line": True, "what": "x"}]),
            "blind_spots[0]: line must be an integer",
        ),
    ],
)
def test_a_damaged_plan_is_refused_naming_the_field(
    plans: dict[str, dict[str, Any]], damage: Callable[[dict[str, Any]], None], named: str
) -> None:
    document = copy.deepcopy(plans["narrowed"])
    damage(document)
    with pytest.raises(PlanFormatError) as caught:
        Plan.from_dict(document)
    assert named in str(caught.value)
    assert "another lanekit process or version" in caught.value.hint


def test_a_plan_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(PlanFormatError, match="the plan must be a JSON object, got list"):
        Plan.from_dict([])
