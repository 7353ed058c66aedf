"""``[tool.lanes.torture]``: how many seeded schedules the torture lane runs, parsed strictly.

Stdlib only and cheap: :mod:`lanes.config` imports this module to hold the
section, so it must not pull the lane's kernel or schedulers in with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from lanes.config_table import ConfigTable

__all__ = ["SCHEDULERS", "TortureConfig", "parse_torture"]

SECTION: Final = "tool.lanes.torture"
# The schedulers a run may pick (lanes.torture.scheduler builds them).
SCHEDULERS: Final = ("random", "pct")


@dataclass(frozen=True)
class TortureConfig:
    runs: int = 128
    seed_start: int = 0
    clients: int = 4
    ops: int = 40
    scheduler: str = "random"


def parse_torture(raw: object) -> TortureConfig:
    """Validate ``[tool.lanes.torture]``."""
    table = ConfigTable(SECTION, raw, ("runs", "seed_start", "clients", "ops", "scheduler"))
    defaults = TortureConfig()
    return TortureConfig(
        runs=table.integer("runs", defaults.runs, minimum=1),
        seed_start=table.integer("seed_start", defaults.seed_start, minimum=0),
        clients=table.integer("clients", defaults.clients, minimum=2),
        ops=table.integer("ops", defaults.ops, minimum=1),
        scheduler=table.string("scheduler", defaults.scheduler, choices=SCHEDULERS),
    )
