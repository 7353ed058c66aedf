"""The ratchet's last run: ``<envelope_dir>/.slow-last-run.json``.

Written by every enabled run on the controller — plain ``pytest
--slow-ratchet`` as well as ``lanes slow run`` — so that:

- ``lanes slow pin NODEID`` finds the test's last measurement without
  ``--ceiling`` after a plain pytest run (it prefers whichever of this file and
  the envelope is newer) — for every test that could need a pin: the record
  keeps the tests at half their budget or more (:data:`RECORDED_SHARE`);
- a pin's measurement history survives between runs: a pin becomes removable
  only after ``removable_after`` consecutive runs within its tier budget.

A hidden file, so the report (which reads ``<envelope_dir>/*.json``) never
mistakes it for an envelope. Reading is lenient: the file is a cache, and a
damaged or foreign one reads as "no history" rather than stopping a test run.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

from lanes._atomic import write_atomic
from lanes._jsondoc import load_object
from lanes.slow.verdicts import held_seconds

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path
    from typing import Protocol

    from lanes.slow.verdicts import Judgement

    class Project(Protocol):
        """Where a project keeps its envelopes: a :class:`lanes.config.Config`,
        or the plugin's :class:`lanes.slow.settings.SlowProject`."""

        @property
        def root(self) -> Path: ...
        @property
        def envelope_dir(self) -> str: ...


__all__ = ["LAST_RUN_FORMAT", "last_run_path", "read_last_run", "write_last_run"]

LAST_RUN_FORMAT: Final = "lanekit.slow-last-run"
_VERSION: Final = 1
RECORDED_SHARE: Final = 0.5
"""The tests recorded: those at half their budget or more, and every test the
judgement names (offenders, the band, pinned tests). A test far within its
budget needs no pin, and a record of every test cost a fast suite's run a
third of the ratchet's per-test instructions (the bench lane holds it to 2%)."""


def last_run_path(config: Project) -> Path:
    return config.root / config.envelope_dir / ".slow-last-run.json"


def read_last_run(config: Project) -> dict[str, Any]:
    """The last run's ``{"tests": {nodeid: [tier, ms]}, "history": {nodeid: [ms, ...]}}``."""
    # A record we cannot use (absent, damaged, a FIFO, too deep) is no record:
    # the next run writes a fresh one.
    try:
        document = load_object(last_run_path(config), what="last run", fail=ValueError)
    except ValueError:
        document = None
    if document is None or document.get("format") != LAST_RUN_FORMAT:
        return {"tests": {}, "history": {}}
    tests = document.get("tests")
    history = document.get("history")
    return {
        "tests": {
            k: v
            for k, v in (tests.items() if isinstance(tests, dict) else ())
            if isinstance(v, list)
            and len(v) == 2  # [tier, ms]
            and isinstance(v[0], str)
            and isinstance(v[1], int)
        },
        "history": {
            k: [ms for ms in v if isinstance(ms, int)]
            for k, v in (history.items() if isinstance(history, dict) else ())
            if isinstance(v, list)
        },
    }


def write_last_run(
    config: Project,
    judgement: Judgement,
    *,
    pytest_args: Iterable[str],
    partial: bool,
    previous_history: Mapping[str, Iterable[int]],
) -> None:
    """Record this run's measurements and every pin's history (pins not run keep theirs)."""
    history = {nodeid: list(ms) for nodeid, ms in previous_history.items()}
    for report in judgement.pins:
        history[report.pin.nodeid] = list(report.history_ms)
    # Histories of tests no longer pinned are dropped: a re-pin starts afresh.
    pinned = {report.pin.nodeid for report in judgement.pins}
    # What `lanes slow pin` defaults a ceiling from: a re-timed test's slowest
    # re-timing, not its time in a loaded suite (held_seconds).
    retimed = {j.nodeid: held_seconds(j) for j in (*judgement.failures, *judgement.unconfirmed)}
    document = {
        "format": LAST_RUN_FORMAT,
        "version": _VERSION,
        "pytest_args": list(pytest_args),
        "partial": partial,
        "tests": {
            nodeid: [tier, round(retimed.get(nodeid, seconds) * 1000)]
            for nodeid, tier, seconds in judgement.near_budget(RECORDED_SHARE)
        },
        "history": {k: v for k, v in sorted(history.items()) if k in pinned},
    }
    path = last_run_path(config)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Compact: json's C encoder is used only without indent, and this file is
    # written by every enabled run (the bench lane holds the plugin to 2%);
    # a document built here has no cycles to look for.
    write_atomic(path, json.dumps(document, separators=(",", ":"), check_circular=False) + "\n")
