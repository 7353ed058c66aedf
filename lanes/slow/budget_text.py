"""Set tier budgets in a user's ``pyproject.toml``, editing the text in place.

``lanes slow propose --write`` changes one number per tier and nothing else:
the user's comments, key order, quoting and line endings (a CRLF file stays
CRLF) survive byte for byte, because the file is edited as text, never
re-serialised by a TOML writer.

The edit is proved before it is kept: the new text must parse, and parse to
exactly the old document with only those budgets changed. A layout the line
edit does not understand (an inline table of tiers, dotted keys, a budget
written on a line of its own shape) fails that proof and is refused with the
lines to set by hand — never written half right.
"""

from __future__ import annotations

import copy
import json
import re
from typing import TYPE_CHECKING, Any

from lanes._jsondoc import failing_with
from lanes._textdoc import loads_toml
from lanes.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["MEASURED_NOTE", "SEED_NOTE", "budget_value", "with_budgets"]

_SPACE = r"[ \t]*"
_BARE = re.compile(r"[A-Za-z0-9_-]+")
# Any table or array-of-tables header: where the tier's table ends.
_HEADER = re.compile(r"[ \t]*\[")
_COMMENT = re.compile(r"(?P<space>[ \t]+)(?P<note>#.*)", re.DOTALL)
SEED_NOTE = "(a seed)"
"""What ``lanes init`` writes after a budget it could not measure."""
MEASURED_NOTE = "(measured)"
_BUDGET = re.compile(rf"(?P<key>{_SPACE}budget{_SPACE}={_SPACE})(?P<value>[-+0-9_.eE]+)")


def budget_value(seconds: float) -> str:
    """``seconds`` as a TOML float literal: Python's ``repr`` of a finite float
    (``1.9``, ``2.0``, ``1e+16``) is one."""
    return repr(float(seconds))


def _key(name: str) -> str:
    # A tier name that is not a bare TOML key is quoted (a JSON string is a TOML basic string).
    return name if _BARE.fullmatch(name) else json.dumps(name)


def _header(name: str) -> re.Pattern[str]:
    dotted = rf"{_SPACE}\.{_SPACE}".join(
        ["tool", "lanes", "slow", "tiers", rf"(?:{re.escape(name)}|\"{re.escape(name)}\")"]
    )
    return re.compile(rf"{_SPACE}\[{_SPACE}{dotted}{_SPACE}\]{_SPACE}(?:#.*)?")


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _with_value(line: str, match: re.Match[str], value: str) -> str:
    """``line`` with the budget's number replaced; a trailing comment keeps its
    column, and init's "(a seed)" note becomes "(measured)"."""
    rest = line[match.end("value") :]
    comment = _COMMENT.match(rest)
    if comment is None:
        return line[: match.start("value")] + value + rest
    width = match.end("value") - match.start("value") + len(comment.group("space"))
    note = comment.group("note").replace(SEED_NOTE, MEASURED_NOTE)
    return line[: match.start("value")] + value.ljust(width - 1) + " " + note


def _set_in_table(lines: list[str], name: str, value: str) -> bool:
    """Rewrite the ``budget`` line of ``[tool.lanes.slow.tiers.<name>]``; False if there is none."""
    header = _header(name)
    for start, line in enumerate(lines):
        if not header.fullmatch(line.rstrip("\r\n")):
            continue
        for index in range(start + 1, len(lines)):
            body = lines[index]
            if _HEADER.match(body):
                return False
            match = _BUDGET.match(body)
            if match is not None:
                lines[index] = _with_value(body, match, value)
                return True
        return False
    return False


def with_budgets(text: str, budgets: Mapping[str, float], *, what: str) -> str:
    """``text`` (a pyproject.toml) with each tier's ``budget`` set, proved to change only them.

    A tier without a table of its own — the default ``unit`` tier when no tier
    is configured — gets ``[tool.lanes.slow.tiers.<name>]`` appended.
    """
    fail = failing_with(ConfigError, f"fix {what} and run lanes slow propose again")
    old = loads_toml(text, what=what, fail=fail)
    lines = text.splitlines(keepends=True)
    newline = _newline(text)
    appended: list[str] = []
    for name, seconds in budgets.items():
        value = budget_value(seconds)
        if not _set_in_table(lines, name, value):
            appended += ["", f"[tool.lanes.slow.tiers.{_key(name)}]", f"budget = {value}"]
    new_text = "".join(lines)
    if appended:
        if new_text and not new_text.endswith("\n"):
            new_text += newline
        new_text += newline.join(appended) + newline
    expected: dict[str, Any] = copy.deepcopy(old)
    for name, seconds in budgets.items():
        tiers = (
            expected.setdefault("tool", {})
            .setdefault("lanes", {})
            .setdefault("slow", {})
            .setdefault("tiers", {})
        )
        tiers.setdefault(name, {})["budget"] = float(budget_value(seconds))
    try:
        proved = loads_toml(new_text, what=what, fail=fail) == expected
    except ConfigError:
        proved = False
    if not proved:
        by_hand = "; ".join(
            f"budget = {budget_value(s)} under [tool.lanes.slow.tiers.{n}]"
            for n, s in budgets.items()
        )
        msg = (
            f"{what}: the tier budgets are laid out in a way lanes slow propose does not "
            "edit (an inline table, dotted keys or a budget line it cannot read); nothing "
            "was written"
        )
        raise ConfigError(msg, hint=f"set them by hand: {by_hand}")
    return new_text
