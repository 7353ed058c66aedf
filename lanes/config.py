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
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from lanes.config_table import ConfigTable
from lanes.errors import ConfigError
from lanes.governor.settings import DEFAULT_MAX_AGE, GovernorSettings, Suite
from lanes.pyproject import find_pyproject, read_lanes_table
from lanes.sections import LANES_KEYS, SECTIONS, Project, section_class

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from lanes.affected.settings import AffectedConfig
    from lanes.fuzz.settings import FuzzConfig
    from lanes.mutation.settings import MutationConfig
    from lanes.settings_rows import Section
    from lanes.slow.settings import SlowConfig
    from lanes.timing.settings import TimingConfig
    from lanes.torture.settings import TortureConfig

__all__ = [
    "DEFAULT_MAX_AGE",
    "Config",
    "GovernorConfig",
    "Suite",
    "find_pyproject",
    "fingerprint",
    "load_config",
    "parse_config",
]

# [tool.lanes.governor]: one row per setting in the governor's own table (its
# type, bounds, default, environment override, parse, cache row and docs).
GovernorConfig = GovernorSettings


def _defaults(name: str) -> Callable[[], Any]:
    """A registered section's defaults, built when a Config is made without it."""

    def build() -> Any:  # noqa: ANN401  # the field it fills is typed by Config, per section
        return section_class(name)()

    return build


@dataclass(frozen=True)
class Config:
    """The resolved configuration of one project: one attribute per registered section."""

    root: Path
    source: Path | None
    suites: Mapping[str, Suite]
    governor: GovernorSettings = field(default_factory=GovernorSettings)
    slow: SlowConfig = field(default_factory=_defaults("slow"))
    fuzz: FuzzConfig = field(default_factory=_defaults("fuzz"))
    torture: TortureConfig = field(default_factory=_defaults("torture"))
    timing: TimingConfig = field(default_factory=_defaults("timing"))
    mutation: MutationConfig = field(default_factory=_defaults("mutation"))
    affected: AffectedConfig = field(default_factory=_defaults("affected"))
    envelope_dir: str = Project.envelope_dir
    baseline_dir: str = Project.baseline_dir
    # No suite was declared: ``suites`` holds lanekit's default (``pytest tests``),
    # not the project's own (where pytest's ``testpaths`` may point elsewhere).
    # Where the suites came from, not what they are: two configs with the same
    # suites are equal (``to_dict`` written back declares them).
    default_suite: bool = field(default=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view (``lanes config show``, the config hashes)."""
        section: Section
        view: dict[str, Any] = {
            "root": str(self.root),
            "source": None if self.source is None else str(self.source),
            "envelope_dir": self.envelope_dir,
            "baseline_dir": self.baseline_dir,
            "suites": {name: suite.to_dict() for name, suite in self.suites.items()},
        }
        for name, _ in SECTIONS:
            section = getattr(self, name)
            view[name] = section.to_dict()
        return view

    def section_hash(self, *sections: str) -> str:
        """``sha256:<hex>`` over the named sections: an envelope's ``config_hash``."""
        view = self.to_dict()
        return fingerprint({name: view[name] for name in sections})

    def envelope_path(self, lane: str) -> Path:
        return self.root / self.envelope_dir / f"{lane}.json"


def fingerprint(obj: object) -> str:
    """A stable ``sha256:<hex>`` over a JSON-able object (sorted keys)."""
    canonical = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


# --------------------------------------------------------------------------- reading


def _suite_tier(suite: Suite, raw: object, slow: SlowConfig) -> Suite:
    """A suite's tier must be a defined slow tier; without one it is the default tier.

    ``tier = "integration"`` with no such tier used to be accepted and did
    nothing: the suite's tests silently kept the default budget.
    """
    if not (isinstance(raw, dict) and "tier" in raw):
        return suite.replace(tier=slow.default_tier)
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
    project = Project.parse(table.raw, known=LANES_KEYS)
    sections = {name: section_class(name).parse(table.raw.get(name, {})) for name, _ in SECTIONS}
    slow: SlowConfig = sections["slow"]  # type: ignore[assignment]  # the registry's "slow" is SlowConfig
    # A rule across sections: a suite's tier is one of the slow section's tiers.
    suites_raw = table.table("suites")
    suites = {
        name: _suite_tier(suite, suites_raw.get(name), slow)
        for name, suite in project.suites.items()
    }
    default_suite = not suites
    if default_suite:
        suites = {
            "tests": Suite(
                name="tests", paths=("tests",), command="pytest tests", tier=slow.default_tier
            )
        }
    return Config(
        root=root,
        source=source,
        suites=MappingProxyType(suites),
        default_suite=default_suite,
        envelope_dir=project.envelope_dir,
        baseline_dir=project.baseline_dir,
        **sections,  # type: ignore[arg-type]  # each registered name is a typed Config field
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
