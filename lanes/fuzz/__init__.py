"""The fuzz lane: Hypothesis-generated hostile input to every parser, through a watchdog.

The lane itself is :mod:`lanes.fuzz.lane`; the Hypothesis driver
:mod:`lanes.fuzz.engine`; the pytest plugin that replays the regression
corpus in a project's own suite :mod:`lanes.fuzz.plugin`.

The re-exports below load on first use (PEP 562): the pytest plugin is
imported by every pytest run of every project that has lanekit installed, and
must not pay for the watchdog's imports (about 25 ms) when the corpus is off.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lanes.fuzz.targets import BUILTIN_TARGETS, Target
    from lanes.fuzz.watchdog import CaseOutcome, Watchdog

__all__ = ["BUILTIN_TARGETS", "CaseOutcome", "Target", "Watchdog"]

# `pytest -p lanes.fuzz` where lanekit's entry point is not installed (a source
# checkout on PYTHONPATH) imports this package as the plugin; this line loads
# the real one. Where the entry point is installed, `-p lanes.fuzz` names it.
pytest_plugins = ["lanes.fuzz.plugin"]

_HOMES = {
    "BUILTIN_TARGETS": "lanes.fuzz.targets",
    "Target": "lanes.fuzz.targets",
    "CaseOutcome": "lanes.fuzz.watchdog",
    "Watchdog": "lanes.fuzz.watchdog",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        msg = f"module 'lanes.fuzz' has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(home), name)
