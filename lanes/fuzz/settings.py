"""``[tool.lanes.fuzz]``: the fuzz lane's budget and the user's targets, parsed strictly.

Stdlib only and cheap: :mod:`lanes.config` imports this module to hold the
section, so it must not pull Hypothesis or the lane's engine in with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from lanes.config_table import ConfigTable
from lanes.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["FuzzConfig", "FuzzTarget", "parse_fuzz"]

SECTION: Final = "tool.lanes.fuzz"
# A target's name: it is part of a file name, so no '/', no leading '.'.
_SAFE_NAME: Final = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}")


@dataclass(frozen=True)
class FuzzTarget:
    """A user's parser under fuzz: ``module:attribute`` references."""

    name: str
    callable: str
    strategy: str
    error: str = "lanes.errors:LanesError"
    # Name of the attribute that must be a non-empty string on every rejection;
    # empty string = the configured error type is enough.
    hint_attribute: str = "hint"


@dataclass(frozen=True)
class FuzzConfig:
    iterations: int = 2000
    seed: int = 1
    case_budget: float = 2.0
    targets: Mapping[str, FuzzTarget] = field(default_factory=lambda: MappingProxyType({}))


def parse_fuzz(raw: object) -> FuzzConfig:
    """Validate ``[tool.lanes.fuzz]`` (and its ``targets`` tables)."""
    table = ConfigTable(SECTION, raw, ("iterations", "seed", "case_budget", "targets"))
    defaults = FuzzConfig()
    targets: dict[str, FuzzTarget] = {}
    for name, target_raw in table.table("targets").items():
        if not _SAFE_NAME.fullmatch(name):
            # The name becomes part of artifact file names under envelopes/fuzz/.
            msg = f"[{SECTION}.targets] {name!r} is not a valid target name"
            raise ConfigError(
                msg, hint="name targets with letters, digits, '_', '-' and '.' (e.g. 'parser')"
            )
        target = ConfigTable(
            f"{SECTION}.targets.{name}",
            target_raw,
            ("callable", "strategy", "error", "hint_attribute"),
        )
        targets[name] = FuzzTarget(
            name=name,
            callable=_reference(target, "callable", None),
            strategy=_reference(target, "strategy", None),
            error=_reference(target, "error", "lanes.errors:LanesError"),
            hint_attribute=target.get(
                "hint_attribute",
                "hint",
                lambda v: v if isinstance(v, str) else None,
                'an attribute name, or "" for none',
            ),
        )
    return FuzzConfig(
        iterations=table.integer("iterations", defaults.iterations, minimum=1),
        seed=table.integer("seed", defaults.seed, minimum=0),
        case_budget=table.number("case_budget", defaults.case_budget, minimum=0.0),
        targets=MappingProxyType(targets),
    )


def _reference(table: ConfigTable, key: str, default: str | None) -> str:
    """A ``module:attribute`` reference, checked for shape (not imported here)."""

    def check(value: object) -> str | None:
        if not isinstance(value, str):
            return None
        module, sep, attr = value.partition(":")
        if not sep or not module.strip() or not attr.strip():
            return None
        return value

    value = table.get(key, default, check, "a 'package.module:attribute' reference")
    if value is None:
        msg = f"[{table.name}] is missing {key}"
        raise ConfigError(
            msg,
            hint=f'add {key} = "package.module:attribute" to [{table.name}]',
        )
    return value
