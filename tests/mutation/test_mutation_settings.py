"""[tool.lanes.mutation] is strict: every mistake names the key and the fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lanes.config import parse_config
from lanes.errors import ConfigError


def _parse(mutation: dict[str, Any]) -> Any:  # the parsed Config
    return parse_config({"mutation": mutation}, root=Path("/project"))


def test_defaults_and_a_module() -> None:
    config = _parse(
        {"canary": "lock", "modules": {"lock": {"paths": ["src/pkg/lock.py"], "shards": 2}}}
    )
    settings = config.mutation
    assert (settings.required_stable_runs, settings.timeout_multiplier) == (2, 5.0)
    assert settings.modules["lock"].tests == ()  # the whole suite
    assert settings.modules["lock"].shards == 2
    assert config.section_hash("mutation") != _parse({}).section_hash("mutation")


@pytest.mark.parametrize(
    ("mutation", "message"),
    [
        ({"shard": 2}, "unknown key 'shard'"),
        ({"modules": {"lock": {"paths": []}}}, "paths must be a non-empty list"),
        ({"modules": {"lock": {"tests": ["tests"]}}}, "has no paths"),
        ({"modules": {"lock": {"paths": ["src/pkg"]}}}, "paths must name Python files"),
        ({"modules": {"lock": {"paths": ["a.py"], "shard": 2}}}, "did you mean 'shards'"),
        ({"modules": {"lock": {"paths": ["a.py"], "shards": 0}}}, "shards must be an integer >= 1"),
        (
            {"canary": "lok", "modules": {"lock": {"paths": ["a.py"]}}},
            "canary 'lok' names no module",
        ),
        ({"timeout_multiplier": 0}, "timeout_multiplier must be a finite number > 0"),
    ],
)
def test_mistakes_are_config_errors_with_a_hint(mutation: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message) as excinfo:
        _parse(mutation)
    assert excinfo.value.hint.strip()
