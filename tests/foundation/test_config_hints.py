"""A suite's tier names a defined tier, and every hint that offers "the
default" names the real one (and only keys that have one offer it)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from lanes.config import parse_config
from lanes.errors import ConfigError

ROOT = Path("/project")


def _error(table: dict[str, Any]) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse_config(table, root=ROOT)
    return caught.value


def test_a_suite_tier_must_be_a_defined_tier() -> None:
    error = _error(
        {
            "suites": {"it": {"paths": ["tests/it"], "tier": "integraton"}},
            "slow": {"tiers": {"unit": {"budget": 1}, "integration": {"budget": 9}}},
        }
    )
    assert error.message == (
        "[tool.lanes.suites.it] tier 'integraton' is not a defined tier "
        "(tiers: integration, unit) — did you mean 'integration'?"
    )
    assert "[tool.lanes.slow.tiers.integraton]" in error.hint
    assert "the default tier ('unit')" in error.hint


def test_an_undefined_tier_with_the_default_tiers_is_an_error_too() -> None:
    # The case from a real project: accepted, and it silently did nothing.
    error = _error({"suites": {"unit": {"paths": ["tests"], "tier": "integration"}}})
    assert "tier 'integration' is not a defined tier (tiers: unit)" in error.message


def test_a_suite_without_a_tier_gets_the_default_tier() -> None:
    config = parse_config(
        {
            "suites": {"all": {"paths": ["tests"]}},
            "slow": {"default_tier": "fast", "tiers": {"fast": {"budget": 1}}},
        },
        root=ROOT,
    )
    assert config.suites["all"].tier == "fast"
    without_suites = parse_config(
        {"slow": {"default_tier": "fast", "tiers": {"fast": {"budget": 1}}}}, root=ROOT
    )
    assert without_suites.suites["tests"].tier == "fast"


@pytest.mark.parametrize(
    ("table", "default"),
    [
        ({"governor": {"max_full": -1}}, "2"),
        ({"governor": {"gate_runners": ["nope"]}}, '["pytest", "unittest"]'),
        ({"slow": {"enabled": "yes"}}, "false"),
        ({"fuzz": {"case_budget": 0}}, "2.0"),
        ({"torture": {"scheduler": "fifo"}}, '"random"'),
        ({"suites": {"u": {"paths": ["t"], "command": ""}}}, '"pytest t"'),
        (
            {"fuzz": {"targets": {"x": {"callable": "a:b", "strategy": "c:d", "error": "E"}}}},
            '"lanes.errors:LanesError"',
        ),
    ],
)
def test_a_hint_that_offers_the_default_names_it(table: dict[str, Any], default: str) -> None:
    hint = _error(table).hint
    assert hint.endswith(f"or remove it to use the default ({default})"), hint


@pytest.mark.parametrize(
    "table",
    [
        # Required keys: removing them is another error, so no default is offered.
        {"slow": {"tiers": {"unit": {"budget": -1}}}},
        {"fuzz": {"targets": {"x": {"callable": "nocolon", "strategy": "a:b"}}}},
        {"fuzz": {"targets": {"x": {"callable": "a:b", "strategy": 3}}}},
        {"suites": {"u": {"paths": ["t"], "tier": ""}}},
    ],
)
def test_a_key_without_a_default_offers_none(table: dict[str, Any]) -> None:
    hint = _error(table).hint
    assert not re.search(r"\bthe default\b(?! tier)", hint), hint
