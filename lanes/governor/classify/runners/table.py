"""The runner table: which program names run tests, and the rule for each.

A rule gets the command with its wrappers stripped and answers with a
:class:`~lanes.governor.classify.runners.argscan.Match` (a test run, full or filtered), a
:class:`~lanes.governor.classify.runners.argscan.Delegate` (the command hands over to another
program, e.g. ``yarn jest``), or ``None`` (not a test run: ``pytest --version``,
``go test -c``, ``mvn -DskipTests install``).

Programs are looked up by basename, so path prefixes (``.venv/bin/pytest``,
``./gradlew``, ``vendor/bin/phpunit``) need no rule of their own.
"""

from __future__ import annotations

from lanes.governor.classify.wrappers import basename

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Callable

    from lanes.governor.classify.runners.argscan import Call, Delegate, Match

    Rule = Callable[[Call], Match | Delegate | None]

__all__ = ["PROGRAMS", "recognise"]

# program basename -> (module under lanes.governor.classify.runners, rule function). Rule modules
# are imported on first use: a command that names no runner (`ls -la`, the
# hook's common case) loads none of them.
_RULES: dict[str, tuple[str, str]] = {
    "pytest": ("python", "pytest_rule"),
    "py.test": ("python", "pytest_rule"),
    "pytest-3": ("python", "pytest_rule"),
    "py.test-3": ("python", "pytest_rule"),
    "unittest": ("python", "unittest_rule"),  # only reachable as `python -m unittest`
    "manage.py": ("python", "django_rule"),
    "django-admin": ("python", "django_rule"),
    "django": ("python", "django_rule"),  # `python -m django test`
    "go": ("compiled", "go_rule"),
    "gotestsum": ("compiled", "gotestsum_rule"),
    "cargo": ("compiled", "cargo_rule"),
    "swift": ("compiled", "swift_rule"),
    "dotnet": ("compiled", "dotnet_rule"),
    "npm": ("javascript", "npm_rule"),
    "yarn": ("javascript", "yarn_rule"),
    "yarnpkg": ("javascript", "yarn_rule"),
    "pnpm": ("javascript", "pnpm_rule"),
    "bun": ("javascript", "bun_rule"),
    "jest": ("javascript", "jest_rule"),
    "vitest": ("javascript", "vitest_rule"),
    "playwright": ("javascript", "playwright_rule"),
    "react-scripts": ("javascript", "react_scripts_rule"),
    "mvn": ("jvm", "maven_rule"),
    "mvnw": ("jvm", "maven_rule"),
    "mvnd": ("jvm", "maven_rule"),
    "gradle": ("jvm", "gradle_rule"),
    "gradlew": ("jvm", "gradle_rule"),
    "mix": ("scripted", "mix_rule"),
    "phpunit": ("scripted", "phpunit_rule"),
    "rake": ("scripted", "rake_rule"),
    "rails": ("scripted", "rails_rule"),
    "lanes": ("lanekit", "lanes_rule"),  # `lanes affected --run`: the selected tests only
}

# Every program name the table knows (for callers that pre-filter commands).
PROGRAMS: frozenset[str] = frozenset(_RULES)


def recognise(call: Call) -> Match | Delegate | None:
    """The rule for ``call.argv[0]``'s program, applied; ``None`` if none."""
    entry = _RULES.get(basename(call.argv[0]))
    if entry is None:
        return None
    module_name, function = entry
    module = __import__(f"lanes.governor.classify.runners.{module_name}", fromlist=[function])
    rule: Rule = getattr(module, function)
    return rule(call)
