"""The runner table: which program names run tests, and the rule for each.

A rule gets the command with its wrappers stripped and answers with a
:class:`~lanes.governor._argscan.Match` (a test run, full or filtered), a
:class:`~lanes.governor._argscan.Delegate` (the command hands over to another
program, e.g. ``yarn jest``), or ``None`` (not a test run: ``pytest --version``,
``go test -c``, ``mvn -DskipTests install``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanes.governor._run_python import pytest_rule, unittest_rule
from lanes.governor._wrappers import basename

if TYPE_CHECKING:
    from collections.abc import Callable

    from lanes.governor._argscan import Call, Delegate, Match

    Rule = Callable[[Call], Match | Delegate | None]

__all__ = ["recognise"]

_RULES: dict[str, Rule] = {
    "pytest": pytest_rule,
    "py.test": pytest_rule,
    "pytest-3": pytest_rule,
    "py.test-3": pytest_rule,
    "unittest": unittest_rule,
}


def recognise(call: Call) -> Match | Delegate | None:
    """The rule for ``call.argv[0]``'s program, applied; ``None`` if none."""
    rule = _RULES.get(basename(call.argv[0]))
    return rule(call) if rule is not None else None
