"""``[tool.lanes.fuzz]``: the fuzz lane's budget and the user's targets, one row per setting.

Stdlib only and cheap: the section registry (:mod:`lanes.sections`) loads
this module to parse the section, so it must not pull Hypothesis or the
lane's engine in with it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

from lanes.errors import ConfigError
from lanes.settings_rows import Entry, Int, Number, Section, Str
from lanes.settings_tables import Table

if TYPE_CHECKING:
    from lanes.config_table import ConfigTable

__all__ = ["FuzzConfig", "FuzzTarget"]

SECTION: Final = "tool.lanes.fuzz"
# A target's name: it is part of a file name, so no '/', no leading '.'.
_SAFE_NAME: Final = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}")


class Reference(Str):
    """A ``package.module:attribute`` reference, checked for shape (not imported here)."""

    __slots__ = ()

    def allowed(self) -> str:
        return "a 'package.module:attribute' reference"

    def check(self, value: object) -> str | None:
        if not isinstance(value, str):
            return None
        module, sep, attr = value.partition(":")
        if not sep or not module.strip() or not attr.strip():
            return None
        return value


_EXAMPLE: Final = '"package.module:attribute"'


class FuzzTarget(Entry):
    """``[tool.lanes.fuzz.targets.<name>]``: a user's parser under fuzz."""

    NAMED_DICT = True

    # fmt: off
    callable = Reference("", required=_EXAMPLE, doc="the parser under fuzz")
    strategy = Reference("", required=_EXAMPLE, doc="the Hypothesis strategy of its inputs")
    error = Reference("lanes.errors:LanesError", doc="the error type every rejection must be")
    hint_attribute = Str("hint", empty='an attribute name, or "" for none', doc='the attribute that must be a non-empty string on every rejection; "" = the error type is enough')
    # fmt: on

    @classmethod
    def validate(cls, table: ConfigTable, values: dict[str, Any]) -> None:  # noqa: ARG003  # the section hook's signature
        if not _SAFE_NAME.fullmatch(values["name"]):
            # The name becomes part of artifact file names under envelopes/fuzz/.
            msg = f"[{SECTION}.targets] {values['name']!r} is not a valid target name"
            raise ConfigError(
                msg, hint="name targets with letters, digits, '_', '-' and '.' (e.g. 'parser')"
            )


class FuzzConfig(Section):
    TABLE = SECTION

    # fmt: off
    iterations = Int(2000, minimum=1, doc="generated cases per target")
    seed = Int(1, minimum=0, doc="the run's seed: the same seed replays the same cases")
    case_budget = Number(2.0, minimum=0.0, doc="seconds one case may take before the watchdog calls it a hang")
    targets = Table(FuzzTarget, doc="the user's parsers under fuzz ([tool.lanes.fuzz.targets.<name>])")
    # fmt: on
