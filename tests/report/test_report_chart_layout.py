"""The inline charts' layout, unit by unit: what a reader sees where.

A bar chart draws one row per bar (its label's line, then the bar, its value
written just after it), bars scaled to the largest value or marker; a stacked
bar splits its row by count with a legend of totals; a sparkline runs oldest
left, highest top. Warn and bad states show as a dashed outline and a word,
not colour alone, and every text is escaped. The SVG is parsed, not grepped.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from lanes.report._charts import (
    COLOURS,
    DARK,
    LIGHT,
    Bar,
    Segment,
    bar_chart,
    contrast,
    ink,
    sparkline,
    stacked_bars,
)

SVG = "{http://www.w3.org/2000/svg}"


def _parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # noqa: S314  # our own output, parsed to read its layout
    # Every word is inside a mark: no stray text between the elements.
    assert not (root.text or "").strip()
    assert all(not (element.tail or "").strip() for element in root.iter())
    return root


def _all(root: ET.Element, tag: str) -> list[dict[str, str]]:
    """Every direct ``tag`` child's attributes, with its text under ``"text"``."""
    return [{**child.attrib, "text": child.text or ""} for child in root.findall(SVG + tag)]


def _size(root: ET.Element) -> tuple[str, str, str]:
    return root.attrib["viewBox"], root.attrib["width"], root.attrib["height"]


# -- bar charts ---------------------------------------------------------------------


def test_bars_are_rows_of_label_then_bar_scaled_to_the_largest_value() -> None:
    root = _parse(
        bar_chart(
            "Wall clock",
            "alpha 10 s, beta 5 s",
            [Bar("alpha", 10, "10 s"), Bar("beta", 5, "5 s", state="info")],
        )
    )
    # Two rows of 49 units (21 of label, 20 of bar, 8 of gap) and 4 above and below.
    assert _size(root) == ("0 0 480 106", "480", "106")
    assert root.attrib["role"] == "img"
    assert root.attrib["preserveAspectRatio"] == "xMinYMin meet"
    assert (root.attrib["font-family"], root.attrib["font-size"]) == ("system-ui, sans-serif", "17")
    assert root.findtext(SVG + "title") == "Wall clock"
    assert root.findtext(SVG + "desc") == "alpha 10 s, beta 5 s"
    # The largest bar spans the width left after the padding and the value's room
    # (480 - 4 - 150 = 326); the others in proportion.
    assert _all(root, "rect") == [
        {"x": "4", "y": "25", "width": "326.0", "height": "20", "fill": COLOURS["ok"], "text": ""},
        {
            "x": "4",
            "y": "74",
            "width": "163.0",
            "height": "20",
            "fill": COLOURS["info"],
            "text": "",
        },
    ]
    # Each label on its own line above its bar; each value 4 units after its bar.
    assert _all(root, "text") == [
        {"x": "4", "y": "20", "text": "alpha"},
        {"x": "334.0", "y": "41", "text": "10 s"},
        {"x": "4", "y": "69", "text": "beta"},
        {"x": "171.0", "y": "90", "text": "5 s"},
    ]
    assert root.findall(SVG + "line") == []


def test_warn_and_bad_bars_show_a_dashed_outline_and_a_word_not_colour_alone() -> None:
    root = _parse(
        bar_chart(
            "t",
            "d",
            [
                Bar("near", 4, "4 s", state="warn"),
                Bar("over", 8, "8 s", state="bad"),
                Bar("named", 2, "2 s", state="bad", word="slow"),
                Bar("fine", 1, "1 s", state="ok", word="ignored: only warn and bad get a word"),
            ],
        )
    )
    rects = _all(root, "rect")
    assert [(r["fill"], r.get("stroke"), r.get("stroke-dasharray")) for r in rects] == [
        (COLOURS["warn"], DARK, "4 2"),
        (COLOURS["bad"], DARK, "4 2"),
        (COLOURS["bad"], DARK, "4 2"),
        (COLOURS["ok"], None, None),
    ]
    values = [t["text"] for t in _all(root, "text")][1::2]
    assert values == ["4 s (band)", "8 s (over)", "2 s (slow)", "1 s"]


def test_a_state_without_a_colour_of_its_own_is_drawn_in_the_neutral_one() -> None:
    root = _parse(bar_chart("t", "d", [Bar("x", 1, "1", state="unheard-of")]))
    (rect,) = _all(root, "rect")
    assert rect["fill"] == COLOURS["info"]
    assert "stroke" not in rect


