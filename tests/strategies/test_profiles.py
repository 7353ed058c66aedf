"""Which Hypothesis profile the suite runs under, and what each one promises."""

from __future__ import annotations

import pytest
from hypothesis import settings

from lanes.errors import UsageError
from lanes.strategies.profiles import PROFILES, register_profiles, selected_profile


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "dev"),
        ({"CI": "true"}, "ci"),
        ({"CI": ""}, "dev"),
        ({"CI": "true", "LANES_HYPOTHESIS_PROFILE": "fuzz"}, "fuzz"),
        ({"LANES_HYPOTHESIS_PROFILE": " ci "}, "ci"),
    ],
)
def test_selection(environ: dict[str, str], expected: str) -> None:
    assert selected_profile(environ) == expected


def test_an_unknown_profile_is_a_usage_error_listing_the_choices() -> None:
    with pytest.raises(UsageError) as caught:
        selected_profile({"LANES_HYPOTHESIS_PROFILE": "nightly"})
    assert "'nightly'" in caught.value.message
    assert all(name in caught.value.hint for name in PROFILES)


def test_ci_is_deterministic_and_the_fuzz_profile_leaves_time_to_the_watchdog() -> None:
    register_profiles()
    ci = settings.get_profile("ci")
    assert ci.derandomize
    assert ci.database is None
    assert settings.get_profile("fuzz").deadline is None
