"""Config tables that break exactly one field of an otherwise valid table.

Random ``[tool.lanes]`` tables are rejected early, by their first wrong key,
so a fuzzer rarely reaches a number field at all (of 2,000 random tables, 4
did). These start from :data:`VALID_TABLE`, which the loader accepts, and
replace ONE field with a value of a forbidden type or below its minimum: the
loader must refuse every one with its typed error. The fields come from the
rows of every registered section (:mod:`lanes.sections`), so a new setting
is covered the moment its row exists; a new table of named entries needs one
entry in :data:`VALID_TABLE` (the derivation says which).
"""

from __future__ import annotations

import copy
from typing import Any, Final

from hypothesis import strategies as st

from lanes.sections import Project, section_classes
from lanes.settings_rows import Row, Section, Sub
from lanes.settings_tables import StringsTable, Tables

__all__ = ["FIELD_KINDS", "VALID_TABLE", "forbidden_values", "one_field_broken_tables"]

# One entry per table of named entries, so that every row of every section
# has a place in a valid table to be broken at.
VALID_TABLE: Final[dict[str, Any]] = {
    "suites": {
        "unit": {
            "paths": ["tests"],
            "command": "pytest tests -q",
            "max_age": 3600,
            "lock": True,
            "timing": {"repeat": 1},
        }
    },
    "slow": {
        "enabled": True,
        "fail_factor": 2.0,
        "tighten_below": 0.5,
        "pins": "baselines/slow-tests.json",
        "tiers": {"unit": {"budget": 2.5}},
    },
    "fuzz": {
        "iterations": 100,
        "seed": 1,
        "case_budget": 2.0,
        "targets": {"t": {"callable": "pkg.mod:parse", "strategy": "pkg.mod:inputs"}},
    },
    "torture": {"runs": 10, "seed_start": 0, "clients": 3, "ops": 20, "scheduler": "random"},
    "mutation": {"modules": {"core": {"paths": ["src/core.py"]}}},
    "affected": {
        "owners": {"data/*.json": ["tests/test_data.py"]},
        "gates": {"lint": {"command": "nox -s lint", "inputs": ["*.py"]}},
    },
    "envelope_dir": "envelopes",
    "baseline_dir": "baselines",
}

Kinds = dict[tuple[str, ...], tuple[str, float | None]]


def _kinds_of(section: type[Section], where: tuple[str, ...], valid: dict[str, Any]) -> Kinds:
    kinds: Kinds = {}
    for row in section.ROWS:
        at = (*where, row.name)
        if isinstance(row, Sub | Tables | StringsTable):
            table = valid.get(row.name)
            if not isinstance(table, dict) or not table:
                msg = f"VALID_TABLE has no entry at {'.'.join(at)}: add one so its rows are fuzzed"
                raise LookupError(msg)
            if isinstance(row, Sub):
                kinds.update(_kinds_of(row.section, at, table))
            elif isinstance(row, Tables):
                name = next(iter(table))
                kinds.update(_kinds_of(row.entry, (*at, name), table[name]))
            else:
                kinds[*at, next(iter(table))] = (row.value.kind, None)
        else:
            kinds[at] = (row.kind, _minimum(row))
    return kinds


def _minimum(row: Row) -> float | None:
    minimum = getattr(row, "minimum", None)
    return None if minimum is None else float(minimum)


def _field_kinds() -> Kinds:
    kinds = _kinds_of(Project, (), VALID_TABLE)
    for name, section in section_classes():
        kinds.update(_kinds_of(section, (name,), VALID_TABLE.get(name, {})))
    return kinds


# Where each field lives in the table, its kind and (for numbers) its minimum.
FIELD_KINDS: Final = _field_kinds()

_NOT_A_NUMBER: Final = st.one_of(
    st.sampled_from(("2.5", "3", "abc", "", "1e3", "inf")),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=1),
    st.booleans(),
)
_NOT_A_STRING: Final = st.one_of(
    st.integers(), st.floats(), st.booleans(), st.lists(st.text(max_size=3), max_size=2)
)


def forbidden_values(kind: str, minimum: float | None = None) -> st.SearchStrategy[Any]:
    """Values the loader must refuse for a field of ``kind`` (and ``minimum``)."""
    if kind == "int":
        too_small = () if minimum is None else (st.integers(max_value=int(minimum) - 1),)
        return st.one_of(_NOT_A_NUMBER, st.floats(allow_nan=True), *too_small)
    if kind == "number":
        below = () if minimum is None else (st.floats(max_value=minimum, exclude_max=True),)
        special = st.sampled_from((float("nan"), float("inf"), float("-inf")))
        return st.one_of(_NOT_A_NUMBER, special, *below)
    if kind == "bool":
        return st.one_of(
            st.integers(), st.sampled_from(("true", "false", "")), st.lists(st.booleans())
        )
    if kind == "strings":
        return st.one_of(
            st.text(max_size=8), st.integers(), st.lists(st.integers(), min_size=1, max_size=2)
        )
    if kind == "path":
        escaping = st.sampled_from(("/", "../x", "a/../../b", "/etc", ""))
        return st.one_of(_NOT_A_STRING, escaping)
    return _NOT_A_STRING


def _replaced(table: dict[str, Any], where: tuple[str, ...], value: object) -> dict[str, Any]:
    broken = copy.deepcopy(table)
    holder = broken
    for key in where[:-1]:
        holder = holder.setdefault(key, {})
    holder[where[-1]] = value
    return broken


def one_field_broken_tables() -> st.SearchStrategy[dict[str, Any]]:
    """:data:`VALID_TABLE` with exactly one field given a forbidden value."""
    return st.sampled_from(sorted(FIELD_KINDS)).flatmap(
        lambda where: forbidden_values(*FIELD_KINDS[where]).map(
            lambda value: _replaced(VALID_TABLE, where, value)
        )
    )
