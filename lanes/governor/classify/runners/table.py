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

from lanes.governor._wrappers import basename

# Not `from typing import TYPE_CHECKING`: typing costs ~3 ms to import on the
# hook's path, and type checkers honour any name TYPE_CHECKING.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from lanes.governor._argscan import Call, Delegate, Match

    Rule = Callable[[Call], Match | Delegate | None]

__all__ = ["PROGRAMS", "recognise"]

# program basename -> (module under lanes.governor, rule function). Rule modules
# are imported on first use: a command that names no runner (`ls -la`, the
# hook's common case) loads none of them.
_RULES: dict[str, tuple[str, str]] = {
    "pytest": ("_run_python", "pytest_rule"),
    "py.test": ("_run_python", "pytest_rule"),
    "pytest-3": ("_run_python", "pytest_rule"),
    "py.test-3": ("_run_python", "pytest_rule"),
    "unittest": ("_run_python", "unittest_rule"),  # only reachable as `python -m unittest`
    "manage.py": ("_run_python", "django_rule"),
    "django-admin": ("_run_python", "django_rule"),
    "django": ("_run_python", "django_rule"),  # `python -m django test`
    "go": ("_run_native", "go_rule"),
    "gotestsum": ("_run_native", "gotestsum_rule"),
    "cargo": ("_run_native", "cargo_rule"),
    "swift": ("_run_native", "swift_rule"),
    "dotnet": ("_run_native", "dotnet_rule"),
    "npm": ("_run_js", "npm_rule"),
    "yarn": ("_run_js", "yarn_rule"),
    "yarnpkg": ("_run_js", "yarn_rule"),
    "pnpm": ("_run_js", "pnpm_rule"),
    "bun": ("_run_js", "bun_rule"),
    "jest": ("_run_js", "jest_rule"),
    "vitest": ("_run_js", "vitest_rule"),
    "playwright": ("_run_js", "playwright_rule"),
    "react-scripts": ("_run_js", "react_scripts_rule"),
    "mvn": ("_run_jvm", "maven_rule"),
    "mvnw": ("_run_jvm", "maven_rule"),
    "mvnd": ("_run_jvm", "maven_rule"),
    "gradle": ("_run_jvm", "gradle_rule"),
    "gradlew": ("_run_jvm", "gradle_rule"),
    "mix": ("_run_scripted", "mix_rule"),
    "phpunit": ("_run_scripted", "phpunit_rule"),
    "rake": ("_run_scripted", "rake_rule"),
    "rails": ("_run_scripted", "rails_rule"),
}

# Every program name the table knows (for callers that pre-filter commands).
PROGRAMS: frozenset[str] = frozenset(_RULES)


def recognise(call: Call) -> Match | Delegate | None:
    """The rule for ``call.argv[0]``'s program, applied; ``None`` if none."""
    entry = _RULES.get(basename(call.argv[0]))
    if entry is None:
        return None
    module_name, function = entry
    module = __import__(f"lanes.governor.{module_name}", fromlist=[function])
    rule: Rule = getattr(module, function)
    return rule(call)
