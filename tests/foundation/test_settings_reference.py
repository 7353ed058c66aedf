"""Every ``[tool.lanes.*]`` section is rows: the reference, the config view and
the cache row derive from them (lanes/settings_rows.py, lanes/sections.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from lanes.config import load_config
from lanes.sections import LANES_KEYS, SECTIONS, Project, reference_document, section_classes
from lanes.torture.settings import TortureConfig

if TYPE_CHECKING:
    from lanes.settings_rows import Section

REPO = Path(__file__).resolve().parents[2]
EVERY_KEY = Path(__file__).resolve().parent / "config_every_key"


def test_the_reference_document_is_the_rows() -> None:
    # A new row (or a changed default, bound or doc) fails here: regenerate
    # docs/reference/settings.md as its header says.
    expected = reference_document()
    text = (REPO / "docs" / "reference" / "settings.md").read_text(encoding="utf-8")
    assert text == expected


def test_config_show_of_every_key_is_unchanged() -> None:
    # Envelopes' config_hash and the mutation baseline's provenance hash are
    # computed over Config.to_dict(): the rows must render it byte for byte
    # as the hand-written sections did (show.json was written before them).
    view = load_config(EVERY_KEY / "pyproject.toml").to_dict()
    del view["root"], view["source"]
    expected = (EVERY_KEY / "show.json").read_text(encoding="utf-8")
    assert json.dumps(view, indent=2, sort_keys=True) + "\n" == expected


def test_every_registered_section_is_a_key_of_tool_lanes() -> None:
    assert set(LANES_KEYS) == {*Project.KEYS, *(name for name, _ in SECTIONS)}
    for name, section in section_classes():
        assert f"tool.lanes.{name}" == section.TABLE
        assert section.ROWS, name


@pytest.mark.parametrize("name", [name for name, _ in SECTIONS])
def test_a_section_round_trips_through_its_dict(name: str) -> None:
    config = load_config(EVERY_KEY / "pyproject.toml")
    section: Section = getattr(config, name)
    again = type(section).from_dict(json.loads(json.dumps(section.to_dict())))
    assert again.to_dict() == section.to_dict()


def test_a_row_reads_as_its_default_on_the_class_and_values_are_immutable() -> None:
    assert TortureConfig.runs == TortureConfig().runs == 128
    torture = TortureConfig(runs=3)
    with pytest.raises(AttributeError, match="immutable"):
        torture.runs = 4  # the point: a section is a value
    assert torture.replace(runs=4).runs == 4
    assert torture.runs == 3
