"""The slow view's pieces that restate the slow lane's rules (a view imports no lane code)."""

from __future__ import annotations

import pytest

from lanes.report.views.slow import _suggested_ceiling
from lanes.slow.verdicts import suggested_ceiling


@pytest.mark.parametrize(
    "seconds", [0.0, 0.001, 0.0123, 0.08, 0.1, 0.5, 0.8, 1.0, 2.0, 3.2, 7.77, 12.0, 99.9, 1234.5]
)
def test_the_view_suggests_the_ceiling_lanes_slow_pin_defaults_to(seconds: float) -> None:
    assert _suggested_ceiling(seconds) == suggested_ceiling(seconds)
