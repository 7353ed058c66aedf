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


@pytest.fixture(scope="session", autouse=True)
def nested_pytest_temproot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Every pytest a test starts (a lane's run of a planted project) keeps its
    temporary directories under this session's own, not in the shared
    /tmp/pytest-of-USER.

    Each pytest deletes all but the newest three numbered directories there when
    it exits, and the one that finds earlier whole sessions' directories (a
    venv-holding suite leaves gigabytes) deletes them while its test waits: one
    test once took 58 s instead of 8 s. pytester already isolates its own runs
    this way; this covers the runs started with subprocess.
    """
    root = tmp_path_factory.mktemp("nested-pytest", numbered=False)
    saved = os.environ.get("PYTEST_DEBUG_TEMPROOT")
    os.environ["PYTEST_DEBUG_TEMPROOT"] = str(root)
    try:
        yield
    finally:
        if saved is None:
            del os.environ["PYTEST_DEBUG_TEMPROOT"]
        else:
            os.environ["PYTEST_DEBUG_TEMPROOT"] = saved


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
