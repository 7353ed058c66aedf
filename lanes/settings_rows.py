"""Typed setting rows: one line per setting of every ``[tool.lanes.*]`` section.

A section is a :class:`Section` subclass whose body is one row per key::

    class TortureConfig(Section):
        TABLE = "tool.lanes.torture"
        runs = Int(128, minimum=1, doc="seeded schedules per run")

and the rows give everything else: the known keys and the strict parse with
did-you-mean (through :class:`lanes.config_table.ConfigTable`, the one
reader), the defaults (``TortureConfig()``), ``to_dict()`` for ``lanes config
show`` and the config hashes, ``from_dict()`` for a cache row, the generated
reference (:func:`reference`, docs/reference/settings.md) and the fuzzer's
field kinds (:mod:`lanes.strategies.config_fields`). Tables of named entries
(``[tool.lanes.slow.tiers.<name>]``) are :mod:`lanes.settings_tables`. Rules between keys
(``escalate_at > max_full``) are the section's :meth:`Section.validate` hook.

Import cost is a contract: the governor's rows are read on every agent test
command, so this module imports nothing at import time (no typing,
dataclasses, re or pathlib) and the strict reader is imported by a parse
only — on the hook's path, a cache miss. A value lives in the instance's
``__dict__`` (a row is a non-data descriptor), so reading ``tier.budget`` in
the slow plugin costs a plain attribute read; on the class a row reads as
its default (``TortureConfig.runs == 128``), as a dataclass field would.
"""

from __future__ import annotations

from lanes.errors import ConfigError

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Generic, Self, TypeVar

    from lanes.config_table import ConfigTable

    S = TypeVar("S", bound="Section")
else:

    class Generic:
        """Only mypy needs the type parameter; at run time ``Table[Tier]`` is ``Table``."""

        __slots__ = ()

        def __class_getitem__(cls, item: object) -> type:
            return cls

    S = None

__all__ = [
    "REQUIRED",
    "Bool",
    "Entry",
    "Int",
    "Nested",
    "Number",
    "OptInt",
    "OptNumber",
    "OptStr",
    "ProjectPath",
    "Row",
    "Section",
    "Str",
    "Strings",
    "Sub",
    "reference",
    "toml",
]


# "this key has no default here": a hint must not offer one (a required key,
# or a derived one whose default another section decides).
REQUIRED = object()


def toml(value: object) -> str:
    """A value as the user would write it in TOML (hints and the reference)."""
    if value is None:
        return "(absent)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        import json  # noqa: PLC0415  # a hint or the reference only: json imports re

        return json.dumps(value)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(toml(item) for item in value) + "]"
    return repr(value)


class Row:
    """One ``key = value`` of a section: its default, bounds, docs and checks.

    ``derived``: the default is computed from the keys before it by the
    section's :meth:`Section.derive` (a suite's command is ``pytest <paths>``);
    the reference shows that text. ``required``: the key must be present; the
    text is the example its hint shows (``add budget = <required>``).
    """

    __slots__ = ("default", "derived", "doc", "env", "name", "required")
    kind = ""  # the fuzzer's field kind (lanes.strategies.config_fields)

    def __init__(
        self,
        default: object,
        *,
        doc: str,
        env: str | None = None,
        derived: str | None = None,
        required: str | None = None,
    ) -> None:
        self.name = ""
        self.default = default
        self.doc = doc
        self.env = env
        self.derived = derived
        self.required = required

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def allowed(self) -> str:
        """What a value must be, in the words of the error message."""
        raise NotImplementedError

    def check(self, value: object) -> object:
        """The value as the section holds it, or None when it is not allowed."""
        raise NotImplementedError

    def parse(self, table: ConfigTable, default: object = REQUIRED) -> object:
        """The strictly validated value of this key in ``table``; absent: ``default``
        (a derived one), else the row's. A bad value's hint offers the default
        only when there is one (:data:`REQUIRED`: none)."""
        if self.required is not None and self.name not in table.raw:
            msg = f"[{table.name}] has no {self.name}"
            raise ConfigError(msg, hint=f"add {self.name} = {self.required} to [{table.name}]")
        derived = default is not REQUIRED
        return table.get(
            self.name,
            default if derived else self.default,
            self.check,
            self.allowed(),
            required=self.required is not None or (self.derived is not None and not derived),
        )

    def from_row(self, value: object) -> object:
        """The value from a cache row we wrote; TypeError when it is not one."""
        checked = self.check(value)
        # None stands in a row only for a setting whose default is "absent".
        if checked is None and not (value is None and self.default is None):
            raise TypeError(value)
        return checked

    def to_json(self, value: object) -> object:
        return list(value) if isinstance(value, tuple) else value

    def shown_default(self) -> str:
        if self.required is not None:
            return "(required)"
        if self.derived is not None:
            return self.derived
        return toml(self.default)


