"""``[tool.lanes.affected]``: what the selector cannot derive from the sources.

::

    [tool.lanes.affected]
    full = ["scripts/*.sh"]            # more paths that select every check (fail open)
    quiet = ["*.md", "docs/**"]        # paths that select no test (default: docs and licences)
    test_patterns = ["test_*.py", "*_test.py"]
    record_map = true                  # the lane records the map too (nightly)
    hypothesis_seed = 0                # record Hypothesis tests with this seed: vouched for

    [tool.lanes.affected.owners]       # data files and assets -> the tests that read them
    "src/pkg/data/*.json" = ["tests/test_data.py"]

    [tool.lanes.affected.gates.lint]   # always-on checks: fire for their inputs, never skipped
    command = "nox -s lint"
    inputs = ["*.py", "pyproject.toml"]

One row per setting (:mod:`lanes.settings_rows`), read by the one strict reader
with its did-you-mean; stdlib only: the section registry (:mod:`lanes.sections`)
loads it to parse the section.
"""

from __future__ import annotations

from typing import Final

from lanes.settings_rows import Bool, Entry, OptInt, Section, Str, Strings
from lanes.settings_tables import OptTable, StringsTable

__all__ = ["AffectedConfig", "Gate"]

SECTION: Final = "tool.lanes.affected"

# Files whose change cannot affect a test's outcome: prose and licences.
DEFAULT_QUIET: Final = (
    "*.md",
    "*.rst",
    "*.txt",
    "docs/**",
    "LICENSE*",
    "COPYING*",
    "AUTHORS*",
    "CHANGELOG*",
    "CHANGES*",
    ".gitignore",
    "envelopes/**",
)
DEFAULT_TEST_PATTERNS: Final = ("test_*.py", "*_test.py")


class Gate(Entry):
    """``[tool.lanes.affected.gates.<name>]``: an always-on check (lint, type
    check) and the changed paths that fire it."""

    # fmt: off
    command = Str("", required='"nox -s lint"', doc="the check's command")
    inputs = Strings((), non_empty=True, required='["*.py"]', doc="glob patterns of the changed paths that fire it")
    # fmt: on


class AffectedConfig(Section):
    TABLE = SECTION

    # fmt: off
    full = Strings((), doc="more paths that select every check (fail open)")
    quiet = Strings(DEFAULT_QUIET, doc="paths that select no test (prose and licences)")
    test_patterns = Strings(DEFAULT_TEST_PATTERNS, non_empty=True, doc="file name patterns of test modules")
    owners = StringsTable(value=Strings((), non_empty=True, doc="the tests that read the files"), doc="data files and assets (glob) -> the tests that read them")
    record_map = Bool(False, doc="the lane (lanes affected --run / --self-check, nox -s affected) also records the map of what each test executed into envelopes/affected-map.json, where lanes affected finds it (a nightly job uploads it with the envelopes)")
    hypothesis_seed = OptInt(doc="the map is recorded with --hypothesis-seed=N, so its Hypothesis tests draw the examples a run with that seed draws, and the map vouches for them like any test (a change that misses what one executed leaves it passing, with that seed); unset: each run draws new examples, and every Hypothesis test a change may reach runs")
    gates = OptTable(Gate, doc="always-on checks: fire for their inputs, never skipped; absent: derived from the project's noxfile (a lint session fires for Python changes)")
    # fmt: on
