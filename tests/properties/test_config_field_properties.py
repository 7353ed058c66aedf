"""The other half of the config oracle (a gap the first oracle
left): for every config field, a value of a forbidden type or range is never accepted — a
typed ConfigError naming the field, never a coerced value or a bare
ValueError/TypeError. The governor's fields come from its settings table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from lanes.config import parse_config
from lanes.errors import ConfigError
from lanes.governor.settings import KEYS
from lanes.strategies.config_fields import (
    FIELD_KINDS,
    VALID_TABLE,
    forbidden_values,
    one_field_broken_tables,
)

ROOT = Path("/nonexistent/project")


def test_the_base_table_is_valid() -> None:
    config = parse_config(VALID_TABLE, root=ROOT)
    assert config.suites["unit"].max_age == 3600


def test_every_governor_setting_has_a_property() -> None:
    assert {where[1] for where in FIELD_KINDS if where[0] == "governor"} == set(KEYS)


@pytest.mark.parametrize("where", sorted(FIELD_KINDS), ids="/".join)
def test_a_forbidden_value_is_never_accepted(where: tuple[str, ...]) -> None:
    kind, minimum = FIELD_KINDS[where]

    @given(forbidden_values(kind, minimum))
    def refused(value: Any) -> None:
        table = dict(VALID_TABLE)
        holder = table
        for key in where[:-1]:
            holder[key] = dict(holder.get(key, {}))
            holder = holder[key]
        holder[where[-1]] = value
        with pytest.raises(ConfigError) as raised:
            parse_config(table, root=ROOT)
        assert where[-1] in raised.value.message
        assert raised.value.hint

    refused()


@given(one_field_broken_tables())
def test_a_table_with_one_broken_field_is_refused(table: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        parse_config(table, root=ROOT)