def test_the_marker_is_a_labelled_dashed_line_at_its_value_and_the_chart_grows_for_its_label() -> (
    None
):
    root = _parse(
        bar_chart(
            "Score",
            "d",
            [Bar("a", 50, "50%"), Bar("b", 80, "80%")],
            marker=100.0,
            marker_label="100% <goal>",
        )
    )
    # Two rows, then the marker label's line: 98 + 21 + 10.
    assert _size(root) == ("0 0 480 129", "480", "129")
    # The marker is the largest value here: it sets the scale (80 of 100 -> 260.8).
    assert [r["width"] for r in _all(root, "rect")] == ["163.0", "260.8"]
    (line,) = _all(root, "line")
    assert line == {
        "x1": "330.0",
        "y1": "4",
        "x2": "330.0",
        "y2": "102",
        "stroke": DARK,
        "stroke-dasharray": "2 2",
        "text": "",
    }
    label = _all(root, "text")[-1]
    assert label == {"x": "330.0", "y": "121", "text-anchor": "middle", "text": "100% <goal>"}


def test_bars_below_one_still_span_the_chart() -> None:
    # Seconds under one, a share of 1: the largest bar sets the scale, not 1.
    root = _parse(bar_chart("t", "d", [Bar("a", 0.5, "0.5 s"), Bar("b", 0.25, "0.25 s")]))
    assert [r["width"] for r in _all(root, "rect")] == ["326.0", "163.0"]


def test_a_marker_below_the_bars_is_drawn_at_its_place_on_their_scale() -> None:
    root = _parse(bar_chart("t", "d", [Bar("a", 200, "200")], marker=50.0, marker_label="50"))
    assert _all(root, "rect")[0]["width"] == "326.0"
    assert _all(root, "line")[0]["x1"] == "85.5"  # 4 + 326 * 50 / 200


def test_a_marker_without_a_label_draws_its_line_and_no_words() -> None:
    root = _parse(bar_chart("t", "d", [Bar("a", 2, "2")], marker=1.0))
    assert len(_all(root, "line")) == 1
    assert [t["text"] for t in _all(root, "text")] == ["a", "2", ""]


def test_zero_and_negative_values_draw_a_one_unit_stub_and_all_zero_bars_do_not_crash() -> None:
    root = _parse(bar_chart("t", "d", [Bar("none", 0, "0"), Bar("less", -5, "-5")]))
    assert [r["width"] for r in _all(root, "rect")] == ["1.0", "1.0"]
    assert [t["x"] for t in _all(root, "text")][1::2] == ["9.0", "9.0"]
    root = _parse(bar_chart("t", "d", [Bar("less", -5, "-5"), Bar("some", 2, "2")]))
    assert [r["width"] for r in _all(root, "rect")] == ["1.0", "326.0"]


def test_a_long_label_is_clipped_to_48_characters_with_an_ellipsis() -> None:
    exact = "x" * 48
    long = "y" * 49
    root = _parse(bar_chart("t", "d", [Bar(exact, 1, "1"), Bar(long, 1, "1")]))
    labels = [t["text"] for t in _all(root, "text")][0::2]
    assert labels == [exact, "y" * 47 + "…"]


def test_every_text_of_a_bar_chart_is_escaped() -> None:
    hostile = '<script>alert("x")</script> & more'
    svg = bar_chart(
        hostile,
        hostile,
        [Bar(hostile, 1, hostile, state="bad", word=hostile)],
        marker=1.0,
        marker_label=hostile,
    )
    assert "<script>" not in svg
    root = _parse(svg)  # well-formed: nothing broke out of its element
    assert root.findtext(SVG + "title") == hostile
    assert root.findtext(SVG + "desc") == hostile
    assert [t["text"] for t in _all(root, "text")] == [
        hostile,
        f"{hostile} ({hostile})",
        hostile,
    ]


# -- stacked bars -------------------------------------------------------------------


