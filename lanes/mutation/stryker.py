"""The mutation-testing-elements report (Stryker's open JSON schema) and its HTML viewer page.

``envelopes/mutation/mutation.json`` follows the schema at
https://github.com/stryker-mutator/mutation-testing-elements (schemaVersion 1),
so any tool of that family — the ``<mutation-test-report-app>`` web
component, Stryker Dashboard — renders each file with its mutants in place.
``mutation.html`` is that web component around the same JSON: open it in a
browser (it loads the component from a CDN).

mutmut's statuses map onto Stryker's as below; a mutant the baseline lists
as equivalent is ``Ignored`` with the reviewer's reason.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

from lanes import __version__
from lanes.mutation.statuses import Status

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.mutation.merge import MergedModule
    from lanes.mutation.results import MutantRecord

__all__ = ["STRYKER_STATUS", "html_page", "stryker_report"]

STRYKER_STATUS: Final[dict[Status, str]] = {
    Status.KILLED: "Killed",
    Status.TIMEOUT: "Timeout",
    Status.SURVIVED: "Survived",
    Status.SUSPICIOUS: "Survived",
    Status.NO_TESTS: "NoCoverage",
    Status.SKIPPED: "Ignored",
    Status.CAUGHT_BY_TYPE_CHECK: "CompileError",
    Status.SEGFAULT: "RuntimeError",
    Status.NOT_CHECKED: "Pending",
    Status.INTERRUPTED: "Pending",
}
_VIEWER: Final = "https://www.unpkg.com/mutation-testing-elements@3"


def _location(record: MutantRecord, lines: list[str]) -> dict[str, dict[str, int]]:
    line = record.line or 1
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    start = len(text) - len(text.lstrip()) + 1
    last = line + max(record.original.count("\n"), 0)
    last_text = lines[last - 1] if 0 < last <= len(lines) else text
    return {
        "start": {"line": line, "column": start},
        "end": {"line": last, "column": len(last_text) + 1},
    }


def _mutant(record: MutantRecord, lines: list[str], equivalent: dict[str, str]) -> dict[str, Any]:
    status = STRYKER_STATUS[record.status]
    reason = record.status.value
    if record.key in equivalent and status in ("Survived", "NoCoverage"):
        status, reason = "Ignored", f"equivalent: {equivalent[record.key]}"
    mutant: dict[str, Any] = {
        "id": record.key,
        "mutatorName": f"mutmut {record.function}",
        "replacement": record.replacement,
        "location": _location(record, lines),
        "status": status,
        "statusReason": reason,
        "duration": record.duration_ms,
        "description": record.diff,
    }
    if record.tests:
        mutant["coveredBy"] = list(record.tests)
    return mutant


def stryker_report(
    root: Path, modules: dict[str, MergedModule], equivalent: dict[str, dict[str, str]]
) -> dict[str, Any]:
    """One report over every module's files; sources are read from ``root``."""
    files: dict[str, dict[str, Any]] = {}
    for name, module in sorted(modules.items()):
        for record in module.mutants:
            entry = files.get(record.path)
            if entry is None:
                try:
                    source = (root / record.path).read_text(encoding="utf-8")
                except OSError:
                    source = ""
                entry = files[record.path] = {"language": "python", "source": source, "mutants": []}
            lines = str(entry["source"]).splitlines()
            entry["mutants"].append(_mutant(record, lines, equivalent.get(name, {})))
    return {
        "schemaVersion": "1",
        "thresholds": {"high": 80, "low": 60},
        "projectRoot": str(root),
        "files": files,
        "framework": {"name": "lanekit mutation lane (mutmut)", "version": __version__},
    }


def html_page(report: dict[str, Any]) -> str:
    """A page that renders ``report`` with the mutation-testing-elements viewer."""
    # "</" would end the <script> element early if a source file contains it.
    payload = json.dumps(report).replace("</", "<\\/")
    return f"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Mutation report — lanekit</title>
<script defer src="{_VIEWER}/dist/mutation-test-elements.js"></script></head>
<body>
<mutation-test-report-app title-postfix="lanekit"></mutation-test-report-app>
<script>
document.querySelector("mutation-test-report-app").report = {payload};
</script>
</body>
</html>
"""
