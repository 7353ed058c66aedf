"""The ``[tool.lanes]`` table: its own keys, and ONE registry of its sections.

A section is a :class:`~lanes.settings_rows.Section` in its lane's
``settings`` module, registered here by one line: ``name -> "module:Class"``,
imported when the section is parsed (or its defaults are needed), so
:mod:`lanes.config` imports no lane. Adding a lane's section is its settings
module, its line here and its typed attribute on
:class:`lanes.config.Config`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Final

from lanes.governor.settings import Suite
from lanes.settings_rows import ProjectPath, Section, Table

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["LANES_KEYS", "SECTIONS", "Project", "section_class", "section_classes"]

# fmt: off
SECTIONS: Final[tuple[tuple[str, str], ...]] = (
    ("governor", "lanes.governor.settings:GovernorSettings"),
    ("slow", "lanes.slow.settings:SlowConfig"),
    ("fuzz", "lanes.fuzz.settings:FuzzConfig"),
    ("torture", "lanes.torture.settings:TortureConfig"),
    ("timing", "lanes.timing.settings:TimingConfig"),
    ("mutation", "lanes.mutation.settings:MutationConfig"),
    ("affected", "lanes.affected.settings:AffectedConfig"),
)
# fmt: on


class Project(Section):
    """``[tool.lanes]``'s own keys (the sections are tables of their own)."""

    TABLE = "tool.lanes"

    # fmt: off
    suites = Table(Suite, doc='the suites: what the governor deduplicates and the lanes measure ([tool.lanes.suites.<name>]); none: one suite "tests" over tests/')
    envelope_dir = ProjectPath("envelopes", doc="where lanes write their envelopes")
    baseline_dir = ProjectPath("baselines", doc="where the reviewed baselines live")
    # fmt: on


# What [tool.lanes] may hold: its own keys and every registered section.
LANES_KEYS: Final = (*Project.KEYS, *(name for name, _ in SECTIONS))


def section_class(name: str) -> type[Section]:
    """The registered section ``name`` (its module imported now)."""
    where = dict(SECTIONS)[name]
    module, _, attribute = where.partition(":")
    cls: type[Section] = getattr(import_module(module), attribute)
    return cls


def section_classes() -> Iterator[tuple[str, type[Section]]]:
    """Every registered section, in registry order (imports every settings module)."""
    for name, _ in SECTIONS:
        yield name, section_class(name)
