"""Hypothesis strategies: THE shared hazard vocabulary of lanekit.

The property suite (``tests/properties/``) and the fuzz lane draw from these
same strategies, so a hazard added for one reaches the other. One module per
input family: :mod:`.shell` (shell commands, for the classifier),
:mod:`.documents` (JSON documents and text), :mod:`.tables` (``[tool.lanes]``
tables and ``pyproject.toml`` text), :mod:`.profiles` (the Hypothesis settings
profiles).

Hypothesis is a lane dependency: nothing under ``lanes.governor`` imports
this package.
"""

from __future__ import annotations

from lanes.strategies.documents import (
    envelope_documents,
    envelope_texts,
    hook_payload_texts,
    hook_payloads,
    hostile_strings,
    hostile_text,
    json_texts,
    json_values,
    ledger_texts,
    lock_records,
    lock_texts,
    torture_schedule_texts,
    torture_schedules,
)
from lanes.strategies.profiles import load_profile, register_profiles
from lanes.strategies.shell import (
    SCOPE_PRESERVING_PREFIXES,
    as_data,
    non_test_commands,
    runner_commands,
    shell_commands,
    simple_commands,
)
from lanes.strategies.tables import config_tables, pyproject_texts, toml_values

__all__ = [
    "SCOPE_PRESERVING_PREFIXES",
    "as_data",
    "config_tables",
    "envelope_documents",
    "envelope_texts",
    "hook_payload_texts",
    "hook_payloads",
    "hostile_strings",
    "hostile_text",
    "json_texts",
    "json_values",
    "ledger_texts",
    "load_profile",
    "lock_records",
    "lock_texts",
    "non_test_commands",
    "pyproject_texts",
    "register_profiles",
    "runner_commands",
    "shell_commands",
    "simple_commands",
    "toml_values",
    "torture_schedule_texts",
    "torture_schedules",
]
