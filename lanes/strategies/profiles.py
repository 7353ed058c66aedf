"""Hypothesis settings profiles, registered in one place.

- ``dev``: the default on a workstation; quick, with the example database.
- ``ci``: the unit suite in CI; fast and deterministic (derandomized, no
  database), so a property never fails on one run and passes on the next.
- ``fuzz``: long runs for the fuzz lane and for hunting by hand; no deadline
  (the fuzz lane's watchdog owns time), every health check that objects to big
  or slow inputs off, because big and slow inputs are the point.

``tests/conftest.py`` calls :func:`load_profile`: ``LANES_HYPOTHESIS_PROFILE``
wins, else ``ci`` when the ``CI`` environment variable is set, else ``dev``.
"""

from __future__ import annotations

import os
from typing import Final

from hypothesis import HealthCheck, settings

__all__ = ["PROFILES", "load_profile", "register_profiles", "selected_profile"]

PROFILES: Final = ("dev", "ci", "fuzz")
ENV_VAR: Final = "LANES_HYPOTHESIS_PROFILE"

# Strategies here build big documents on purpose (long strings, deep nesting).
_BIG_INPUT_CHECKS: Final = (
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.large_base_example,
)


def register_profiles() -> None:
    """Register ``dev``, ``ci`` and ``fuzz`` (idempotent)."""
    settings.register_profile(
        "dev", max_examples=50, deadline=None, suppress_health_check=_BIG_INPUT_CHECKS
    )
    settings.register_profile(
        "ci",
        max_examples=30,
        deadline=None,
        derandomize=True,
        database=None,
        print_blob=True,
        suppress_health_check=_BIG_INPUT_CHECKS,
    )
    settings.register_profile(
        "fuzz",
        max_examples=2_000,
        deadline=None,
        print_blob=True,
        suppress_health_check=list(HealthCheck),
    )


def selected_profile(environ: os._Environ[str] | dict[str, str] | None = None) -> str:
    """The profile name the environment asks for (see the module docstring)."""
    env = os.environ if environ is None else environ
    chosen = env.get(ENV_VAR, "").strip()
    if chosen:
        if chosen not in PROFILES:
            from lanes.errors import UsageError  # noqa: PLC0415  # only on the error path

            msg = f"{ENV_VAR}={chosen!r} is not a Hypothesis profile of lanekit"
            raise UsageError(msg, hint=f"set {ENV_VAR} to one of: {', '.join(PROFILES)}")
        return chosen
    return "ci" if env.get("CI") else "dev"


def load_profile(environ: os._Environ[str] | dict[str, str] | None = None) -> str:
    """Register the profiles, load the selected one and return its name."""
    register_profiles()
    name = selected_profile(environ)
    settings.load_profile(name)
    return name
