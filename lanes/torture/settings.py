"""``[tool.lanes.torture]``: how many seeded schedules the torture lane runs, one row per setting.

Stdlib only and cheap: the section registry (:mod:`lanes.sections`) loads
this module to parse the section, so it must not pull the lane's kernel or
schedulers in with it.
"""

from __future__ import annotations

from typing import Final

from lanes.settings_rows import Int, Section, Str

__all__ = ["SCHEDULERS", "TortureConfig"]

# The schedulers a run may pick (lanes.torture.scheduler builds them).
SCHEDULERS: Final = ("random", "pct")


class TortureConfig(Section):
    TABLE = "tool.lanes.torture"

    # fmt: off
    runs = Int(128, minimum=1, doc="seeded schedules per run")
    seed_start = Int(0, minimum=0, doc="the first seed; a run covers seed_start .. seed_start + runs - 1")
    clients = Int(4, minimum=2, doc="simulated agents contending for the run lock and ledger")
    ops = Int(40, minimum=1, doc="operations per simulated agent")
    scheduler = Str("random", choices=SCHEDULERS, doc="how the interleaving is chosen: random, or PCT (priority change points)")
    # fmt: on