def _whole(value: object, minimum: int) -> int | None:
    # bool is an int subclass; `max_age = true` is a mistake, not 1.
    if isinstance(value, int) and not isinstance(value, bool) and value >= minimum:
        return value
    return None


class Int(Row):
    """A whole number ``>= minimum``; ``env``, when set to a whole number, wins
    over the file (anything else there is ignored)."""

    __slots__ = ("minimum",)
    kind = "int"

    def __init__(self, default: int, *, minimum: int = 0, doc: str, env: str | None = None) -> None:
        super().__init__(default, doc=doc, env=env)
        self.minimum = minimum

    def __get__(self, section: object, owner: type | None = None) -> int:
        value: int = self.default  # type: ignore[assignment]  # an Int's default is an int
        return value

    def allowed(self) -> str:
        return f"an integer >= {self.minimum}"

    def check(self, value: object) -> int | None:
        return _whole(value, self.minimum)

    def from_environment(self, environ: Mapping[str, str]) -> int | None:
        """The override in ``environ``: None when unset or not a whole number."""
        text = environ.get(self.env, "").strip() if self.env else ""
        return int(text) if text.isdigit() else None


class OptInt(Int):
    """A whole number ``>= minimum``, or absent (None: the lane decides)."""

    __slots__ = ()

    def __init__(self, *, minimum: int = 0, doc: str) -> None:
        super().__init__(0, minimum=minimum, doc=doc)
        self.default = None

    def __get__(self, section: object, owner: type | None = None) -> int | None:  # type: ignore[override]  # None is this row's "absent"
        return None


class Number(Row):
    """A finite number ``> minimum`` (``>=`` when ``inclusive``)."""

    __slots__ = ("inclusive", "minimum")
    kind = "number"

    def __init__(
        self,
        default: float,
        *,
        minimum: float,
        inclusive: bool = False,
        doc: str,
        required: str | None = None,
    ) -> None:
        super().__init__(default, doc=doc, required=required)
        self.minimum = minimum
        self.inclusive = inclusive

    def __get__(self, section: object, owner: type | None = None) -> float:
        value: float = self.default  # type: ignore[assignment]  # a Number's default is a float
        return value

    def allowed(self) -> str:
        return f"a finite number {'>=' if self.inclusive else '>'} {self.minimum:g}"

    def check(self, value: object) -> float | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        number = float(value)
        if number - number != 0.0:  # NaN and ±inf; math is not imported for it
            return None
        ok = number >= self.minimum if self.inclusive else number > self.minimum
        return number if ok else None


class OptNumber(Number):
    """A finite number ``> minimum``, or absent (None)."""

    __slots__ = ()

    def __init__(self, *, minimum: float, doc: str) -> None:
        super().__init__(0.0, minimum=minimum, doc=doc)
        self.default = None

    def __get__(self, section: object, owner: type | None = None) -> float | None:  # type: ignore[override]  # None is this row's "absent"
        return None


class Bool(Row):
    __slots__ = ()
    kind = "bool"

    def __init__(self, default: bool, *, doc: str, derived: str | None = None) -> None:  # noqa: FBT001  # the row's default, positional like every row's
        super().__init__(default, doc=doc, derived=derived)

    def __get__(self, section: object, owner: type | None = None) -> bool:
        return self.default is True

    def allowed(self) -> str:
        return "true or false"

    def check(self, value: object) -> bool | None:
        return value if isinstance(value, bool) else None


class Str(Row):
    """A non-empty string (one of ``choices`` when given); ``empty``: "" allowed too."""

    __slots__ = ("choices", "empty")
    kind = "string"

    def __init__(
        self,
        default: str,
        *,
        doc: str,
        choices: tuple[str, ...] = (),
        empty: str = "",
        derived: str | None = None,
        required: str | None = None,
    ) -> None:
        super().__init__(default, doc=doc, derived=derived, required=required)
        self.choices = choices
        self.empty = empty

    def __get__(self, section: object, owner: type | None = None) -> str:
        return str(self.default)

    def allowed(self) -> str:
        if self.choices:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        return self.empty or "a non-empty string"

    def check(self, value: object) -> str | None:
        if not isinstance(value, str):
            return None
        if not value.strip() and not (self.empty and not value):
            return None
        if self.choices and value not in self.choices:
            return None
        return value


