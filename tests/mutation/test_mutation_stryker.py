"""The Stryker report passes Stryker's published schema; ``mutation.html`` stands alone.

The schema is ``mutation-testing-report-schema`` (npm), vendored in
tests/report/schemas/. The page inlines the pinned viewer and embeds the
report as JSON data that no mutant's text can break out of; in headless
Chromium with networking off it renders the mutants (skipped without chromium).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import jsonschema
import pytest

from lanes.mutation.merge import MergedModule
from lanes.mutation.results import MutantRecord
from lanes.mutation.statuses import Status
from lanes.mutation.stryker import (
    VIEWER_SHA256,
    html_page,
    script_json,
    stryker_report,
    viewer_script,
)
from tests.report.browser import CHROMIUM, check_page

SCHEMA = Path(__file__).parents[1] / "report" / "schemas" / "mutation-testing-report-schema.json"
# Text that ends a <script> element early, or (<!--<script) hides its real end.
BREAKOUT = "</script><!--<script>alert(1)</script> & <b>"

SOURCE = f"""def decide(a, b):
    if a > b:  # {BREAKOUT}
        return "left"
    return "right"
"""


def _record(number: int, status: Status, line: int, *, diff: str = "") -> MutantRecord:
    return MutantRecord(
        key=f"demo.x_decide__mutmut_{number}",
        name=f"demo.x_decide__mutmut_{number}",
        path="demo.py",
        function="decide",
        line=line,
        status=status,
        duration_ms=120 * number,
        diff=diff or f"-    if a > b:\n+    if a >= b:  # {number}",
        original="    if a > b:",
        replacement="    if a >= b:",
        tests=("tests/test_demo.py::test_decide",) if status is Status.KILLED else (),
        tests_total=1,
    )


def _report(root: Path) -> dict[str, object]:
    (root / "demo.py").write_text(SOURCE, encoding="utf-8")
    records = [
        _record(1, Status.KILLED, 2),
        _record(2, Status.SURVIVED, 2, diff=f"-    if a > b:\n+    if a < b:  # {BREAKOUT}"),
        _record(3, Status.TIMEOUT, 3),
        _record(4, Status.NO_TESTS, 4),
        _record(5, Status.SUSPICIOUS, 3),
    ]
    module = MergedModule(
        name="demo",
        shards=["1/1"],
        provenance={"mutmut": "3.8.1"},
        mutants=records,
        duration_ms=600,
        slowest_shard_ms=600,
        phases_ms={"run": 600},
    )
    return stryker_report(root, {"demo": module}, {"demo": {"demo.x_decide__mutmut_4": "dead"}})


def test_the_report_passes_strykers_published_schema(tmp_path: Path) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(
        schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER
    )
    report = json.loads(json.dumps(_report(tmp_path)))  # as the file holds it
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(report)]
    assert errors == []
    drifted = json.loads(json.dumps(report))
    drifted["files"]["demo.py"]["mutants"][0]["status"] = "killed"  # mutmut's word, not Stryker's
    assert not validator.is_valid(drifted)


def _embedded(page: str) -> str:
    start = page.index('<script type="application/json" id="lanekit-mutation-report">')
    start = page.index(">", start) + 1
    return page[start : page.index("</script>", start)]


def test_a_mutants_text_cannot_break_the_pages_script(tmp_path: Path) -> None:
    """Regression: only ``</`` was escaped, and ``<!--<script`` in a source stopped the page.

    In a <script> element the HTML parser ends at ``</script`` and, after
    ``<!--<script``, no longer sees the real end tag: the JSON block must hold
    no ``<`` at all, and still decode to the very same report.
    """
    report = _report(tmp_path)
    page = html_page(report)
    block = _embedded(page)
    assert "<" not in block
    assert ">" not in block
    assert "&" not in block
    assert json.loads(block) == json.loads(json.dumps(report))
    # The page's only script tags are its own three (viewer, data, bootstrap).
    lowered = page.lower()
    assert lowered.count("<script") == 3
    assert lowered.count("</script") == 3
    assert script_json({"a": "<!--<script>&"}) == '{"a": "\\u003c!--\\u003cscript\\u003e\\u0026"}'


def test_the_page_carries_the_pinned_viewer_and_loads_nothing(tmp_path: Path) -> None:
    page = html_page(_report(tmp_path))
    assert re.search(r"<script[^>]*\bsrc=", page) is None
    assert re.search(r"<link\b", page) is None
    viewer = viewer_script()
    assert viewer in page
    assert hashlib.sha256(viewer.encode("utf-8")).hexdigest() == VIEWER_SHA256
    licence = Path(__file__).parents[2] / "lanes" / "mutation" / "viewer" / "LICENSE"
    assert "Apache License" in licence.read_text(encoding="utf-8")


# Counts the mutants the viewer drew, through every shadow root.
_MUTANTS_DRAWN = """
(() => {
  const ids = new Set();
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.hasAttribute('data-mutant-id')) ids.add(el.getAttribute('data-mutant-id'));
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  return ids.size;
})()
"""


@pytest.mark.integration
@pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium on PATH (Debian: apt-get install chromium)"
)
def test_the_page_renders_the_mutants_offline_in_chromium(tmp_path: Path) -> None:
    """Networking off: every mutant drawn, no console error, no request but the page itself.

    ``LANES_MUTATION_SCREENSHOT=path.png`` keeps the screenshot.
    """
    html = tmp_path / "mutation.html"
    html.write_text(html_page(_report(tmp_path)), encoding="utf-8")
    shot = Path(os.environ.get("LANES_MUTATION_SCREENSHOT") or tmp_path / "mutation.png")
    check = check_page(
        html,
        width=1280,
        height=900,
        screenshot=shot,
        offline=True,
        fragment="#mutant/demo.py",
        ready=_MUTANTS_DRAWN,
    )
    assert check.console_errors == []
    assert check.ready == 5
    # The viewer's own inline images (data: URLs) are not the network.
    fetched = {url.split("#")[0] for url in check.requests if not url.startswith("data:")}
    assert fetched == {html.resolve().as_uri()}
    assert shot.stat().st_size > 10_000
