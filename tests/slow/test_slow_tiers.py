"""Tier resolution: marker first, then path glob, then the default tier."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from lanes.config import parse_config
from lanes.slow.tiers import TierResolver, compile_glob

if TYPE_CHECKING:
    from lanes.slow.settings import SlowConfig


def _slow(tiers: dict[str, object]) -> SlowConfig:
    return parse_config({"slow": {"tiers": tiers}}, root=Path("/project")).slow


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("tests/integration/**", "tests/integration/test_a.py", True),
        ("tests/integration/**", "tests/integration/deep/test_a.py", True),
        ("tests/integration/**", "tests/unit/test_a.py", False),
        ("tests/*.py", "tests/test_a.py", True),
        ("tests/*.py", "tests/sub/test_a.py", False),
        ("**/test_db_*.py", "test_db_x.py", True),
        ("**/test_db_*.py", "a/b/test_db_x.py", True),
        ("tests/test_?.py", "tests/test_a.py", True),
        ("tests/test_[ab].py", "tests/test_c.py", False),
        ("tests/test_[!ab].py", "tests/test_c.py", True),
        # A plain path names a file or a whole directory, like suite paths.
        ("tests/integration", "tests/integration/x/test_a.py", True),
        ("./tests/integration/", "tests/integration/test_a.py", True),
        ("tests/integration", "tests/integration_more/test_a.py", False),
        ("tests/test_a.py", "tests/test_a.py", True),
    ],
)
def test_glob(pattern: str, path: str, matches: bool) -> None:
    assert bool(compile_glob(pattern).match(path)) is matches


def test_marker_beats_path_and_first_declared_tier_wins() -> None:
    resolver = TierResolver(
        _slow(
            {
                "unit": {"budget": 1},
                "integration": {"budget": 10, "markers": ["integration"], "paths": ["tests/it/**"]},
                "e2e": {"budget": 60, "markers": ["e2e", "integration"], "paths": ["tests/**"]},
            }
        )
    )
    assert resolver.resolve("tests/unit/test_a.py", ["e2e"]) == "e2e"
    # Both tiers list `integration`; the first declared wins.
    assert resolver.resolve("tests/unit/test_a.py", ["integration"]) == "integration"
    assert resolver.resolve("tests/unit/test_a.py", ["e2e", "integration"]) == "integration"
    # A marker wins over a path that points at another tier.
    assert resolver.resolve("tests/it/test_a.py", ["e2e"]) == "e2e"
    assert resolver.resolve("tests/it/test_a.py", ["parametrize"]) == "integration"
    assert resolver.resolve("tests/unit/test_a.py", []) == "e2e"  # tests/** path rule
    assert resolver.resolve("other/test_a.py", []) == "unit"


def test_default_tier_is_configurable() -> None:
    slow = parse_config(
        {"slow": {"default_tier": "fast", "tiers": {"fast": {"budget": 0.5}}}}, root=Path("/p")
    ).slow
    assert TierResolver(slow).resolve("anything.py", ["x"]) == "fast"
