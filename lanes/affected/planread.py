"""Reading a plan back from its JSON (:meth:`lanes.affected.plan.Plan.from_dict`).

The document comes from another process, maybe another lanekit version (the
base commit's selector planning a change to lanekit's own code,
:mod:`lanes.affected.selfplan`): every field :meth:`Plan.to_dict` writes is
checked for presence and type, and the first one that is wrong is a
:class:`PlanFormatError` naming it. Optional fields (``map``, ``planned_by``,
a test's ``nodes``) may be absent, as in a plan from before they existed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanes._jsondoc import integer_field, string_field
from lanes.affected.plan import Selection
from lanes.affected.rules import Reason
from lanes.affected.settings import Gate
from lanes.affected.suites import SuiteRun
from lanes.errors import LanesError

if TYPE_CHECKING:
    from lanes.affected.plan import Plan
    from lanes.payloads.affected import AffectedBlindSpot

__all__ = ["PlanFormatError", "read_plan"]


class PlanFormatError(LanesError, ValueError):
    """A serialised plan that is not one: a field missing, or of the wrong type."""


_PLAN_HINT = (
    "the plan was written by another lanekit process or version; make it with this one "
    "(lanes affected --json), or report the field named if both are the same version"
)


def _fail(message: str) -> PlanFormatError:
    return PlanFormatError(message, hint=_PLAN_HINT)


def _object(value: object, where: str) -> dict[str, object]:
    if not isinstance(value, dict):
        msg = f"{where} must be a JSON object, got {type(value).__name__}"
        raise _fail(msg)
    return value


def _items(document: dict[str, object], key: str, where: str) -> list[object]:
    value = document.get(key)
    if not isinstance(value, list):
        msg = f"{where}: {key} must be a list, got {type(value).__name__}"
        raise _fail(msg)
    return value


def _text(document: dict[str, object], key: str, where: str, default: str | None = None) -> str:
    return string_field(document, key, fail=_fail, what=where, default=default)


def _texts(document: dict[str, object], key: str, where: str) -> list[str]:
    values = _items(document, key, where)
    if not all(isinstance(value, str) for value in values):
        msg = f"{where}: {key} must be a list of strings"
        raise _fail(msg)
    return [str(value) for value in values]


def _flag(document: dict[str, object], key: str, where: str) -> bool:
    value = document.get(key)
    if not isinstance(value, bool):
        msg = f"{where}: {key} must be true or false, got {value!r:.80}"
        raise _fail(msg)
    return value


def _reasons(document: dict[str, object], key: str, where: str) -> list[Reason]:
    reasons: list[Reason] = []
    for i, item in enumerate(_items(document, key, where)):
        entry = _object(item, f"{where}: {key}[{i}]")
        at = f"{where}: {key}[{i}]"
        reasons.append(
            Reason(
                _text(entry, "rule", at), _text(entry, "changed", at), _text(entry, "detail", at)
            )
        )
    return reasons


def read_plan(cls: type[Plan], document: object) -> Plan:
    """:meth:`Plan.from_dict`: each field of :class:`~lanes.payloads.affected.AffectedPlan`, checked."""
    doc = _object(document, "the plan")
    base_commit = doc.get("base_commit")
    if base_commit is not None and not isinstance(base_commit, str):
        msg = f"the plan: base_commit must be a string or null, got {base_commit!r:.80}"
        raise _fail(msg)
    full_reasons = _reasons(doc, "full_reasons", "the plan")
    if _flag(doc, "full", "the plan") != bool(full_reasons):
        msg = f"the plan: full is {doc['full']!r} but it has {len(full_reasons)} full_reasons"
        raise _fail(msg)
    selections: list[Selection] = []
    for i, item in enumerate(_items(doc, "changed", "the plan")):
        at = f"the plan: changed[{i}]"
        entry = _object(item, at)
        selections.append(
            Selection(
                path=_text(entry, "path", at),
                change=_text(entry, "change", at),
                rule=_text(entry, "rule", at),
                detail=_text(entry, "detail", at),
                selected=integer_field(entry, "tests", fail=_fail, what=at),
            )
        )
    tests: dict[str, list[Reason]] = {}
    nodes: dict[str, dict[str, list[Reason]]] = {}
    for i, item in enumerate(_items(doc, "tests", "the plan")):
        at = f"the plan: tests[{i}]"
        entry = _object(item, at)
        file = _text(entry, "file", at)
        tests[file] = _reasons(entry, "reasons", at)
        if "nodes" in entry:
            for j, node in enumerate(_items(entry, "nodes", at)):
                one = _object(node, f"{at}: nodes[{j}]")
                by_id = nodes.setdefault(file, {})
                by_id[_text(one, "id", f"{at}: nodes[{j}]")] = _reasons(
                    one, "reasons", f"{at}: nodes[{j}]"
                )
    suites: list[SuiteRun] = []
    for i, item in enumerate(_items(doc, "suites", "the plan")):
        at = f"the plan: suites[{i}]"
        entry = _object(item, at)
        suites.append(
            SuiteRun(
                _text(entry, "name", at),
                _texts(entry, "command", at),
                _texts(entry, "files", at),
                _flag(entry, "full", at),
                _texts(entry, "nodes", at) if "nodes" in entry else [],
            )
        )
    gates: dict[str, tuple[Gate, list[Reason]]] = {}
    for i, item in enumerate(_items(doc, "gates", "the plan")):
        at = f"the plan: gates[{i}]"
        entry = _object(item, at)
        name = _text(entry, "name", at)
        # A gate's inputs decided the plan that fired it; to run it, its command is enough.
        gate = Gate(name, command=_text(entry, "command", at), inputs=())
        gates[name] = (gate, _reasons(entry, "reasons", at))
    blind: list[AffectedBlindSpot] = []
    for i, item in enumerate(_items(doc, "blind_spots", "the plan")):
        at = f"the plan: blind_spots[{i}]"
        entry = _object(item, at)
        blind.append(
            {
                "file": _text(entry, "file", at),
                "line": integer_field(entry, "line", fail=_fail, what=at),
                "what": _text(entry, "what", at),
            }
        )
    counts = _object(doc.get("counts"), "the plan: counts")
    return cls(
        base=_text(doc, "base", "the plan"),
        base_commit=base_commit,
        selections=selections,
        tests=tests,
        full_reasons=full_reasons,
        suites=suites,
        gates=gates,
        blind_spots=blind,
        total_tests=integer_field(counts, "total", fail=_fail, what="the plan: counts"),
        map_state=_text(doc, "map", "the plan", default=""),
        nodes=nodes,
        planned_by=_text(doc, "planned_by", "the plan", default=""),
    )
