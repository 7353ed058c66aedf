"""The runner table: which program names run tests, and the rule for each.

A rule gets the command with its wrappers stripped and answers with a
:class:`~lanes.governor._argscan.Match` (a test run, full or filtered), a
:class:`~lanes.governor._argscan.Delegate` (the command hands over to another
program, e.g. ``yarn jest``), or ``None`` (not a test run: ``pytest --version``,
``go test -c``, ``mvn -DskipTests install``).

Programs are looked up by basename, so path prefixes (``.venv/bin/pytest``,
``./gradlew``, ``vendor/bin/phpunit``) need no rule of their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanes.governor._run_js import (
    bun_rule,
    jest_rule,
    npm_rule,
    playwright_rule,
    pnpm_rule,
    vitest_rule,
    yarn_rule,
)
from lanes.governor._run_jvm import gradle_rule, maven_rule
from lanes.governor._run_native import cargo_rule, dotnet_rule, go_rule, gotestsum_rule, swift_rule
from lanes.governor._run_python import pytest_rule, unittest_rule
from lanes.governor._run_scripted import mix_rule, phpunit_rule, rails_rule, rake_rule
from lanes.governor._wrappers import basename

if TYPE_CHECKING:
    from collections.abc import Callable

    from lanes.governor._argscan import Call, Delegate, Match

    Rule = Callable[[Call], Match | Delegate | None]

__all__ = ["PROGRAMS", "recognise"]

_RULES: dict[str, Rule] = {
    "pytest": pytest_rule,
    "py.test": pytest_rule,
    "pytest-3": pytest_rule,
    "py.test-3": pytest_rule,
    "unittest": unittest_rule,  # only reachable as `python -m unittest`
    "go": go_rule,
    "gotestsum": gotestsum_rule,
    "cargo": cargo_rule,
    "npm": npm_rule,
    "yarn": yarn_rule,
    "yarnpkg": yarn_rule,
    "pnpm": pnpm_rule,
    "bun": bun_rule,
    "jest": jest_rule,
    "vitest": vitest_rule,
    "playwright": playwright_rule,
    "dotnet": dotnet_rule,
    "mvn": maven_rule,
    "mvnw": maven_rule,
    "mvnd": maven_rule,
    "gradle": gradle_rule,
    "gradlew": gradle_rule,
    "mix": mix_rule,
    "phpunit": phpunit_rule,
    "rake": rake_rule,
    "rails": rails_rule,
    "swift": swift_rule,
}

# Every program name the table knows (for callers that pre-filter commands).
PROGRAMS: frozenset[str] = frozenset(_RULES)


def recognise(call: Call) -> Match | Delegate | None:
    """The rule for ``call.argv[0]``'s program, applied; ``None`` if none."""
    rule = _RULES.get(basename(call.argv[0]))
    return rule(call) if rule is not None else None
