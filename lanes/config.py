"""``[tool.lanes]`` -> frozen dataclasses.

The loader is strict: an unknown key, a wrong type or an impossible value is a
:class:`~lanes.errors.ConfigError` naming the table and key, showing the value
received and what is allowed, with a did-you-mean for misspellings. There are
no silent fallbacks: a misspelt ``max_agee`` that quietly kept the default would
make the ledger trust a PASS for an hour the user meant to shorten.

A project without ``[tool.lanes]`` gets the documented defaults: one suite
``tests`` over ``tests/``.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, TypeVar

from lanes.affected.settings import AffectedConfig, parse_affected
from lanes.config_table import ConfigTable
from lanes.errors import ConfigError
from lanes.fuzz.settings import FuzzConfig, FuzzTarget, parse_fuzz
from lanes.governor.classify.runners.names import COMMAND_RUNNER, RUNNERS
from lanes.governor.settings import KEYS as GOVERNOR_KEYS
from lanes.governor.settings import GovernorSettings
from lanes.mutation.settings import MutationConfig, parse_mutation
from lanes.pyproject import LANES_KEYS, find_pyproject, read_lanes_table
from lanes.slow.settings import SlowConfig, Tier, parse_slow
from lanes.timing.settings import SuiteTiming, TimingConfig, parse_suite_timing, parse_timing
from lanes.torture.settings import TortureConfig, parse_torture

__all__ = [
    "Config",
    "FuzzConfig",
    "FuzzTarget",
    "GovernorConfig",
    "SlowConfig",
    "Suite",
    "Tier",
    "TortureConfig",
    "find_pyproject",
    "fingerprint",
    "load_config",
    "parse_config",
]

T = TypeVar("T")

DEFAULT_MAX_AGE: Final = 3600


# --------------------------------------------------------------------------- sections


@dataclass(frozen=True)
class Suite:
    """A named test suite: what the governor deduplicates and the lanes measure."""

    name: str
    paths: tuple[str, ...]
    command: str
    max_age: int = DEFAULT_MAX_AGE
    tier: str = "unit"
    # A runner name, or "command" for a non-runner suite such as `make verify`.
    runner: str = "pytest"
    lock: bool = True
    # [tool.lanes.suites.<name>.timing]: this suite's timing-lane overrides.
    timing: SuiteTiming | None = None


# [tool.lanes.governor]: one row per setting in the governor's own table (its
# type, bounds, default, environment override, parse, cache row and docs).
GovernorConfig = GovernorSettings


@dataclass(frozen=True)
class Config:
    """The resolved configuration of one project."""

    root: Path
    source: Path | None
    suites: Mapping[str, Suite]
    governor: GovernorConfig = field(default_factory=GovernorConfig)
    slow: SlowConfig = field(default_factory=SlowConfig)
    fuzz: FuzzConfig = field(default_factory=FuzzConfig)
    torture: TortureConfig = field(default_factory=TortureConfig)
    timing: TimingConfig = field(default_factory=TimingConfig)
    mutation: MutationConfig = field(default_factory=MutationConfig)
    affected: AffectedConfig = field(default_factory=AffectedConfig)
    envelope_dir: str = "envelopes"
    baseline_dir: str = "baselines"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view (``lanes config show``)."""
        return {
            "root": str(self.root),
            "source": None if self.source is None else str(self.source),
            "envelope_dir": self.envelope_dir,
            "baseline_dir": self.baseline_dir,
            "suites": {name: asdict(suite) for name, suite in self.suites.items()},
            "governor": self.governor.to_dict(),
            "slow": _section_dict(self.slow),
            "fuzz": _section_dict(self.fuzz),
            "torture": asdict(self.torture),
            "timing": asdict(self.timing),
            "mutation": self.mutation.to_dict(),
            "affected": self.affected.to_dict(),
        }

    def section_hash(self, *sections: str) -> str:
        """``sha256:<hex>`` over the named sections: an envelope's ``config_hash``."""
        view = self.to_dict()
        return fingerprint({name: view[name] for name in sections})

    def envelope_path(self, lane: str) -> Path:
        return self.root / self.envelope_dir / f"{lane}.json"


def _section_dict(section: SlowConfig | FuzzConfig) -> dict[str, Any]:
    # asdict() cannot copy a MappingProxyType, so nested mappings go by hand;
    # the slow section's are named tuples (lanes.slow.settings says why).
    out: dict[str, Any] = {}
    fields = section._asdict() if isinstance(section, SlowConfig) else vars(section)
    for key, value in fields.items():
        if isinstance(value, Mapping):
            out[key] = {
                name: item._asdict() if isinstance(item, Tier) else asdict(item)
                for name, item in value.items()
            }
        else:
            out[key] = value
    return out


def fingerprint(obj: object) -> str:
    """A stable ``sha256:<hex>`` over a JSON-able object (sorted keys)."""
    canonical = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


