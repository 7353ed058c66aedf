"""The governor's rows: ``[tool.lanes.governor]`` and the suite table, one line per setting.

Both shapes are declared here once (:mod:`lanes.settings_rows`): the strict
parse (:mod:`lanes.config`), the defaults, ``lanes config show``, the gate's
cache row and its cached view (:mod:`lanes.governor.config_cache`), the
governor page's settings table (:func:`reference`, docs/how-to/governor.md) and the fuzzer's field kinds all
come from these rows. A suite lives here, not in :mod:`lanes.config`, because
the gate reads it on every test command: this module stays as cheap as the
rows (no typing, dataclasses, re or pathlib at import).

The per-user cache and the strict loader are their own modules
(:mod:`lanes.governor.config_cache`, :mod:`lanes.governor.config_loader`).
"""

from __future__ import annotations

from lanes.errors import ConfigError
from lanes.governor.classify.runners.names import COMMAND_RUNNER, DEFAULT_TEST_COMMANDS, RUNNERS
from lanes.settings_rows import (
    REQUIRED,
    Bool,
    Entry,
    Int,
    OptInt,
    OptNumber,
    Section,
    Str,
    Strings,
    Sub,
)
from lanes.settings_rows import reference as rows_reference

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    import os
    from collections.abc import Mapping
    from typing import Any, Protocol

    from lanes.config_table import ConfigTable

__all__ = [
    "DEFAULT_MAX_AGE",
    "ENV_OVERRIDES",
    "FIELDS",
    "KEYS",
    "GovernorSettings",
    "Suite",
    "SuiteTiming",
    "reference",
]

DEFAULT_MAX_AGE = 3600


class GovernorSettings(Section):
    """``[tool.lanes.governor]``: THE table — one line per setting.

    ``lanes.config.GovernorConfig`` is this class, the gate's cached view
    builds it from the cache row. Adding a setting is adding a row (and using it).
    """

    TABLE = "tool.lanes.governor"

    # fmt: off
    max_full = Int(2, minimum=0, env="LANES_MAX_FULL", doc="full-suite runs per agent session before the test economy's nudge")
    escalate_at = Int(5, minimum=1, env="LANES_ESCALATE_AT", doc="the full run from which every full run gets the STOP form (> max_full)")
    lock_ttl = Int(1800, minimum=1, doc="seconds after which a run lock frees even when its owner lives")
    sweep_min_paths = Int(3, minimum=1, doc="path selectors from which a gated runner's run counts as a full sweep")
    gate_runners = Strings(("pytest", "unittest"), choices=RUNNERS, what="runner names", doc="runners whose full sweeps the gate blocks")
    tree_timeout = Int(20, minimum=1, doc="seconds the tree digest may wait for git before the gate fails open")
    test_commands = Strings(DEFAULT_TEST_COMMANDS, doc="wrapper commands that run the whole test suite (tox, nox -s tests, make test, lanes slow run): full test runs to the economy")
    enforce = Str("agents", choices=("agents", "always", "off"), doc="whose pytest runs the governor's pytest plugin governs: an agent's (agents), everyone's (always), nobody's (off)")
    sweep_share = Int(90, minimum=1, doc="percent of a suite's items (or test files) from which a pytest run counts as a sweep of it")
    # fmt: on

    @classmethod
    def validate(cls, table: ConfigTable, values: dict[str, Any]) -> None:
        if values["escalate_at"] <= values["max_full"]:
            msg = (
                f"[{table.name}] escalate_at must be greater than max_full "
                f"({values['max_full']!r}), got {values['escalate_at']!r}"
            )
            raise ConfigError(
                msg,
                hint="the STOP form follows the nudge: set escalate_at to at least max_full + 1",
            )


class SuiteTiming(Section):
    """``[tool.lanes.suites.<name>.timing]``: one suite's timing-lane overrides;
    absent = ``[tool.lanes.timing]``'s value."""

    # fmt: off
    repeat = OptInt(minimum=1, doc="runs per arm for this suite")
    workers = OptInt(minimum=0, doc="the -n of this suite's xdist comparison; 0 = no comparison")
    max_regression = OptNumber(minimum=0.0, doc="percent of CPU time growth that fails this suite")
    # fmt: on


def _normalise_path(path: str) -> str:
    """`./tests/unit/` and `tests/unit` name the same selector."""
    while path.startswith("./"):
        path = path[2:]
    path = path.rstrip("/")
    return path or "."


class Suite(Entry):
    """``[tool.lanes.suites.<name>]``: what the governor deduplicates and the lanes measure."""

    NAMED_DICT = True

    # fmt: off
    paths = Strings((), unless="command", doc="the selector paths that make a run this suite (needed unless command is set)")
    command = Str("", derived="pytest <paths>", doc="how the lanes run the suite")
    max_age = Int(DEFAULT_MAX_AGE, minimum=1, doc="seconds a PASS stays fresh")
    tier = Str("unit", derived="[tool.lanes.slow] default_tier", doc="the slow-test budget tier (a tier of [tool.lanes.slow.tiers])")
    runner = Str("pytest", choices=(*RUNNERS, COMMAND_RUNNER), doc='a runner name, or "command" for a non-runner suite (make verify)')
    lock = Bool(True, derived='true; false for runner = "command"', doc="whether a run holds the run lock")
    timing = Sub(SuiteTiming, doc="this suite's timing-lane overrides ([tool.lanes.suites.<name>.timing])")
    # fmt: on

    @classmethod
    def derive(cls, key: str, values: dict[str, Any]) -> object:
        if key == "command":
            paths = [_normalise_path(path) for path in values["paths"]]
            return "pytest " + " ".join(paths) if paths else ""
        if key == "lock":
            return values["runner"] != COMMAND_RUNNER
        return REQUIRED  # tier: the slow section's default tier (lanes.config)

    @classmethod
    def validate(cls, table: ConfigTable, values: dict[str, Any]) -> None:
        has_command = "command" in table.raw
        if not has_command and "paths" not in table.raw:
            # Without either there is nothing to run: the default command would be "".
            msg = f"[{table.name}] needs paths or a command, got neither"
            raise ConfigError(
                msg,
                hint=f'add paths = ["tests/{values["name"]}"] (the test paths of this suite) '
                f'or command = "..." to [{table.name}]',
            )
        values["paths"] = tuple(_normalise_path(path) for path in values["paths"])


FIELDS = GovernorSettings.ROWS
KEYS = GovernorSettings.KEYS
ENV_OVERRIDES = tuple(row for row in FIELDS if isinstance(row, Int) and row.env is not None)


def reference() -> str:
    """docs/how-to/governor.md's ``[tool.lanes.governor]`` table, generated from the rows."""
    return rows_reference(GovernorSettings)


if TYPE_CHECKING:
    # The gate, the recorder and suite resolution read a suite as this one
    # class (a parsed config's or the cached view's) and a config as anything
    # with these four attributes: lanes.config.Config or the cached view.
    SuiteLike = Suite

    class ConfigLike(Protocol):
        @property
        def root(self) -> str | os.PathLike[str]: ...
        @property
        def suites(self) -> Mapping[str, Suite]: ...
        @property
        def governor(self) -> GovernorSettings: ...
        @property
        def envelope_dir(self) -> str: ...
