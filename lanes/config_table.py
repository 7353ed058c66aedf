"""One ``[tool.lanes.*]`` table being read strictly: the reader every section shares.

Every access names the key, checks the type and range, and says what is
allowed; a key nobody asked for is an unknown-key error with a did-you-mean;
a hint offers "the default" only for a key that has one, and names it. The
setting rows (:mod:`lanes.settings_rows`) of every section read their keys
through it: the rows say what a value must be, this reader says so to the user.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from lanes.errors import ConfigError
from lanes.settings_rows import REQUIRED, toml

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["REQUIRED", "ConfigTable"]

T = TypeVar("T")


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
            "" if default is REQUIRED else f", or remove it to use the default ({toml(default)})"
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

    def table(self, key: str) -> dict[str, object]:
        value = self.raw.get(key, {})
        if not isinstance(value, dict):
            raise self._bad(key, value, "a table")
        return value
