"""Shared fixtures for lanekit's own suite."""

from __future__ import annotations

from lanes.strategies.profiles import load_profile

pytest_plugins = ["pytester"]

# Hypothesis profiles live in one place (lanes/strategies/profiles.py):
# LANES_HYPOTHESIS_PROFILE, else "ci" when $CI is set, else "dev".
load_profile()
