"""Config tables that break exactly one field of an otherwise valid table.

Random ``[tool.lanes]`` tables are rejected early, by their first wrong key,
so a fuzzer rarely reaches a number field at all (of 2,000 random tables, 4
did). These start from :data:`VALID_TABLE`, which the loader accepts, and
replace ONE field with a value of a forbidden type or below its minimum: the
loader must refuse every one with its typed error. The governor's fields come
from its settings table (:data:`lanes.governor.settings.FIELDS`), so a new
setting is covered the moment its row exists.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from hypothesis import strategies as st

from lanes.governor import settings as governor_settings

__all__ = ["FIELD_KINDS", "VALID_TABLE", "forbidden_values", "one_field_broken_tables"]

VALID_TABLE: Final[dict[str, Any]] = {
    "suites": {
        "unit": {"paths": ["tests"], "command": "pytest tests -q", "max_age": 3600, "lock": True}
    },
    "slow": {
        "enabled": True,
        "fail_factor": 2.0,
        "tighten_below": 0.5,
        "pins": "baselines/slow-tests.json",
    },
    "fuzz": {"iterations": 100, "seed": 1, "case_budget": 2.0},
    "torture": {"runs": 10, "seed_start": 0, "clients": 3, "ops": 20, "scheduler": "random"},
    "envelope_dir": "envelopes",
    "baseline_dir": "baselines",
}


def _governor_kinds() -> dict[tuple[str, ...], tuple[str, float | None]]:
    kinds: dict[tuple[str, ...], tuple[str, float | None]] = {}
    for row in governor_settings.FIELDS:
        minimum = getattr(row, "minimum", None)
        if isinstance(row.default, tuple):
            kind = "strings"
        elif isinstance(row.default, str):
            kind = "string"  # a closed choice (enforce): any non-string is refused
        else:
            kind = "int"
        kinds["governor", row.name] = (kind, minimum)
    return kinds


# Where each field lives in the table, its kind and (for numbers) its minimum.
FIELD_KINDS: Final[dict[tuple[str, ...], tuple[str, float | None]]] = {
    ("suites", "unit", "paths"): ("strings", None),
    ("suites", "unit", "command"): ("string", None),
    ("suites", "unit", "max_age"): ("int", 1),
    ("suites", "unit", "lock"): ("bool", None),
    ("slow", "enabled"): ("bool", None),
    ("slow", "fail_factor"): ("number", 1.0),
    ("slow", "tighten_below"): ("number", None),
    ("slow", "pins"): ("path", None),
    ("fuzz", "iterations"): ("int", 1),
    ("fuzz", "seed"): ("int", 0),
    ("fuzz", "case_budget"): ("number", None),
    ("torture", "runs"): ("int", 1),
    ("torture", "seed_start"): ("int", 0),
    ("torture", "clients"): ("int", 2),
    ("torture", "ops"): ("int", 1),
    ("torture", "scheduler"): ("string", None),
    ("envelope_dir",): ("path", None),
    ("baseline_dir",): ("path", None),
    **_governor_kinds(),
}

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
