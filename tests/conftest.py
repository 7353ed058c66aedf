"""Shared fixtures for lanekit's own suite."""

from __future__ import annotations

pytest_plugins = ["pytester"]