class OptStr(Str):
    """A non-empty string, or absent (None: the lane decides)."""

    __slots__ = ()

    def __init__(self, *, doc: str) -> None:
        super().__init__("", doc=doc)
        self.default = None

    def __get__(self, section: object, owner: type | None = None) -> str | None:  # type: ignore[override]  # None is this row's "absent"
        return None


class ProjectPath(Str):
    """A path inside the project: relative, without ``..`` (lanekit writes there)."""

    __slots__ = ()
    kind = "path"

    def allowed(self) -> str:
        return "a relative path inside the project (no '..')"

    def check(self, value: object) -> str | None:
        if not isinstance(value, str) or not value.strip() or "\0" in value:
            return None
        parts = [part for part in value.split("/") if part not in ("", ".")]
        if not parts or value.startswith("/") or ".." in parts:
            return None
        return value


class Strings(Row):
    """A list of non-empty strings (each one of ``choices`` when given);
    ``non_empty``: at least one, or — with ``unless`` — at least one when the
    key ``unless`` is absent (a suite's paths, unless it has a command)."""

    __slots__ = ("choices", "non_empty", "unless", "what")
    kind = "strings"

    def __init__(
        self,
        default: tuple[str, ...],
        *,
        doc: str,
        non_empty: bool = False,
        choices: tuple[str, ...] = (),
        what: str = "names",
        unless: str = "",
        required: str | None = None,
    ) -> None:
        super().__init__(default, doc=doc, required=required)
        self.non_empty = non_empty
        self.choices = choices
        self.what = what
        self.unless = unless

    def __get__(self, section: object, owner: type | None = None) -> tuple[str, ...]:
        value: tuple[str, ...] = self.default  # type: ignore[assignment]  # a Strings default is a tuple
        return value

    def allowed(self) -> str:
        if self.choices:
            return f"a list of {self.what}: " + ", ".join(self.choices)
        shown = f"a {'non-empty ' if self.non_empty else ''}list of non-empty strings"
        return f"{shown} (non-empty without {self.unless})" if self.unless else shown

    def check(self, value: object) -> tuple[str, ...] | None:
        if not isinstance(value, list | tuple):
            return None
        if not all(isinstance(item, str) and item.strip() for item in value):
            return None
        if self.non_empty and not value:
            return None
        if self.choices and not all(item in self.choices for item in value):
            return None
        return tuple(value)

    def parse(self, table: ConfigTable, default: object = REQUIRED) -> object:
        if self.unless and self.unless not in table.raw:
            strict = Strings(self.default, doc=self.doc, non_empty=True)  # type: ignore[arg-type]  # a Strings default is a tuple
            strict.name = self.name
            return strict.parse(table, default)
        return super().parse(table, default)


class Nested(Row):
    """A row whose value is a table: parsed by its own rows, not by a check."""

    __slots__ = ()

    def allowed(self) -> str:
        return "a table"

    def check(self, value: object) -> object:
        return value if isinstance(value, dict) else None


class Sub(Nested, Generic[S]):
    """One nested table (``[tool.lanes.suites.<name>.timing]``); None when absent."""

    __slots__ = ("section",)

    def __init__(self, section: type[S], *, doc: str) -> None:
        super().__init__(None, doc=doc)
        self.section = section

    def __get__(self, owner_section: object, owner: type | None = None) -> S | None:
        return None

    def parse(self, table: ConfigTable, default: object = REQUIRED) -> object:
        # None too: TOML has no null, and a to_dict() view says None for "absent".
        if table.raw.get(self.name) is None:
            return None
        return self.section.parse(table.raw[self.name], f"{table.name}.{self.name}")

    def from_row(self, value: object) -> object:
        if value is None:
            return None
        if not isinstance(value, dict):
            raise TypeError(value)
        return self.section.from_dict(value)

    def to_json(self, value: object) -> object:
        return None if value is None else value.to_dict()  # type: ignore[attr-defined]  # a Section

    def shown_default(self) -> str:
        return "(absent)"


