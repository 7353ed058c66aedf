"""index.html in a real browser: no console errors, nothing wider than the screen, a screenshot.

Runs where Chromium is installed (Debian: ``apt-get install chromium``) and
skips elsewhere. ``nox -s report-browser`` points it at the real
``envelopes/index.html`` (``LANES_REPORT_HTML``) and keeps the screenshots
next to it (``LANES_REPORT_SCREENSHOTS``); without those it renders a report
of every lane, with findings and a history, in a temporary folder.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from lanes.report.render import build_report
from tests.report.browser import CHROMIUM, check_page
from tests.report.lane_payloads import (
    bench_data,
    fuzz_data,
    fuzz_failure,
    mutation_check_data,
    offender,
    pin,
    slow_data,
    timing_data,
    torture_data,
    violation,
)
from tests.report.report_fixtures import HOSTILE, write_lane

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        CHROMIUM is None, reason="no chromium on PATH (Debian: apt-get install chromium)"
    ),
]

# A desktop window and a phone: the page must fit both without sideways scrolling.
VIEWPORTS = {"desktop": (1280, 900), "phone": (390, 844)}


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("LANES_REPORT_HTML")
    if given:
        return Path(given)
    root = tmp_path_factory.mktemp("browser")
    history = root / "history"
    for run in range(3):
        scratch = root / f"run-{run}"
        for path in (
            write_lane(scratch, "fuzz", "pass", fuzz_data(cases_per_second=250.0 + 20 * run)),
            write_lane(scratch, "torture", "pass", torture_data(runs_per_second=50.0 + run)),
        ):
            target = history / f"run-{run}"
            target.mkdir(parents=True, exist_ok=True)
            path.rename(target / path.name)
    write_lane(
        root,
        "slow",
        "fail",
        slow_data(
            offenders=[
                offender(f"tests/test_{HOSTILE}.py::test_sleepy_with_a_very_long_name_indeed", 3200)
            ],
            pins=[
                pin("tests/test_c.py::test_holding", "holding", 2500),
                pin("tests/test_c.py::test_x", "removable", 20),
            ],
        ),
    )
    write_lane(root, "fuzz", "fail", fuzz_data(failures=[fuzz_failure("ledger", HOSTILE * 3)]))
    write_lane(root, "torture", "fail", torture_data(violations=[violation(17)]))
    write_lane(root, "bench", "pass", bench_data(miss=True))
    timing = timing_data()
    # A real suite's row: a parametrized node id has no space to wrap at.
    timing["table"][0]["top_offender"] = (
        "tests/test_output.py::test_pretty_format_with_a_long_name[grid-wide-chars-"
        "and-a-parameter-id-that-goes-on] 0.6s"
    )
    timing["table"][0]["xdist"] = "serial is faster (-n 1, 0.62× at -n 2)"
    timing["table"][0]["delta"] = (
        "wall +1.9%, CPU +12.5% regressed, RSS +0.1%, FAIL: over max_regression"
    )
    write_lane(root, "timing", "fail", timing)
    write_lane(root, "mutation", "fail", mutation_check_data())
    write_lane(root, "custom", "error")
    envelopes = root / "envelopes"
    build_report(
        envelopes,
        out_md=envelopes / "summary.md",
        out_html=envelopes / "index.html",
        history=history,
        now=datetime.now(UTC),
    )
    return envelopes / "index.html"


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_the_page_renders_cleanly_and_fits_the_screen(
    page: Path, viewport: str, tmp_path: Path
) -> None:
    assert page.is_file(), f"{page} does not exist: run the lanes and `lanes report` first"
    shots = Path(os.environ.get("LANES_REPORT_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    width, height = VIEWPORTS[viewport]
    check = check_page(
        page, width=width, height=height, screenshot=shots / f"report-{viewport}.png"
    )
    assert check.console_errors == []
    assert check.scroll_width <= check.viewport_width, f"wider than the screen: {check.widest}"
    assert check.screenshot is not None
    assert check.screenshot.stat().st_size > 10_000  # a rendered page, not a blank one


# The smallest text any chart renders, in CSS pixels: its font size times the
# scale its viewBox is drawn at.
_SMALLEST_CHART_TEXT = """JSON.stringify(Math.min(...[...document.querySelectorAll('svg.chart')].map(svg =>
  svg.getBoundingClientRect().width / svg.viewBox.baseVal.width
  * parseFloat(getComputedStyle(svg).fontSize))))"""

# Every scroll region whose content is wider than the region itself.
_OVERFLOWING = """JSON.stringify([...document.querySelectorAll('.scroll')]
  .filter(region => region.scrollWidth > region.clientWidth + 1)
  .map(region => `${region.getAttribute('aria-label')}: ${region.scrollWidth} > ${region.clientWidth}`))"""


def test_chart_text_stays_readable_on_a_phone(page: Path) -> None:
    # Regression: charts 640 units wide with a 200-unit label column drew
    # their 12 px text at ~6 px on a 390 px screen.
    check = check_page(page, width=390, height=844, screenshot=None, ready=_SMALLEST_CHART_TEXT)
    assert float(check.ready) >= 12.0


def test_no_table_scrolls_sideways_on_a_desktop(page: Path) -> None:
    # Regression: the timing table was wider than a 1280 px window.
    check = check_page(page, width=1280, height=900, screenshot=None, ready=_OVERFLOWING)
    assert check.ready == "[]"
