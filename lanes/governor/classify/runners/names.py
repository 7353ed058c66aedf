"""Canonical runner names (a contract: they appear in `lanes classify` JSON,
in `[tool.lanes.suites.*] runner` and in the ledger).

Kept in a module of its own, free of imports, so that config validation and
the classifier agree on one list without importing each other.
"""

from __future__ import annotations

RUNNERS: tuple[str, ...] = (
    "pytest",
    "unittest",
    "go",
    "cargo",
    "npm",
    "yarn",
    "pnpm",
    "bun",
    "jest",
    "vitest",
    "playwright",
    "dotnet",
    "maven",
    "gradle",
    "mix",
    "phpunit",
    "rake",
    "swift",
)

# Commands that run a project's whole test suite through a wrapper (tox, nox,
# make, lanekit's own lanes): test runs to the governor, always full. The
# default of [tool.lanes.governor] test_commands; a form matches a command
# whose program is its first word and whose later words appear in order
# (`tox` matches `tox -e py311`; `nox -s tests` matches `nox -s tests-3.12`).
DEFAULT_TEST_COMMANDS: tuple[str, ...] = (
    "tox",
    "nox -s tests",
    "nox --session tests",
    "make test",
    "lanes slow run",
)
# (`hatch test` needs no form: it is hatch's pytest front end, unwrapped to
# pytest with its selectors, so `hatch test tests/x.py` stays filtered.)

# A suite whose command is not a test runner at all (`make verify`): matched by
# its exact argv, deduplicated and recorded, but never locked.
COMMAND_RUNNER = "command"
