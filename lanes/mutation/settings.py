"""``[tool.lanes.mutation]``: the registry of modules under mutation, one row per setting.

Stdlib only and cheap: the section registry (:mod:`lanes.sections`) loads
this module to parse the section, so it must not pull the lane's machinery
(or mutmut) in with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from lanes.errors import ConfigError
from lanes.settings_rows import Entry, Int, Number, Section, Str, Strings
from lanes.settings_tables import Table

if TYPE_CHECKING:
    from lanes.config_table import ConfigTable

__all__ = ["MutationConfig", "MutationModule"]

SECTION: Final = "tool.lanes.mutation"


class MutationModule(Entry):
    """``[tool.lanes.mutation.modules.<name>]``: the source mutmut mutates and the tests that judge it."""

    # fmt: off
    paths = Strings((), non_empty=True, required='["src/pkg/<name>.py"] (the source files mutmut mutates)', doc="the Python files mutmut mutates, one by one")
    tests = Strings((), doc="pytest arguments selecting this module's tests; empty = the whole suite")
    shards = Int(1, minimum=1, doc="how many shards (matrix jobs) share this module's mutants")
    # fmt: on

    @classmethod
    def validate(cls, table: ConfigTable, values: dict[str, Any]) -> None:
        for path in values["paths"]:
            if not path.endswith(".py"):
                msg = f"[{table.name}] paths must name Python files, got {path!r}"
                raise ConfigError(
                    msg,
                    hint="list the .py files to mutate one by one; a module of the registry is a few files, not a tree",
                )


class MutationConfig(Section):
    TABLE = SECTION

    # fmt: off
    required_stable_runs = Int(2, minimum=0, doc="consecutive runs a score must hold before it graduates into the baseline")
    canary = Str("", derived="the first module", doc="the module run when only lanekit's own tooling (config, registry) changed")
    timeout_multiplier = Number(5.0, minimum=0.0, doc="a mutant's time limit, as a multiple of its tests' clean run")
    shard_threshold = Int(100, minimum=1, doc="a module with fewer mutants runs as one shard, whatever its `shards` says (each shard pays mutmut's start-up, test collection and clean run)")
    baseline = Str("baselines/mutation.json", doc="the mutation baseline file (scores, provenance)")
    modules = Table(MutationModule, doc="the registry: modules under mutation ([tool.lanes.mutation.modules.<name>])")
    # fmt: on

    @classmethod
    def validate(cls, table: ConfigTable, values: dict[str, Any]) -> None:
        modules = values["modules"]
        if "canary" in table.raw and values["canary"] not in modules:
            known = ", ".join(sorted(modules)) or "(no modules configured)"
            msg = (
                f"[{SECTION}] canary {values['canary']!r} names no module of the registry "
                f"(modules: {known})"
            )
            raise ConfigError(
                msg,
                hint=f"set canary to one of the modules under [{SECTION}.modules], or remove it to use the first one",
            )
