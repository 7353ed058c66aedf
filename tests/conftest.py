"""Shared fixtures for lanekit's own suite."""

from __future__ import annotations

import datetime as dt
import os
import time
from typing import TYPE_CHECKING

import pytest

from lanes.strategies.profiles import load_profile

if TYPE_CHECKING:
    from collections.abc import Iterator

pytest_plugins = ["pytester"]

# Hypothesis profiles live in one place (lanes/strategies/profiles.py):
# LANES_HYPOTHESIS_PROFILE, else "ci" when $CI is set, else "dev".
load_profile()


@pytest.fixture
def zone_on_another_date() -> Iterator[None]:
    """A local time zone whose date differs from UTC's right now: a file stamped
    in UTC must not take the local date."""
    # UTC-12 is a day behind before noon UTC; UTC+14 a day ahead from 10:00 UTC.
    zone = "Etc/GMT+12" if dt.datetime.now(tz=dt.UTC).hour < 12 else "Etc/GMT-14"
    saved = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield
    finally:
        if saved is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = saved
        time.tzset()
