"""One ``[tool.lanes.*]`` table being read strictly: the reader every section shares.

Every access names the key, checks the type and range, and says what is
allowed; a key nobody asked for is an unknown-key error with a did-you-mean;
a hint offers "the default" only for a key that has one, and names it. The
loader (:mod:`lanes.config`), the governor's settings table and each lane's
``settings`` module read their sections through it.
"""

from __future__ import annotations

import json
import math
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Final, TypeVar

from lanes.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["REQUIRED", "ConfigTable"]

T = TypeVar("T")

# "this key has no default": its hint must not offer one.
REQUIRED: Final = object()


def _toml(value: object) -> str:
    """A default as the user would write it in TOML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return repr(value)


class ConfigTable:
    """One TOML table being validated: every access is checked and recorded,
    and :meth:`finish` turns whatever was not asked for into an unknown-key error."""

    def __init__(self, name: str, raw: object, known: tuple[str, ...]) -> None:
        if not isinstance(raw, dict):
            msg = f"[{name}] must be a table, got {type(raw).__name__} {raw!r}"
            raise ConfigError(
                msg,
                hint=f"write it as a TOML table: [{name}] on its own line followed by key = value lines",
            )
        self.name = name
        self.raw: dict[str, object] = raw
        self.known = known
        for key in raw:
            if key not in known:
                self._unknown(key)

    def _unknown(self, key: str) -> None:
        from difflib import get_close_matches  # noqa: PLC0415  # an unknown key only

        close = get_close_matches(key, self.known, n=1, cutoff=0.6)
        suggestion = f" — did you mean {close[0]!r}?" if close else ""
        allowed = ", ".join(self.known) if self.known else "(no keys)"
        msg = f"[{self.name}] unknown key {key!r}{suggestion}"
        raise ConfigError(
            msg,
            hint=f"allowed keys in [{self.name}]: {allowed}",
        )

    def _bad(
        self, key: str, value: object, allowed: str, *, default: object = REQUIRED
    ) -> ConfigError:
        # A hint that offers "the default" must name it, and only a key that has one.
        fallback = (
            "" if default is REQUIRED else f", or remove it to use the default ({_toml(default)})"
        )
        return ConfigError(
            f"[{self.name}] {key} must be {allowed}, got {value!r}",
            hint=f"set {key} in [{self.name}] to {allowed}{fallback}",
        )

    def get(
        self,
        key: str,
        default: T,
        check: Callable[[object], T | None],
        allowed: str,
        *,
        required: bool = False,
    ) -> T:
        """``key``'s checked value; ``default`` when absent (``required``: the caller
        reports a missing key itself, so a bad value's hint offers no default)."""
        if key not in self.raw:
            return default
        value = self.raw[key]
        checked = check(value)
        if checked is None:
            has_default = not required and default is not None
            raise self._bad(key, value, allowed, default=default if has_default else REQUIRED)
        return checked

    def integer(self, key: str, default: int, *, minimum: int = 0) -> int:
        def check(value: object) -> int | None:
            # bool is an int subclass; `max_age = true` is a mistake, not 1.
            if isinstance(value, int) and not isinstance(value, bool) and value >= minimum:
                return value
            return None

        return self.get(key, default, check, f"an integer >= {minimum}")

    def number(
        self,
        key: str,
        default: float,
        *,
        minimum: float,
        inclusive: bool = False,
        required: bool = False,
    ) -> float:
        def check(value: object) -> float | None:
            if isinstance(value, bool) or not isinstance(value, int | float):
                return None
            number = float(value)
            if not math.isfinite(number):
                return None
            ok = number >= minimum if inclusive else number > minimum
            return number if ok else None

        relation = ">=" if inclusive else ">"
        return self.get(
            key, default, check, f"a finite number {relation} {minimum:g}", required=required
        )

    def boolean(self, key: str, *, default: bool) -> bool:
        def check(value: object) -> bool | None:
            return value if isinstance(value, bool) else None

        return self.get(key, default, check, "true or false")

    def string(
        self, key: str, default: str, *, choices: tuple[str, ...] = (), required: bool = False
    ) -> str:
        def check(value: object) -> str | None:
            if not isinstance(value, str) or not value.strip():
                return None
            if choices and value not in choices:
                return None
            return value

        allowed = (
            "one of " + ", ".join(repr(c) for c in choices) if choices else "a non-empty string"
        )
        return self.get(key, default, check, allowed, required=required)

    def project_path(self, key: str, default: str) -> str:
        """A path inside the project: relative, without ``..`` (lanekit writes there)."""

        def check(value: object) -> str | None:
            if not isinstance(value, str) or not value.strip() or "\0" in value:
                return None
            parts = PurePosixPath(value).parts
            if not parts or parts[0] == "/" or ".." in parts:
                return None
            return value

        return self.get(key, default, check, "a relative path inside the project (no '..')")

    def strings(
        self, key: str, default: tuple[str, ...], *, non_empty: bool = False
    ) -> tuple[str, ...]:
        def check(value: object) -> tuple[str, ...] | None:
            if not isinstance(value, list):
                return None
            if not all(isinstance(item, str) and item.strip() for item in value):
                return None
            if non_empty and not value:
                return None
            return tuple(value)

        what = (
            "a non-empty list of non-empty strings" if non_empty else "a list of non-empty strings"
        )
        return self.get(key, default, check, what)

    def table(self, key: str) -> dict[str, object]:
        value = self.raw.get(key, {})
        if not isinstance(value, dict):
            raise self._bad(key, value, "a table")
        return value
