"""Rows whose value is a table of named entries: ``[tool.lanes.slow.tiers.<name>]``.

The kinds of :mod:`lanes.settings_rows` that the hook's rows (the governor's
settings and a suite) never use, kept apart so that the hook does not load
them: each entry is an :class:`~lanes.settings_rows.Entry` parsed by its own
rows; a :class:`StringsTable` maps free-form keys (glob patterns) to lists.
"""

from __future__ import annotations

from lanes.settings_rows import REQUIRED, Nested, Strings

TYPE_CHECKING = False  # as in lanes.settings_rows: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Generic, TypeVar

    from lanes.config_table import ConfigTable
    from lanes.settings_rows import Entry

    S = TypeVar("S", bound=Entry)
else:
    from lanes.settings_rows import Generic

    S = None

__all__ = ["OptTable", "StringsTable", "Table", "Tables"]


class Tables(Nested, Generic[S]):
    """A table of named entries (``[tool.lanes.slow.tiers.<name>]``), each an
    :class:`Entry` parsed by its own rows.

    ``entry`` may be named ``"module:Class"``, imported on first use: the
    ``[tool.lanes]`` rows name the suite so, and the slow plugin, which reads
    them for the known keys, does not import the governor's rows for it.
    """

    __slots__ = ("_entry",)

    def __init__(self, entry: type[S] | str, default: object, *, doc: str) -> None:
        super().__init__(default, doc=doc)
        self._entry = entry

    @property
    def entry(self) -> type[S]:
        if isinstance(self._entry, str):
            from importlib import import_module  # noqa: PLC0415  # a named entry, on first use

            module, _, attribute = self._entry.partition(":")
            self._entry = getattr(import_module(module), attribute)
        return self._entry  # type: ignore[return-value]  # resolved above

    def parse(self, table: ConfigTable, default: object = REQUIRED) -> object:
        from types import MappingProxyType  # noqa: PLC0415  # a parse only (cache miss)

        if self.name not in table.raw:
            return self.default
        raw = table.table(self.name)
        where = f"{table.name}.{self.name}"
        return MappingProxyType(
            {
                name: self.entry.parse(item, f"{where}.{name}", name=name)
                for name, item in raw.items()
            }
        )

    def from_row(self, value: object) -> object:
        if value is None and self.default is None:
            return None
        if not isinstance(value, dict):
            raise TypeError(value)
        return {
            str(name): self.entry.from_dict(item, name=str(name)) for name, item in value.items()
        }

    def to_json(self, value: object) -> object:
        if value is None:
            return None
        return {name: entry.to_dict() for name, entry in value.items()}  # type: ignore[attr-defined]  # a Mapping of Entry

    def shown_default(self) -> str:
        if not self.default:
            return "(absent)" if self.default is None else "(none)"
        return "{" + ", ".join(self.default) + "}"  # type: ignore[arg-type]  # a Mapping of Entry


class Table(Tables[S]):
    """Named entries; absent = ``default`` (no entries unless given)."""

    __slots__ = ()

    def __init__(
        self, entry: type[S] | str, default: Mapping[str, S] | None = None, *, doc: str
    ) -> None:
        if default is None:
            from types import MappingProxyType  # noqa: PLC0415  # only sections with tables

            default = MappingProxyType({})
        super().__init__(entry, default, doc=doc)

    def __get__(self, section: object, owner: type | None = None) -> Mapping[str, S]:
        value: Mapping[str, S] = self.default  # type: ignore[assignment]  # a Table's default is a Mapping
        return value


class OptTable(Tables[S]):
    """Named entries, or absent (None: the lane derives them)."""

    __slots__ = ()

    def __init__(self, entry: type[S], *, doc: str) -> None:
        super().__init__(entry, None, doc=doc)

    def __get__(self, section: object, owner: type | None = None) -> Mapping[str, S] | None:
        return None


class StringsTable(Nested):
    """A table from free-form keys (glob patterns) to non-empty string lists."""

    __slots__ = ("value",)

    def __init__(self, *, doc: str, value: Strings) -> None:
        from types import MappingProxyType  # noqa: PLC0415  # only sections with such tables

        super().__init__(MappingProxyType({}), doc=doc)
        self.value = value

    def __get__(self, section: object, owner: type | None = None) -> Mapping[str, tuple[str, ...]]:
        value: Mapping[str, tuple[str, ...]] = self.default  # type: ignore[assignment]  # a Mapping
        return value

    def parse(self, table: ConfigTable, default: object = REQUIRED) -> object:
        from types import MappingProxyType  # noqa: PLC0415  # a parse only

        from lanes.config_table import ConfigTable  # noqa: PLC0415  # the one reader, on a parse only

        raw = table.table(self.name)
        inner = ConfigTable(f"{table.name}.{self.name}", raw, tuple(raw))
        none: tuple[str, ...] = ()
        check, allowed = self.value.check, self.value.allowed()
        return MappingProxyType(
            {key: inner.get(key, none, check, allowed, required=True) for key in raw}
        )

    def from_row(self, value: object) -> object:
        if not isinstance(value, dict):
            raise TypeError(value)
        return {str(key): self.value.from_row(item) for key, item in value.items()}

    def to_json(self, value: object) -> object:
        return {key: list(items) for key, items in value.items()}  # type: ignore[attr-defined]  # a Mapping

    def shown_default(self) -> str:
        return "(none)"
