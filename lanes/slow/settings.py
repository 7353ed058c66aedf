"""``[tool.lanes.slow]``: the ratchet's tiers, budgets and rules, and the light
loader its pytest plugin uses.

:func:`parse_slow` is the section's one strict reader (:func:`lanes.config.parse_config`
calls it for the whole configuration). :func:`load_slow_project` reads only
what the plugin needs — ``[tool.lanes]``'s keys, this section and
``envelope_dir`` — because the plugin runs inside every enabled pytest run:
building the whole configuration (every lane's settings, some seventeen
dataclasses each compiling its methods) cost about 1% of a suite of fast
tests, and a typo in another lane's section would stop the test run.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from lanes.config_table import ConfigTable
from lanes.errors import ConfigError
from lanes.pyproject import LANES_KEYS, find_pyproject, read_lanes_table

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

__all__ = ["SlowConfig", "SlowProject", "Tier", "load_slow_project", "parse_slow"]


# Named tuples, not dataclasses: the enabled pytest plugin imports this module
# in every run, and creating a dataclass compiles its methods — some 4 M
# instructions each (the bench lane holds the plugin to 2% of a suite's).


class Tier(NamedTuple):
    name: str
    budget: float
    markers: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()


class SlowConfig(NamedTuple):
    enabled: bool = False
    fail_factor: float = 2.0
    default_tier: str = "unit"
    # A tier whose slowest test uses less than this share of its budget gets a
    # tighten hint: a budget nobody approaches protects nothing.
    tighten_below: float = 0.25
    pins: str = "baselines/slow-tests.json"
    tiers: Mapping[str, Tier] = MappingProxyType({"unit": Tier(name="unit", budget=2.5)})
    # Offenders are re-timed this many times, serially, after the suite; a
    # test fails only if every sample stays past its limit (0 = no re-timing).
    confirm: int = 2
    # A pin is removable after this many consecutive runs within its tier budget.
    removable_after: int = 3
    slowest: int = 10
    slowest_per_tier: int = 3
    # A hard stop at hard_stop_factor x fail_factor x budget through
    # pytest-timeout (when installed); 0 = off.
    hard_stop_factor: float = 0.0


class SlowProject(NamedTuple):
    """What the ratchet's pytest plugin needs of a project (a
    :class:`lanes.config.Config` has the same attributes)."""

    root: Path
    source: Path | None
    slow: SlowConfig
    envelope_dir: str = "envelopes"

    def envelope_path(self, lane: str) -> Path:
        return self.root / self.envelope_dir / f"{lane}.json"


def load_slow_project(path: Path | None, *, cwd: Path) -> SlowProject:
    """``[tool.lanes.slow]`` and ``envelope_dir`` of the pyproject.toml at ``path``
    (None: the nearest one at or above ``cwd``), checked as strictly as
    :func:`lanes.config.load_config` checks them; other sections are left to
    their own lanes."""
    start = cwd.resolve()
    if path is None:
        path = find_pyproject(start)
        if path is None:
            return SlowProject(root=start, source=None, slow=SlowConfig())
    path = path.resolve()
    table = ConfigTable("tool.lanes", read_lanes_table(path), LANES_KEYS)
    return SlowProject(
        root=path.parent,
        source=path,
        slow=parse_slow(table.raw.get("slow", {})),
        envelope_dir=table.project_path("envelope_dir", "envelopes"),
    )


def parse_slow(raw: object) -> SlowConfig:
    """Validate a ``[tool.lanes.slow]`` table."""
    table = ConfigTable(
        "tool.lanes.slow",
        raw,
        (
            "enabled", "fail_factor", "default_tier", "tighten_below", "pins", "tiers",
            "confirm", "removable_after", "slowest", "slowest_per_tier", "hard_stop_factor",
        ),
    )  # fmt: skip
    defaults = SlowConfig()
    tiers: dict[str, Tier] = dict(defaults.tiers)
    raw_tiers = table.table("tiers")
    if raw_tiers:
        tiers = {}
        for name, tier_raw in raw_tiers.items():
            tier = ConfigTable(
                f"tool.lanes.slow.tiers.{name}", tier_raw, ("budget", "markers", "paths")
            )
            if "budget" not in tier.raw:
                msg = f"[tool.lanes.slow.tiers.{name}] has no budget"
                raise ConfigError(
                    msg,
                    hint=f"add budget = <seconds> to [tool.lanes.slow.tiers.{name}], e.g. budget = 2.5",
                )
            tiers[name] = Tier(
                name=name,
                budget=tier.number("budget", 0.0, minimum=0.0, required=True),
                markers=tier.strings("markers", ()),
                paths=tier.strings("paths", ()),
            )
    default_tier = table.string("default_tier", defaults.default_tier)
    if default_tier not in tiers:
        msg = (
            f"[tool.lanes.slow] default_tier {default_tier!r} is not a configured tier "
            f"(tiers: {', '.join(sorted(tiers))})"
        )
        raise ConfigError(
            msg,
            hint=f"add [tool.lanes.slow.tiers.{default_tier}] with a budget, or set default_tier to one of the tiers",
        )
    return SlowConfig(
        enabled=table.boolean("enabled", default=defaults.enabled),
        fail_factor=table.number("fail_factor", defaults.fail_factor, minimum=1.0, inclusive=True),
        default_tier=default_tier,
        tighten_below=table.number("tighten_below", defaults.tighten_below, minimum=0.0),
        pins=table.project_path("pins", defaults.pins),
        tiers=MappingProxyType(tiers),
        confirm=table.integer("confirm", defaults.confirm, minimum=0),
        removable_after=table.integer("removable_after", defaults.removable_after, minimum=1),
        slowest=table.integer("slowest", defaults.slowest, minimum=0),
        slowest_per_tier=table.integer("slowest_per_tier", defaults.slowest_per_tier, minimum=0),
        hard_stop_factor=table.number(
            "hard_stop_factor", defaults.hard_stop_factor, minimum=0.0, inclusive=True
        ),
    )