def test_a_stacked_bar_splits_its_row_by_count_and_writes_counts_that_fit_inside() -> None:
    root = _parse(
        stacked_bars(
            "Tests per tier",
            "unit: 30 fast, 10 slow",
            [
                ("unit", [Segment("fast", 30, "ok"), Segment("slow", 10, "bad")]),
                ("integration", [Segment("fast", 1, "ok"), Segment("slow", 99, "bad")]),
            ],
        )
    )
    # Two rows, 4 of padding each side, and one 23-unit legend line per bucket.
    assert _size(root) == ("0 0 480 152", "480", "152")
    assert root.findtext(SVG + "title") == "Tests per tier"
    segments = [
        {**r.attrib, "title": r.findtext(SVG + "title")}
        for r in root.findall(SVG + "rect")
        if r.find(SVG + "title") is not None
    ]
    # The row is the full width less the padding (472), split 3:1, then 1:99.
    assert [(s["x"], s["y"], s["width"], s["title"]) for s in segments] == [
        ("4.0", "25", "354.0", "fast: 30"),
        ("358.0", "25", "118.0", "slow: 10"),
        ("4.0", "74", "4.7", "fast: 1"),
        ("8.7", "74", "467.3", "slow: 99"),
    ]
    assert [s["height"] for s in segments] == ["20"] * 4
    assert [(s["fill"], s.get("stroke-dasharray")) for s in segments] == [
        (COLOURS["ok"], None),
        (COLOURS["bad"], "4 2"),
        (COLOURS["ok"], None),
        (COLOURS["bad"], "4 2"),
    ]
    texts = _all(root, "text")
    # A count is centred in its segment, in the ink that reads on it; the
    # 4.7-unit segment has no room for its "1", so the legend carries it.
    counts = [t for t in texts if t.get("text-anchor") == "middle"]
    assert counts == [
        {"x": "181.0", "y": "41", "text-anchor": "middle", "fill": LIGHT, "text": "30"},
        {"x": "417.0", "y": "41", "text-anchor": "middle", "fill": LIGHT, "text": "10"},
        {"x": "242.4", "y": "90", "text-anchor": "middle", "fill": LIGHT, "text": "99"},
    ]
    # Row names above their bars; then the legend, one bucket a line, with totals.
    assert [(t["x"], t["y"], t["text"]) for t in texts if "text-anchor" not in t] == [
        ("4", "20", "unit"),
        ("4", "69", "integration"),
        ("24", "123", "fast: 31"),
        ("24", "146", "slow: 109"),
    ]
    swatches = [r for r in _all(root, "rect") if r.get("width") == "14"]
    assert [
        (s["x"], s["y"], s["height"], s["fill"], s.get("stroke-dasharray")) for s in swatches
    ] == [
        ("4", "110", "14", COLOURS["ok"], None),
        ("4", "133", "14", COLOURS["bad"], "3 2"),
    ]
    assert swatches[1]["stroke"] == DARK


def test_a_count_is_written_inside_only_when_its_segment_has_room_for_it() -> None:
    # 10 units per digit and 8 of margin: a one-digit count needs more than 18.
    def counts(first: int, rest: int) -> list[str]:
        row = [Segment("a", first, "ok"), Segment("b", rest, "info")]
        svg = stacked_bars("t", "d", [("r", row)])
        return [t["text"] for t in _all(_parse(svg), "text") if t.get("text-anchor") == "middle"]

    assert counts(4, 96) == ["4", "96"]  # 472 * 4 / 100 = 18.9 units: room
    assert counts(3, 97) == ["97"]  # 14.2 units: none
    assert counts(9, 227) == ["227"]  # 472 * 9 / 236 = 18.0 exactly: none
    # Two digits need more than 28.
    assert counts(10, 158) == ["10", "158"]  # 472 * 10 / 168 = 28.1 units: room
    assert counts(10, 159) == ["159"]  # 27.9 units: none


def test_a_segment_of_a_state_without_a_colour_is_drawn_in_the_neutral_one() -> None:
    root = _parse(stacked_bars("t", "d", [("r", [Segment("odd", 2, "unheard-of")])]))
    fills = [r.attrib["fill"] for r in root.findall(SVG + "rect")]
    assert fills == [COLOURS["info"], COLOURS["info"]]  # the segment, then its legend swatch


def test_an_empty_or_zero_segment_draws_nothing_but_keeps_its_legend_line() -> None:
    root = _parse(
        stacked_bars(
            "t",
            "d",
            [("r", [Segment("gone", 0, "warn"), Segment("all", 5, "ok")]), ("empty", [])],
        )
    )
    drawn = [r for r in root.findall(SVG + "rect") if r.find(SVG + "title") is not None]
    assert [(r.attrib["x"], r.attrib["width"]) for r in drawn] == [("4.0", "472.0")]
    legend = [t.text for t in root.findall(SVG + "text") if t.attrib["x"] == "24"]
    assert legend == ["gone: 0", "all: 5"]


def test_stacked_bars_group_the_legend_by_label_and_state_with_thousands_separated() -> None:
    root = _parse(
        stacked_bars(
            "t",
            "d",
            [
                ("a", [Segment("slow", 1200, "bad"), Segment("slow", 3, "warn")]),
                ("b", [Segment("slow", 34, "bad")]),
            ],
        )
    )
    legend = [t.text for t in root.findall(SVG + "text") if t.attrib["x"] == "24"]
    assert legend == ["slow: 1,234", "slow: 3"]


