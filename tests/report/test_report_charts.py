"""The inline charts: counts on bars keep their contrast, and text stays legible when scaled."""

from __future__ import annotations

import re

from lanes.report._charts import COLOURS, Segment, contrast, ink, stacked_bars


def test_ink_on_every_bar_colour_reaches_4_5_to_1() -> None:
    for state, fill in COLOURS.items():
        assert contrast(ink(fill), fill) >= 4.5, state


def test_counts_on_stacked_bars_are_drawn_in_that_ink_on_an_opaque_bar() -> None:
    # Regression: white counts on 85%-opaque bars reached 2.6-4.5:1 contrast.
    svg = stacked_bars(
        "Tests per tier",
        "words",
        [("unit", [Segment(f"bucket {state}", 40, state) for state in COLOURS])],
    )
    assert "fill-opacity" not in svg
    fills = re.findall(r'<rect [^>]*fill="(#[0-9a-f]{6})"[^>]*><title>', svg)
    inks = re.findall(r'text-anchor="middle" fill="(#[0-9a-f]{6})">40<', svg)
    assert len(fills) == len(inks) == len(COLOURS)
    for fill, text in zip(fills, inks, strict=True):
        assert contrast(text, fill) >= 4.5, (fill, text)
