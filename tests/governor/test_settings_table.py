"""[tool.lanes.governor] is one table: every row is the key, the parse, the
default, the environment override, the cache row and the governor page's line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lanes.config import Config, parse_config
from lanes.errors import ConfigError
from lanes.governor.config_cache import CachedConfig, cache_row
from lanes.governor.settings import (
    ENV_OVERRIDES,
    FIELDS,
    KEYS,
    GovernorSettings,
    reference,
)

GOVERNOR_PAGE = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "governor.md"


def test_the_governor_page_shows_the_table_as_the_rows_define_it() -> None:
    # A new row (or a changed default or doc) fails here with the exact
    # lines to paste into docs/how-to/governor.md, "Settings".
    assert reference() in GOVERNOR_PAGE.read_text(encoding="utf-8"), reference()


def test_every_row_is_a_known_key_with_its_default() -> None:
    config = parse_config({}, root=Path())
    assert tuple(config.governor.to_dict()) == KEYS
    for row in FIELDS:
        assert getattr(config.governor, row.name) == row.default


@pytest.mark.parametrize("row", FIELDS, ids=lambda row: row.name)
def test_a_misspelt_key_names_the_row(row: object) -> None:
    name = getattr(row, "name")  # noqa: B009  # a _Setting: its name is the key
    with pytest.raises(ConfigError) as caught:
        parse_config({"governor": {name + "x": 1}}, root=Path())
    assert f"did you mean {name!r}" in caught.value.message
    assert caught.value.hint


def test_the_cache_row_round_trips_every_field() -> None:
    config: Config = parse_config(
        {"governor": {"lock_ttl": 77, "sweep_min_paths": 9, "gate_runners": ["pytest"]}},
        root=Path("/project"),
    )
    # Through JSON, as the cache file stores it.
    cached = CachedConfig(json.loads(json.dumps(cache_row(config))))
    assert cached.governor == config.governor
    assert (cached.root, cached.envelope_dir) == (str(config.root), config.envelope_dir)


def test_the_environment_overrides_are_the_rows_that_name_one() -> None:
    assert {row.env for row in ENV_OVERRIDES} == {"LANES_MAX_FULL", "LANES_ESCALATE_AT"}
    row = next(row for row in ENV_OVERRIDES if row.name == "max_full")
    assert row.from_environment({"LANES_MAX_FULL": "7"}) == 7
    assert row.from_environment({"LANES_MAX_FULL": "seven"}) is None


def test_a_bad_value_is_refused_with_the_row_bounds() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"governor": {"tree_timeout": 0}}, root=Path())
    assert "tree_timeout must be an integer >= 1" in caught.value.message
    assert GovernorSettings().tree_timeout == 20
