"""``[tool.lanes.slow]``: the ratchet's tiers, budgets and rules, and the light
loader its pytest plugin uses.

:class:`SlowConfig` is the section's rows (:func:`lanes.config.parse_config`
parses it for the whole configuration). :func:`load_slow_project` reads only
what the plugin needs — ``[tool.lanes]``'s keys, this section and
``envelope_dir`` — because the plugin runs inside every enabled pytest run:
building the whole configuration (every lane's settings, some seventeen
dataclasses each compiling its methods) cost about 1% of a suite of fast
tests, and a typo in another lane's section would stop the test run.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from lanes.config_table import ConfigTable
from lanes.errors import ConfigError
from lanes.pyproject import find_pyproject, read_lanes_table
from lanes.sections import LANES_KEYS, Project
from lanes.settings_rows import Bool, Entry, Int, Number, ProjectPath, Section, Str, Strings
from lanes.settings_tables import Table

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["SlowConfig", "SlowProject", "Tier", "load_slow_project"]


# Rows, not dataclasses: the enabled pytest plugin imports this module in
# every run, and creating a dataclass compiles its methods — some 4 M
# instructions each (the bench lane holds the plugin to 2% of a suite's). A
# row costs one small object, and a value is a plain attribute read.


class Tier(Entry):
    """``[tool.lanes.slow.tiers.<name>]``: a budget and the tests it covers."""

    NAMED_DICT = True

    # fmt: off
    budget = Number(0.0, minimum=0.0, required="2.5 (seconds)", doc="seconds a test of this tier may take")
    markers = Strings((), doc="pytest markers that put a test in this tier")
    paths = Strings((), doc="test paths (globs) that put a test in this tier")
    # fmt: on


class SlowConfig(Section):
    TABLE = "tool.lanes.slow"

    # fmt: off
    enabled = Bool(False, doc="run the ratchet in every pytest run (else only with --slow-ratchet)")
    fail_factor = Number(2.0, minimum=1.0, inclusive=True, doc="a test fails past fail_factor x its budget; between budget and that it is reported")
    default_tier = Str("unit", doc="the tier of a test no marker or path puts elsewhere (a tier of tiers)")
    tighten_below = Number(0.25, minimum=0.0, doc="a tier whose slowest test uses less than this share of its budget gets a tighten hint")
    pins = ProjectPath("baselines/slow-tests.json", doc="the pin list: known slow tests, which may only shrink")
    tiers = Table(Tier, MappingProxyType({"unit": Tier(name="unit", budget=2.5)}), doc="the budget tiers ([tool.lanes.slow.tiers.<name>]); configured tiers replace the default unit tier")
    confirm = Int(2, minimum=0, doc="re-timings of an offender, serially after the suite; it fails only if every sample stays past its limit (0 = none)")
    removable_after = Int(3, minimum=1, doc="consecutive runs within its tier budget after which a pin is removable")
    slowest = Int(10, minimum=0, doc="slowest tests listed in the report")
    slowest_per_tier = Int(3, minimum=0, doc="slowest tests listed per tier")
    hard_stop_factor = Number(0.0, minimum=0.0, inclusive=True, doc="a hard stop at hard_stop_factor x fail_factor x budget through pytest-timeout (when installed); 0 = off")
    # fmt: on

    @classmethod
    def validate(cls, table: ConfigTable, values: dict[str, Any]) -> None:
        if not values["tiers"]:
            # An empty [tool.lanes.slow.tiers] keeps the default tier.
            values["tiers"] = SlowConfig.tiers
        tiers = values["tiers"]
        default_tier = values["default_tier"]
        if default_tier not in tiers:
            msg = (
                f"[{table.name}] default_tier {default_tier!r} is not a configured tier "
                f"(tiers: {', '.join(sorted(tiers))})"
            )
            raise ConfigError(
                msg,
                hint=f"add [{table.name}.tiers.{default_tier}] with a budget, or set default_tier to one of the tiers",
            )


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
        slow=SlowConfig.parse(table.raw.get("slow", {})),
        envelope_dir=str(Project.row("envelope_dir").parse(table)),
    )
