"""Hypothesis strategies: THE shared hazard vocabulary of lanekit.

The property suite (``tests/properties/``) and the fuzz lane draw from these
same strategies, so a hazard added for one reaches the other. One module per
input family: :mod:`.shell` (shell commands, for the classifier),
:mod:`.documents` (JSON, TOML and text documents), :mod:`.profiles` (the
Hypothesis settings profiles).

Hypothesis is a lane dependency: nothing under ``lanes.governor`` imports
this package.
"""

from __future__ import annotations

from lanes.strategies.shell import (
    SCOPE_PRESERVING_PREFIXES,
    as_data,
    non_test_commands,
    runner_commands,
    shell_commands,
    simple_commands,
)

__all__ = [
    "SCOPE_PRESERVING_PREFIXES",
    "as_data",
    "non_test_commands",
    "runner_commands",
    "shell_commands",
    "simple_commands",
]
