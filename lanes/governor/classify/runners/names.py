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

# A suite whose command is not a test runner at all (`make verify`): matched by
# its exact argv, deduplicated and recorded, but never locked.
COMMAND_RUNNER = "command"
