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

from lanes.settings_rows import ProjectPath, Section, Sub, reference
from lanes.settings_tables import Table, Tables

if TYPE_CHECKING:
    from collections.abc import Iterator

    from lanes.governor.settings import Suite

__all__ = [
    "LANES_KEYS",
    "SECTIONS",
    "Project",
    "reference_document",
    "section_class",
    "section_classes",
]

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
    # Named, not imported: the slow plugin reads these rows and needs no suite.
    suites: Table[Suite] = Table("lanes.governor.settings:Suite", doc='the suites: what the governor deduplicates and the lanes measure ([tool.lanes.suites.<name>]); none: one suite "tests" over tests/')
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


def _tables(section: type[Section], table: str) -> Iterator[str]:
    """``section``'s reference, then that of every table nested in it."""
    yield f"## `[{table}]`\n\n{reference(section)}\n"
    for row in section.ROWS:
        if isinstance(row, Sub):
            yield from _tables(row.section, f"{table}.{row.name}")
        elif isinstance(row, Tables):
            yield from _tables(row.entry, f"{table}.{row.name}.<name>")


_HEADER: Final = """\
Generated from the setting rows (`lanes/settings_rows.py`: one line per
setting in each section's class); do not edit by hand. Regenerate with

    python -c 'from lanes.sections import reference_document as r; print(r(), end="")' \\
        > docs/reference/settings.md

tests/foundation/test_settings_reference.py fails while it differs.
"""


def reference_document() -> str:
    """docs/reference/settings.md: every ``[tool.lanes.*]`` setting, from the rows."""
    parts = [
        "# `[tool.lanes]` settings reference\n",
        _HEADER,
        *_tables(Project, Project.TABLE),
    ]
    for name, section in section_classes():
        parts.extend(_tables(section, f"{Project.TABLE}.{name}"))
    return "\n".join(parts)
