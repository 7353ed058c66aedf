"""``[tool.lanes.affected]``: what the selector cannot derive from the sources.

::

    [tool.lanes.affected]
    full = ["scripts/*.sh"]            # more paths that select every check (fail open)
    quiet = ["*.md", "docs/**"]        # paths that select no test (default: docs and licences)
    test_patterns = ["test_*.py", "*_test.py"]

    [tool.lanes.affected.owners]       # data files and assets -> the tests that read them
    "src/pkg/data/*.json" = ["tests/test_data.py"]

    [tool.lanes.affected.gates.lint]   # always-on checks: fire for their inputs, never skipped
    command = "nox -s lint"
    inputs = ["*.py", "pyproject.toml"]

Stdlib only: :mod:`lanes.config` imports it to hold the section.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from lanes.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["AffectedConfig", "Gate", "parse_affected"]

SECTION: Final = "tool.lanes.affected"
_KEYS: Final = ("full", "quiet", "test_patterns", "owners", "gates")
_GATE_KEYS: Final = ("command", "inputs")

# Files whose change cannot affect a test's outcome: prose and licences.
DEFAULT_QUIET: Final = (
    "*.md",
    "*.rst",
    "*.txt",
    "docs/**",
    "LICENSE*",
    "COPYING*",
    "AUTHORS*",
    "CHANGELOG*",
    "CHANGES*",
    ".gitignore",
    "envelopes/**",
)
DEFAULT_TEST_PATTERNS: Final = ("test_*.py", "*_test.py")


@dataclass(frozen=True)
class Gate:
    """An always-on check (lint, type check) and the changed paths that fire it."""

    name: str
    command: str
    inputs: tuple[str, ...]


@dataclass(frozen=True)
class AffectedConfig:
    full: tuple[str, ...] = ()
    quiet: tuple[str, ...] = DEFAULT_QUIET
    test_patterns: tuple[str, ...] = DEFAULT_TEST_PATTERNS
    owners: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    # None = derive from the project's noxfile (a `lint` session fires for Python changes).
    gates: Mapping[str, Gate] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "full": list(self.full),
            "quiet": list(self.quiet),
            "test_patterns": list(self.test_patterns),
            "owners": {pattern: list(tests) for pattern, tests in self.owners.items()},
            "gates": None
            if self.gates is None
            else {
                name: {"command": gate.command, "inputs": list(gate.inputs)}
                for name, gate in self.gates.items()
            },
        }


def _bad(where: str, value: object, allowed: str) -> ConfigError:
    msg = f"[{SECTION}] {where} must be {allowed}, got {value!r}"
    return ConfigError(
        msg, hint=f"fix {where} in [{SECTION}] (see README, 'The affected selector')"
    )


def _strings(where: str, value: object, *, non_empty: bool = False) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise _bad(where, value, "a list of non-empty strings")
    if non_empty and not value:
        raise _bad(where, value, "a non-empty list of strings")
    return tuple(value)


def _table(where: str, value: object) -> dict[str, object]:
    if not isinstance(value, dict):
        raise _bad(where, value, "a table")
    return value


def _check_keys(where: str, raw: Mapping[str, object], known: tuple[str, ...]) -> None:
    import difflib  # noqa: PLC0415  # only on a config error

    for key in raw:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            suggestion = f" — did you mean {close[0]!r}?" if close else ""
            msg = f"[{where}] unknown key {key!r}{suggestion}"
            raise ConfigError(msg, hint=f"allowed keys in [{where}]: {', '.join(known)}")


def parse_affected(raw: object) -> AffectedConfig:
    table = _table("the section", raw)
    _check_keys(SECTION, table, _KEYS)
    defaults = AffectedConfig()
    owners = {
        pattern: _strings(f"owners.{pattern!r}", tests, non_empty=True)
        for pattern, tests in _table("owners", table.get("owners", {})).items()
    }
    gates: dict[str, Gate] | None = None
    if "gates" in table:
        gates = {}
        for name, gate_raw in _table("gates", table["gates"]).items():
            gate = _table(f"gates.{name}", gate_raw)
            _check_keys(f"{SECTION}.gates.{name}", gate, _GATE_KEYS)
            command = gate.get("command")
            if not isinstance(command, str) or not command.strip():
                where = f"gates.{name}.command"
                raise _bad(where, command, "a non-empty command string")
            inputs = _strings(f"gates.{name}.inputs", gate.get("inputs"), non_empty=True)
            gates[name] = Gate(name=name, command=command, inputs=inputs)
    return AffectedConfig(
        full=_strings("full", table["full"]) if "full" in table else defaults.full,
        quiet=_strings("quiet", table["quiet"]) if "quiet" in table else defaults.quiet,
        test_patterns=_strings("test_patterns", table["test_patterns"], non_empty=True)
        if "test_patterns" in table
        else defaults.test_patterns,
        owners=MappingProxyType(owners),
        gates=None if gates is None else MappingProxyType(gates),
    )