# --------------------------------------------------------------------------- reading


def _normalise_path(path: str) -> str:
    """`./tests/unit/` and `tests/unit` name the same selector."""
    while path.startswith("./"):
        path = path[2:]
    path = path.rstrip("/")
    return path or "."


def _parse_suite(name: str, raw: object) -> Suite:
    table = ConfigTable(
        f"tool.lanes.suites.{name}",
        raw,
        ("paths", "command", "max_age", "tier", "runner", "lock", "timing"),
    )
    has_command = "command" in table.raw
    if not has_command and "paths" not in table.raw:
        # Without either there is nothing to run: the default command would be "".
        msg = f"[{table.name}] needs paths or a command, got neither"
        raise ConfigError(
            msg,
            hint=f'add paths = ["tests/{name}"] (the test paths of this suite) '
            f'or command = "..." to [{table.name}]',
        )
    paths = table.strings("paths", (), non_empty=not has_command)
    paths = tuple(_normalise_path(p) for p in paths)
    default_command = "pytest " + " ".join(paths) if paths else ""
    command = table.string("command", default_command)
    runner = table.string("runner", "pytest", choices=(*RUNNERS, COMMAND_RUNNER))
    return Suite(
        name=name,
        paths=paths,
        command=command,
        max_age=table.integer("max_age", DEFAULT_MAX_AGE, minimum=1),
        # Resolved against the slow tiers in parse_config: the default tier is theirs.
        tier=table.string("tier", "unit", required=True),
        runner=runner,
        lock=table.boolean("lock", default=runner != COMMAND_RUNNER),
        timing=parse_suite_timing(name, table.raw.get("timing")),
    )


def _parse_governor(raw: object) -> GovernorConfig:
    return GovernorSettings.parse(ConfigTable("tool.lanes.governor", raw, GOVERNOR_KEYS))


def _suite_tier(suite: Suite, raw: object, slow: SlowConfig) -> Suite:
    """A suite's tier must be a defined slow tier; without one it is the default tier.

    ``tier = "integration"`` with no such tier used to be accepted and did
    nothing: the suite's tests silently kept the default budget.
    """
    if not (isinstance(raw, dict) and "tier" in raw):
        return replace(suite, tier=slow.default_tier)
    if suite.tier in slow.tiers:
        return suite
    tiers = sorted(slow.tiers)
    close = difflib.get_close_matches(suite.tier, tiers, n=1, cutoff=0.6)
    suggestion = f" — did you mean {close[0]!r}?" if close else ""
    msg = (
        f"[tool.lanes.suites.{suite.name}] tier {suite.tier!r} is not a defined tier "
        f"(tiers: {', '.join(tiers)}){suggestion}"
    )
    raise ConfigError(
        msg,
        hint=f"add [tool.lanes.slow.tiers.{suite.tier}] with a budget, set tier to one of "
        f"{', '.join(repr(t) for t in tiers)}, or remove tier to use the default tier "
        f"({slow.default_tier!r})",
    )


def parse_config(lanes_table: object, *, root: Path, source: Path | None = None) -> Config:
    """Validate a ``[tool.lanes]`` table (already parsed from TOML)."""
    table = ConfigTable("tool.lanes", lanes_table, LANES_KEYS)
    suites_raw = table.table("suites")
    slow = parse_slow(table.raw.get("slow", {}))
    suites = {
        name: _suite_tier(_parse_suite(name, raw), raw, slow) for name, raw in suites_raw.items()
    }
    if not suites:
        suites = {
            "tests": Suite(
                name="tests", paths=("tests",), command="pytest tests", tier=slow.default_tier
            )
        }
    return Config(
        root=root,
        source=source,
        suites=MappingProxyType(suites),
        governor=_parse_governor(table.raw.get("governor", {})),
        slow=slow,
        fuzz=parse_fuzz(table.raw.get("fuzz", {})),
        torture=parse_torture(table.raw.get("torture", {})),
        timing=parse_timing(table.raw.get("timing", {})),
        mutation=parse_mutation(table.raw.get("mutation", {})),
        affected=parse_affected(table.raw.get("affected", {})),
        envelope_dir=table.project_path("envelope_dir", "envelopes"),
        baseline_dir=table.project_path("baseline_dir", "baselines"),
    )


def load_config(path: Path | None = None, *, cwd: Path | None = None) -> Config:
    """Load ``[tool.lanes]`` from ``path`` or the nearest ``pyproject.toml`` upward.

    With no ``pyproject.toml`` at all, the project root is ``cwd`` and every
    section takes its defaults.
    """
    start = (Path.cwd() if cwd is None else Path(cwd)).resolve()
    if path is None:
        found = find_pyproject(start)
        if found is None:
            return parse_config({}, root=start)
        path = found
    path = path.resolve()
    lanes_table = read_lanes_table(path)
    return parse_config(lanes_table, root=path.parent, source=path)
