"""The fuzz lane: Hypothesis-generated hostile input to every parser, through a watchdog.

Modules: :mod:`~lanes.fuzz.lane` (``lanes fuzz``: modes and envelopes),
:mod:`~lanes.fuzz.engine` (the Hypothesis driver), :mod:`~lanes.fuzz.targets`
(the registry), :mod:`~lanes.fuzz.watchdog` (cases in a worker process),
:mod:`~lanes.fuzz.artifacts` (saved failures and the regression corpus),
:mod:`~lanes.fuzz.plugin` (the pytest plugin that replays the corpus in a
project's own suite).

Nothing is imported here: the pytest plugin is loaded by every pytest run of
every project that has lanekit installed, and must not pay for the watchdog's
imports (about 25 ms) when there is no corpus to replay.
"""

from __future__ import annotations

__all__: list[str] = []

# `pytest -p lanes.fuzz` where lanekit's entry point is not installed (a source
# checkout on PYTHONPATH) imports this package as the plugin; this line loads
# the real one. Where the entry point is installed, `-p lanes.fuzz` names it.
pytest_plugins = ["lanes.fuzz.plugin"]