class Section:
    """A ``[tool.lanes.*]`` table: one class attribute (a :class:`Row`) per key.

    Instances are immutable values: built by :meth:`parse` (strict),
    by calling the class (defaults for what is not given), or by
    :meth:`from_dict` (a cache row). ``validate`` is the section's hook for
    rules between keys and for derived defaults.
    """

    TABLE = ""  # the TOML table, "tool.lanes.<section>"; entries get theirs from the parent
    ROWS: tuple[Row, ...] = ()
    KEYS: tuple[str, ...] = ()

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        rows = tuple(row for row in vars(cls).values() if isinstance(row, Row))
        if rows:
            cls.ROWS = rows
            cls.KEYS = tuple(row.name for row in rows)

    def __init__(self, **values: object) -> None:
        unknown = set(values) - set(self.KEYS)
        if unknown:
            msg = f"unknown {type(self).__name__} settings: {sorted(unknown)}"
            raise TypeError(msg)
        fields = self.__dict__
        for row in self.ROWS:
            fields[row.name] = values.get(row.name, row.default)

    @classmethod
    def row(cls, key: str) -> Row:
        """The row of ``key`` (on the class, a row reads as its default)."""
        row: Row = vars(cls)[key]
        return row

    @classmethod
    def parse(
        cls, raw: object, where: str = "", *, name: str | None = None, known: tuple[str, ...] = ()
    ) -> Self:
        """Validate the table ``raw`` (at ``where``, default :attr:`TABLE`);
        ``known``: the table may hold more keys than the rows (other sections)."""
        from lanes.config_table import ConfigTable  # noqa: PLC0415  # the one reader; a cache miss only

        table = ConfigTable(where or cls.TABLE, raw, known or cls.KEYS)
        values: dict[str, Any] = {} if name is None else {"name": name}
        for row in cls.ROWS:
            default = REQUIRED if row.derived is None else cls.derive(row.name, values)
            values[row.name] = row.parse(table, default)
        cls.validate(table, values)
        return cls(**values)

    @classmethod
    def derive(cls, key: str, values: dict[str, Any]) -> object:  # noqa: ARG003  # a hook: sections with derived rows override it
        """The default of the derived row ``key`` from the ``values`` parsed
        before it; :data:`REQUIRED` when it is decided elsewhere."""
        return REQUIRED

    @classmethod
    def validate(cls, table: ConfigTable, values: dict[str, Any]) -> None:
        """Rules between keys: may adjust ``values`` or raise a
        :class:`~lanes.errors.ConfigError` naming the table and key."""

    @classmethod
    def from_dict(cls, data: object, *, name: str | None = None) -> Self:
        """From a cache row (:meth:`to_dict`); KeyError/TypeError when it is not one we wrote."""
        if not isinstance(data, dict):
            raise TypeError(data)
        values = {row.name: row.from_row(data[row.name]) for row in cls.ROWS}
        if name is not None:
            values["name"] = name
        return cls(**values)

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready view: ``lanes config show`` and the config hashes."""
        fields = self.__dict__
        return {row.name: row.to_json(fields[row.name]) for row in self.ROWS}

    def replace(self, **changes: object) -> Self:
        values = {**self.__dict__, **changes}
        return type(self)(**values)

    def __setattr__(self, name: str, value: object) -> None:
        msg = f"{type(self).__name__} is immutable: use .replace({name}=...)"
        raise AttributeError(msg)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash(tuple(self.__dict__.items()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{key}={value!r}" for key, value in self.__dict__.items())
        return f"{type(self).__name__}({inner})"


class Entry(Section):
    """One named entry of a table (a suite, a tier, a module): it knows its name.

    ``NAMED_DICT``: its :meth:`to_dict` carries the name too (a suite's, a
    tier's and a fuzz target's always did, and the config hashes keep them).
    """

    NAMED_DICT = False
    name: str

    def __init__(self, name: str, **values: object) -> None:
        super().__init__(**values)
        self.__dict__["name"] = name

    def to_dict(self) -> dict[str, object]:
        view = super().to_dict()
        return {"name": self.name, **view} if self.NAMED_DICT else view

    @classmethod
    def from_dict(cls, data: object, *, name: str | None = None) -> Self:
        if name is None and isinstance(data, dict):
            name = str(data["name"])
        return super().from_dict(data, name=name)


def reference(section: type[Section]) -> str:
    """The Markdown table of ``section``'s rows (the generated reference)."""
    lines = ["| key | allowed | default | what it sets |", "|---|---|---|---|"]
    for row in section.ROWS:
        env = f" (environment: `{row.env}`)" if row.env else ""
        lines.append(
            f"| `{row.name}` | {row.allowed()} | `{row.shown_default()}` | {row.doc}{env} |"
        )
    return "\n".join(lines)
