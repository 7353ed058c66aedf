"""``[tool.lanes.timing]`` and the per-suite ``[tool.lanes.suites.<name>.timing]`` overrides.

::

    [tool.lanes.timing]
    repeat = 3              # runs per arm; absent = 3 when the first run is under a minute, else 1
    workers = 4             # the -n of the xdist comparison; absent = the CPU count; 0 = no comparison
    max_regression = 30     # percent: fail when median CPU time grows beyond this and the spread
    baseline = "baselines/timing.json"
    offenders = 5           # how many slowest tests, files and fixtures to keep

    [tool.lanes.suites.unit.timing]
    repeat = 1              # this suite takes minutes: one run is all it gets
    workers = 0

Parsed as strictly as every other section (unknown keys, wrong types and
impossible values are a :class:`~lanes.errors.ConfigError` with a hint).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from lanes.config_table import ConfigTable

__all__ = [
    "AUTO_REPEAT",
    "AUTO_REPEAT_UNDER",
    "SuiteTiming",
    "TimingConfig",
    "parse_suite_timing",
    "parse_timing",
]

# "3 for suites under a minute, 1 otherwise": decided from the first run.
AUTO_REPEAT: Final = 3
AUTO_REPEAT_UNDER: Final = 60.0


@dataclass(frozen=True)
class SuiteTiming:
    """One suite's overrides; ``None`` = take ``[tool.lanes.timing]``'s value."""

    repeat: int | None = None
    workers: int | None = None
    max_regression: float | None = None


@dataclass(frozen=True)
class TimingConfig:
    # None: automatic (see AUTO_REPEAT); workers None: os.cpu_count().
    repeat: int | None = None
    workers: int | None = None
    # Percent; None: the Δ table is shown but never fails the lane.
    max_regression: float | None = None
    # None: <baseline_dir>/timing.json.
    baseline: str | None = None
    offenders: int = 5


_SUITE_KEYS: Final = ("repeat", "workers", "max_regression")


def _optional_int(table: ConfigTable, key: str, minimum: int) -> int | None:
    # The strict reader returns the default when the key is absent; -1 stands
    # for "absent" because every valid value is >= 0.
    value = table.integer(key, -1, minimum=minimum)
    return None if value == -1 else value


def _optional_percent(table: ConfigTable, key: str) -> float | None:
    value = table.number(key, -1.0, minimum=0.0)
    return None if value == -1.0 else value


def parse_timing(raw: object) -> TimingConfig:
    """Validate ``[tool.lanes.timing]``."""
    # Imported here: lanes.config imports this module at its top.
    from lanes.config_table import ConfigTable  # noqa: PLC0415  # the one strict reader every section uses

    table = ConfigTable(
        "tool.lanes.timing",
        raw,
        ("repeat", "workers", "max_regression", "baseline", "offenders"),
    )
    baseline = table.string("baseline", "") or None
    return TimingConfig(
        repeat=_optional_int(table, "repeat", 1),
        workers=_optional_int(table, "workers", 0),
        max_regression=_optional_percent(table, "max_regression"),
        baseline=baseline,
        offenders=table.integer("offenders", TimingConfig.offenders, minimum=1),
    )


def parse_suite_timing(suite: str, raw: object) -> SuiteTiming | None:
    """Validate ``[tool.lanes.suites.<suite>.timing]``; ``None`` when absent."""
    if raw is None:
        return None
    from lanes.config_table import ConfigTable  # noqa: PLC0415  # see parse_timing

    table = ConfigTable(f"tool.lanes.suites.{suite}.timing", raw, _SUITE_KEYS)
    return SuiteTiming(
        repeat=_optional_int(table, "repeat", 1),
        workers=_optional_int(table, "workers", 0),
        max_regression=_optional_percent(table, "max_regression"),
    )
