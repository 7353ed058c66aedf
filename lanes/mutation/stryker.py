"""The mutation-testing-elements report (Stryker's open JSON schema) and its HTML viewer page.

``envelopes/mutation/mutation.json`` follows the schema at
https://github.com/stryker-mutator/mutation-testing-elements (schemaVersion 1),
so any tool of that family — the ``<mutation-test-report-app>`` web
component, Stryker Dashboard — renders each file with its mutants in place.
``mutation.html`` is that web component around the same JSON, in one file:
the viewer (a pinned release shipped in ``lanes/mutation/viewer/``, Apache-2.0)
is inlined, so the page renders offline and never changes under a reader.

mutmut's statuses map onto Stryker's as below; a mutant the baseline lists
as equivalent is ``Ignored`` with the reviewer's reason.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from typing import TYPE_CHECKING, Any, Final

from lanes import __version__
from lanes.mutation.statuses import Status

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.mutation.merge import MergedModule
    from lanes.mutation.results import MutantRecord

__all__ = [
    "STRYKER_STATUS",
    "VIEWER_SHA256",
    "VIEWER_VERSION",
    "html_page",
    "script_json",
    "stryker_report",
    "viewer_script",
]

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
# npm mutation-testing-elements, dist/mutation-test-elements.js (viewer/README.md).
VIEWER_VERSION: Final = "3.9.0"
VIEWER_SHA256: Final = "751fb010242b0b44e32d84fe7fe0b9ff1da182823b94f59f5c52b001fcfc163b"
_VIEWER_FILE: Final = "mutation-test-elements.js"


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


def viewer_script() -> str:
    """The pinned viewer's source, checked to be the release it claims and safe to inline.

    Inside ``<script>`` the HTML parser looks for ``</script`` (the end) and
    ``<!--`` + ``<script`` (the double-escaped state that swallows the end):
    a release containing either cannot be inlined as is.
    """
    data = resources.files("lanes.mutation").joinpath("viewer", _VIEWER_FILE).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != VIEWER_SHA256:
        msg = (
            f"lanes/mutation/viewer/{_VIEWER_FILE} has sha256 {digest!r}, not the pinned "
            f"mutation-testing-elements {VIEWER_VERSION} ({VIEWER_SHA256!r}): the installed "
            "lanekit is damaged; reinstall it (pip install --force-reinstall lanekit)"
        )
        raise RuntimeError(msg)
    text = data.decode("utf-8")
    lowered = text.lower()
    if "</script" in lowered or "<script" in lowered:
        msg = (
            f"the viewer {_VIEWER_FILE} contains a <script> tag and cannot be inlined: "
            "pin a release without one (lanes/mutation/viewer/README.md)"
        )
        raise RuntimeError(msg)
    return text


def script_json(document: object) -> str:
    """``document`` as JSON that cannot end or escape the ``<script>`` element holding it.

    ``<``, ``>`` and ``&`` become ``\\u003c``, ``\\u003e``, ``\\u0026`` (the same
    JSON value): a mutant's source containing ``</script>`` or ``<!--<script``
    (which puts the parser in a state where the real end tag is not seen)
    stays data.
    """
    return (
        json.dumps(document).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    )


def html_page(report: dict[str, Any]) -> str:
    """One self-contained page: the pinned viewer inlined, ``report`` embedded as JSON data."""
    return f"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Mutation report — lanekit</title>
<!-- mutation-testing-elements {VIEWER_VERSION} (Apache-2.0, Stryker Mutator) -->
<script>{viewer_script()}</script></head>
<body>
<mutation-test-report-app title-postfix="lanekit"></mutation-test-report-app>
<script type="application/json" id="lanekit-mutation-report">{script_json(report)}</script>
<script>
document.querySelector("mutation-test-report-app").report = JSON.parse(
  document.getElementById("lanekit-mutation-report").textContent
);
</script>
</body>
</html>
"""
