"""``[tool.lanes.mutation]``: the registry of modules under mutation, parsed strictly.

Stdlib only and cheap: :mod:`lanes.config` imports this module to hold the
section, so it must not pull the lane's machinery (or mutmut) in with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from lanes.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["MutationConfig", "MutationModule", "parse_mutation"]

SECTION: Final = "tool.lanes.mutation"
MODULE_KEYS: Final = ("paths", "tests", "shards")
SECTION_KEYS: Final = (
    "required_stable_runs",
    "canary",
    "timeout_multiplier",
    "baseline",
    "modules",
)


@dataclass(frozen=True)
class MutationModule:
    """One registry entry: the source mutmut mutates and the tests that judge it."""

    name: str
    paths: tuple[str, ...]
    # pytest arguments selecting this module's tests; empty = the whole suite.
    tests: tuple[str, ...] = ()
    shards: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {"paths": list(self.paths), "tests": list(self.tests), "shards": self.shards}


def _no_modules() -> Mapping[str, MutationModule]:
    return MappingProxyType({})


@dataclass(frozen=True)
class MutationConfig:
    required_stable_runs: int = 2
    # The module run when only lanekit's own tooling (config, registry) changed;
    # empty = the first module of the registry.
    canary: str = ""
    timeout_multiplier: float = 5.0
    baseline: str = "baselines/mutation.json"
    modules: Mapping[str, MutationModule] = field(default_factory=_no_modules)

    def to_dict(self) -> dict[str, Any]:
        return {
            "required_stable_runs": self.required_stable_runs,
            "canary": self.canary,
            "timeout_multiplier": self.timeout_multiplier,
            "baseline": self.baseline,
            "modules": {name: module.to_dict() for name, module in self.modules.items()},
        }


def parse_mutation(raw: object) -> MutationConfig:
    """Validate ``[tool.lanes.mutation]``; every mistake is a ConfigError with a hint."""
    # lanes.config imports this module while it is itself being imported, so
    # its table reader is fetched when a section is parsed, not at import.
    from lanes.config_table import ConfigTable  # noqa: PLC0415  # the one strict TOML reader, shared

    table = ConfigTable(SECTION, raw, SECTION_KEYS)
    defaults = MutationConfig()
    modules: dict[str, MutationModule] = {}
    for name, module_raw in table.table("modules").items():
        module = ConfigTable(f"{SECTION}.modules.{name}", module_raw, MODULE_KEYS)
        if "paths" not in module.raw:
            msg = f"[{module.name}] has no paths"
            raise ConfigError(
                msg,
                hint=f'add paths = ["src/pkg/{name}.py"] (the source files mutmut mutates) to [{module.name}]',
            )
        paths = module.strings("paths", (), non_empty=True)
        for path in paths:
            if not path.endswith(".py"):
                msg = f"[{module.name}] paths must name Python files, got {path!r}"
                raise ConfigError(
                    msg,
                    hint="list the .py files to mutate one by one; a module of the registry is a few files, not a tree",
                )
        modules[name] = MutationModule(
            name=name,
            paths=paths,
            tests=module.strings("tests", ()),
            shards=module.integer("shards", 1, minimum=1),
        )
    canary = table.string("canary", defaults.canary)
    if "canary" in table.raw and canary not in modules:
        known = ", ".join(sorted(modules)) or "(no modules configured)"
        msg = f"[{SECTION}] canary {canary!r} names no module of the registry (modules: {known})"
        raise ConfigError(
            msg,
            hint=f"set canary to one of the modules under [{SECTION}.modules], or remove it to use the first one",
        )
    return MutationConfig(
        required_stable_runs=table.integer(
            "required_stable_runs", defaults.required_stable_runs, minimum=0
        ),
        canary=canary,
        timeout_multiplier=table.number(
            "timeout_multiplier", defaults.timeout_multiplier, minimum=0.0
        ),
        baseline=table.string("baseline", defaults.baseline),
        modules=MappingProxyType(modules),
    )
