"""Hostile ``[tool.lanes]`` tables and ``pyproject.toml`` text for the config loader.

Tables come as ``tomllib`` would return them (64-bit integers, NaN, dates and
times, arrays, nested tables), built like every document strategy with
:func:`~lanes.strategies.documents.shaped`: the valid shape of each section
with a few keys wrongly typed or dropped, plus unknown and misspelt keys.
:func:`to_toml` writes a table back as TOML, so the same tables reach
``load_config`` through a real file.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from typing import TYPE_CHECKING, Any, Final

from hypothesis import strategies as st

from lanes.sections import LANES_KEYS
from lanes.strategies.documents import hostile_strings, hostile_text, mangled, shaped

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["CONFIG_SECTIONS", "config_tables", "pyproject_texts", "to_toml", "toml_values"]


def toml_values(*, max_leaves: int = 6) -> st.SearchStrategy[Any]:
    """Any value ``tomllib`` can produce: 64-bit ints, floats (NaN too), dates, arrays, tables."""
    scalars = st.one_of(
        st.booleans(),
        st.integers(min_value=-(2**63), max_value=2**63 - 1),
        st.floats(allow_nan=True),
        hostile_text(max_size=20).filter(_toml_encodable),
        st.datetimes(timezones=st.sampled_from((None, dt.UTC))),
        st.dates(),
        st.times(),
    )
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=3),
            st.dictionaries(_toml_keys(), children, max_size=3),
        ),
        max_leaves=max_leaves,
    )


def _toml_encodable(text: str) -> bool:
    # TOML text is UTF-8 and forbids most control characters even escaped-free;
    # a lone surrogate could never come out of tomllib.
    return not any("\ud800" <= ch <= "\udfff" for ch in text)


def _toml_keys() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(_ALL_CONFIG_KEYS), hostile_text(max_size=10).filter(_toml_encodable)
    )


_NAMES: Final = st.sampled_from(("unit", "integration", "e2e", "tests", "x"))
_PATHS: Final = st.lists(st.sampled_from(("tests", "./tests/unit/", "src", ".", "")), max_size=3)
_REFS: Final = st.sampled_from(
    ("pkg.mod:func", "json:loads", "nomodule", ":x", "a:", "lanes.errors:LanesError")
)

# The valid shape of each section, as TOML would deliver it.
_SECTION_FIELDS: Final[Mapping[str, Mapping[str, st.SearchStrategy[Any]]]] = {
    "suite": {
        "paths": _PATHS,
        "command": st.sampled_from(("pytest tests -q", "make verify", "")),
        "max_age": st.integers(-1, 10**6),
        "tier": _NAMES,
        "runner": st.sampled_from(("pytest", "unittest", "command", "jest", "nope")),
        "lock": st.booleans(),
    },
    "governor": {
        "max_full": st.integers(-1, 10),
        "escalate_at": st.integers(-1, 12),
        "lock_ttl": st.integers(-1, 10**5),
        "sweep_min_paths": st.integers(-1, 10),
        "gate_runners": st.lists(st.sampled_from(("pytest", "unittest", "jest", "")), max_size=3),
    },
    "slow": {
        "enabled": st.booleans(),
        "fail_factor": st.floats(min_value=-1, max_value=10),
        "default_tier": _NAMES,
        "tighten_below": st.floats(min_value=-1, max_value=1),
        "pins": st.sampled_from(("baselines/slow-tests.json", "")),
    },
    "tier": {
        "budget": st.one_of(st.floats(min_value=-1, max_value=60), st.integers(-1, 60)),
        "markers": st.lists(_NAMES, max_size=2),
        "paths": _PATHS,
    },
    "fuzz": {
        "iterations": st.integers(-1, 10**5),
        "seed": st.integers(-1, 2**32),
        "case_budget": st.floats(min_value=-1, max_value=10),
    },
    "fuzz_target": {
        "callable": _REFS,
        "strategy": _REFS,
        "error": _REFS,
        "hint_attribute": st.sampled_from(("hint", "", "message")),
    },
    "torture": {
        "runs": st.integers(-1, 1000),
        "seed_start": st.integers(-1, 100),
        "clients": st.integers(-1, 8),
        "ops": st.integers(-1, 100),
        "scheduler": st.sampled_from(("random", "pct", "fifo")),
    },
}

# Every key [tool.lanes] may hold, from the section registry: a registered
# section is a key of the hostile tables the moment its registry line exists.
CONFIG_SECTIONS: Final = LANES_KEYS
_ALL_CONFIG_KEYS: Final = tuple(
    sorted({key for fields in _SECTION_FIELDS.values() for key in fields} | set(CONFIG_SECTIONS))
)


def config_tables() -> st.SearchStrategy[dict[str, Any]]:
    """``[tool.lanes]`` tables as ``tomllib`` returns them: plausible, with wrong types and unknown keys."""
    wrong = toml_values(max_leaves=3)

    def section(kind: str) -> st.SearchStrategy[dict[str, Any]]:
        return shaped(_SECTION_FIELDS[kind], wrong=wrong)

    def named(kind: str) -> st.SearchStrategy[dict[str, Any]]:
        return st.dictionaries(_NAMES, section(kind), max_size=2)

    slow = st.builds(
        lambda s, tiers: {**s, "tiers": tiers} if tiers else s, section("slow"), named("tier")
    )
    fuzz = st.builds(
        lambda f, targets: {**f, "targets": targets} if targets else f,
        section("fuzz"),
        named("fuzz_target"),
    )
    return shaped(
        {
            "suites": named("suite"),
            "governor": section("governor"),
            "slow": slow,
            "fuzz": fuzz,
            "torture": section("torture"),
            "envelope_dir": st.sampled_from(("envelopes", "out", "")),
            "baseline_dir": st.sampled_from(("baselines", "")),
        },
        wrong=wrong,
    )


def _toml_string(text: str) -> str:
    # A JSON string is a valid TOML basic string for every character JSON
    # escapes as \uXXXX or a short escape, which is all of them here.
    return json.dumps(text)


def _toml_float(number: float) -> str:
    if math.isnan(number):
        return "nan"
    if math.isinf(number):
        return "inf" if number > 0 else "-inf"
    return repr(number)


def to_toml(value: object) -> str:
    """``value`` as a TOML value expression (inline tables for nested tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _toml_float(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, list):
        return "[" + ", ".join(to_toml(item) for item in value) + "]"
    if isinstance(value, dict):
        pairs = ", ".join(f"{_toml_string(key)} = {to_toml(item)}" for key, item in value.items())
        return "{" + pairs + "}"
    msg = f"to_toml() cannot write {type(value).__name__} {value!r}; TOML has no such type"
    raise TypeError(msg)


def _pyproject(table: Mapping[str, Any]) -> str:
    lines = ["[project]", 'name = "fuzzed"', "", "[tool.lanes]"]
    lines += [f"{_toml_string(key)} = {to_toml(value)}" for key, value in table.items()]
    return "\n".join(lines) + "\n"


def pyproject_texts() -> st.SearchStrategy[str]:
    """``pyproject.toml`` text carrying a generated ``[tool.lanes]`` table, damaged or not."""
    return st.one_of(
        mangled(config_tables().map(_pyproject)),
        st.builds(lambda text: f"[tool]\nlanes = {text}\n", st.sampled_from(("1", '"x"', "[]"))),
        hostile_strings(),
    )