def test_every_text_of_stacked_bars_is_escaped() -> None:
    hostile = "<b>&</b>"
    svg = stacked_bars(hostile, hostile, [(hostile, [Segment(hostile, 1, "ok")])])
    assert "<b>" not in svg
    root = _parse(svg)
    assert root.findtext(SVG + "title") == hostile
    assert root.findtext(SVG + "desc") == hostile
    assert [t.text for t in root.findall(SVG + "text")] == [hostile, "1", f"{hostile}: 1"]
    (segment,) = [r for r in root.findall(SVG + "rect") if r.find(SVG + "title") is not None]
    assert segment.findtext(SVG + "title") == f"{hostile}: 1"


def test_a_stacked_bar_row_name_is_clipped_like_a_bar_label() -> None:
    root = _parse(stacked_bars("t", "d", [("n" * 60, [Segment("a", 1, "ok")])]))
    assert root.findall(SVG + "text")[0].text == "n" * 47 + "…"


# -- sparklines ---------------------------------------------------------------------


def test_a_sparkline_runs_oldest_left_highest_top_and_writes_the_last_value() -> None:
    root = _parse(sparkline("Score <trend>", "up & down", [1.0, 3.0, 2.0], shown_last="2 <s>"))
    assert _size(root) == ("0 0 220 40", "220", "40")
    assert root.attrib["class"] == "spark"
    assert root.findtext(SVG + "title") == "Score <trend>"
    assert root.findtext(SVG + "desc") == "up & down"
    # 220 wide less 4 of padding each side and 70 for the written value: 142
    # between the first and the last point; 40 high less 4 each side.
    (line,) = _all(root, "polyline")
    assert line["points"] == "4.0,36.0 75.0,4.0 146.0,20.0"
    assert (line["fill"], line["stroke"], line["stroke-width"]) == ("none", "#0969da", "1.5")
    dots = _all(root, "circle")
    assert [(d["cx"], d["cy"], d["r"]) for d in dots] == [
        ("4.0", "36.0", "2"),
        ("75.0", "4.0", "2"),
        ("146.0", "20.0", "2"),
    ]
    assert _all(root, "text") == [{"x": "152.0", "y": "24.0", "text": "2 <s>"}]


def test_a_flat_sparkline_sits_in_the_middle_and_one_value_does_not_crash() -> None:
    root = _parse(sparkline("t", "d", [5.0, 5.0], shown_last="5"))
    assert _all(root, "polyline")[0]["points"] == "4.0,20.0 146.0,20.0"
    root = _parse(sparkline("t", "d", [7.0], shown_last="7"))
    assert _all(root, "polyline")[0]["points"] == "4.0,20.0"
    assert _all(root, "text")[0]["x"] == "10.0"


@pytest.mark.parametrize(
    ("values", "y"),
    [
        ([1.0, 9.0], "12.0"),  # last at the top (y 4): its text kept readable below the edge
        ([9.0, 1.0], "38.0"),  # last at the bottom (y 36): its text kept inside the chart
        ([0.0, 10.0, 4.0], "27.2"),  # between: 4 below the point
    ],
)
def test_the_last_value_is_written_beside_its_point_and_inside_the_chart(
    values: list[float], y: str
) -> None:
    root = _parse(sparkline("t", "d", values, shown_last="v"))
    assert _all(root, "text")[0]["y"] == y


# -- colour -------------------------------------------------------------------------


def test_contrast_is_the_wcag_ratio() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#ffffff", "#000000") == pytest.approx(21.0)  # either order
    assert contrast("#57606a", "#57606a") == pytest.approx(1.0)
    # WCAG's own reference points: #767676 is the lightest grey at 4.5:1 on white.
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    # A dark channel (below 0.03928 of full) is on the linear part of the curve.
    assert contrast("#0a0a0a", "#000000") == pytest.approx(1.0607, abs=0.0005)
    # Each channel weighs as WCAG says: green most, blue least.
    assert contrast("#ff0000", "#000000") == pytest.approx(5.25, abs=0.01)
    assert contrast("#00ff00", "#000000") == pytest.approx(15.3, abs=0.01)
    assert contrast("#0000ff", "#000000") == pytest.approx(2.44, abs=0.01)


def test_ink_is_dark_on_light_fills_and_light_on_dark_ones() -> None:
    assert ink("#ffffff") == DARK
    assert ink(COLOURS["fine"]) == DARK
    assert ink("#000000") == LIGHT
    assert ink(COLOURS["bad"]) == LIGHT
