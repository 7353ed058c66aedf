"""The pin list, ``baselines/slow-tests.json``: tests allowed past their tier's budget.

A pin is a reviewed waiver: the test, its tier, its own ceiling in seconds, why
it is slow, where the work to speed it up is tracked and when it was added. The
file is committed, edited only through ``lanes slow pin`` / ``unpin`` (or by
hand, which ``lanes slow check`` then judges), and written atomically with its
entries sorted by node id so that diffs stay one line per change.

Loading is strict: a malformed file is a :class:`~lanes.errors.ConfigError`
naming the file, the entry and the fix, never a silently empty list (an
unreadable pin list that read as "no pins" would fail every pinned test; one
that read as "everything pinned" would pass everything).

``reason`` and ``tracking`` may be empty in the file: that is exactly what
``lanes slow check`` exists to catch in review, so the loader must let it
through to be judged rather than hide it behind a load error.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from lanes._atomic import flocked_directory, write_atomic_under
from lanes._jsondoc import failing_with, load_object, loads_object, read_bytes
from lanes.errors import ConfigError, StateError, UsageError

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence
    from pathlib import Path

    from lanes.slow.settings import SlowConfig

__all__ = [
    "PINS_FORMAT",
    "Pin",
    "PinList",
    "add_pin",
    "dump_pins",
    "justification_problems",
    "load_pins",
    "parse_pins",
    "remove_pin",
    "write_pins",
]

PINS_FORMAT: Final = "lanekit.slow-pins"
PINS_VERSION: Final = 1
_FIELDS: Final = ("nodeid", "tier", "ceiling", "reason", "tracking", "added")
# Patterns, not compiled ones: re compiles them on first use, so a run
# without pins (the enabled plugin imports this module) never pays for it.
_DATE: Final = r"\A\d{4}-\d{2}-\d{2}\Z"
# The ratchet's own suggested command prints '<why it is slow>' and '<issue>':
# a pin that still carries a placeholder was pasted, not reviewed.
_PLACEHOLDER: Final = r"<[^<>]*>"
_NON_ANSWERS: Final = frozenset(
    {"todo", "tbd", "fixme", "n/a", "na", "none", "-", "?", "slow", "xxx"}
)
MIN_REASON_CHARS: Final = 12
"""Shorter than this a reason names no cause ("slow", "flaky", "todo")."""


def justification_problems(reason: str, tracking: str) -> list[str]:
    """What keeps ``reason``/``tracking`` from justifying a pin; [] when they do."""
    problems: list[str] = []
    for name, value in (("reason", reason), ("tracking", tracking)):
        text = value.strip()
        if not text:
            problems.append(f"{name} is empty")
        elif re.search(_PLACEHOLDER, text):
            problems.append(
                f"{name} {text!r} is a placeholder (the text in <...> is to be replaced)"
            )
        elif text.lower() in _NON_ANSWERS:
            problems.append(f"{name} {text!r} says nothing")
    text = reason.strip()
    if (
        text and not problems and (len(text) < MIN_REASON_CHARS or len(text.split()) < 2)
    ):  # two words: a cause and what it does
        problems.append(
            f"reason {text!r} is too short to explain anything (at least {MIN_REASON_CHARS} "
            "characters and two words: what makes the test slow)"
        )
    return problems


class Pin(NamedTuple):
    """One waiver: ``nodeid`` may take up to ``ceiling`` seconds (then the band).

    A named tuple, not a dataclass: this module is on the enabled plugin's
    import path, where creating a dataclass costs some 4 M instructions (the
    bench lane holds the plugin to 2% of a suite's).
    """

    nodeid: str
    tier: str
    ceiling: float
    reason: str
    tracking: str
    added: str

    @property
    def justified(self) -> bool:
        """A pin says why (reason) and where the fix is tracked (tracking), for real."""
        return not justification_problems(self.reason, self.tracking)

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodeid": self.nodeid,
            "tier": self.tier,
            "ceiling": self.ceiling,
            "reason": self.reason,
            "tracking": self.tracking,
            "added": self.added,
        }


class PinList:
    """The parsed pin file: pins by node id, plus where they came from."""

    __slots__ = ("pins", "source")

    def __init__(self, source: str, pins: Mapping[str, Pin]) -> None:
        self.source = source
        self.pins = pins

    def get(self, nodeid: str) -> Pin | None:
        return self.pins.get(nodeid)

    def __len__(self) -> int:
        return len(self.pins)

    def __iter__(self) -> Iterator[Pin]:
        return iter(self.pins.values())


def _entry_error(source: str, index: int, nodeid: object, problem: str, fix: str) -> ConfigError:
    name = f"entry {index}" + (f" ({nodeid!r})" if isinstance(nodeid, str) and nodeid else "")
    return ConfigError(f"pin file {source}: {name}: {problem}", hint=fix)


def _parse_entry(source: str, index: int, raw: object) -> Pin:
    if not isinstance(raw, dict):
        raise _entry_error(
            source,
            index,
            None,
            f"must be a JSON object, got {type(raw).__name__} {raw!r}",
            'write each pin as {"nodeid": ..., "tier": ..., "ceiling": ..., "reason": ..., '
            '"tracking": ..., "added": ...}, or use `lanes slow pin`',
        )
    nodeid = raw.get("nodeid")
    for key in raw:
        if key not in _FIELDS:
            from difflib import get_close_matches  # noqa: PLC0415  # a broken pin file only

            close = get_close_matches(str(key), _FIELDS, n=1, cutoff=0.6)
            guess = f" — did you mean {close[0]!r}?" if close else ""
            raise _entry_error(
                source,
                index,
                nodeid,
                f"unknown key {key!r}{guess}",
                f"a pin has exactly these keys: {', '.join(_FIELDS)}",
            )
    missing = [key for key in ("nodeid", "tier", "ceiling", "added") if key not in raw]
    if missing:
        raise _entry_error(
            source,
            index,
            nodeid,
            f"is missing {', '.join(missing)}",
            "re-create the pin with `lanes slow unpin NODEID` then "
            "`lanes slow pin NODEID --reason ... --tracking ...`",
        )
    for key in ("nodeid", "tier"):
        value = raw[key]
        if not isinstance(value, str) or not value.strip():
            raise _entry_error(
                source,
                index,
                nodeid,
                f"{key} must be a non-empty string, got {value!r}",
                f"set {key} to the test's {'node id' if key == 'nodeid' else 'tier name'}",
            )
    for key in ("reason", "tracking"):
        value = raw.get(key, "")
        if not isinstance(value, str):
            raise _entry_error(
                source,
                index,
                nodeid,
                f"{key} must be a string, got {value!r}",
                f"set {key} to a short text (why the test is slow / an issue reference)",
            )
    ceiling = raw["ceiling"]
    if (
        isinstance(ceiling, bool)
        or not isinstance(ceiling, int | float)
        or not math.isfinite(ceiling)
        or ceiling <= 0
    ):
        raise _entry_error(
            source,
            index,
            nodeid,
            f"ceiling must be a finite number of seconds > 0, got {ceiling!r}",
            "set ceiling to the seconds this test may take, e.g. 4.5",
        )
    added = raw["added"]
    if not isinstance(added, str) or not re.match(_DATE, added):
        raise _entry_error(
            source,
            index,
            nodeid,
            f"added must be a date YYYY-MM-DD, got {added!r}",
            'set added to the date the pin was created, e.g. "2026-01-31"',
        )
    return Pin(
        nodeid=raw["nodeid"],
        tier=raw["tier"],
        ceiling=float(ceiling),
        reason=raw.get("reason", ""),
        tracking=raw.get("tracking", ""),
        added=added,
    )


def parse_pins(text: str, *, source: str, slow: SlowConfig | None = None) -> PinList:
    """Validate the pin file's text; with ``slow``, every pin's tier must be configured."""
    document = loads_object(
        text,
        what=f"pin file {source}",
        fail=failing_with(
            ConfigError,
            "fix the JSON (the file looks like "
            f'{{"format": "{PINS_FORMAT}", "version": 1, "pins": [...]}}), '
            "or restore the file from git",
        ),
    )
    if document.get("format") != PINS_FORMAT or document.get("version") != PINS_VERSION:
        msg = (
            f"pin file {source} has format {document.get('format')!r} version "
            f"{document.get('version')!r}; expected {PINS_FORMAT!r} version {PINS_VERSION}"
        )
        raise ConfigError(
            msg,
            hint=f'start the file with "format": "{PINS_FORMAT}", "version": {PINS_VERSION}, '
            "or delete it and re-pin with `lanes slow pin`",
        )
    extra = sorted(set(document) - {"format", "version", "pins"})
    if extra:
        msg = f"pin file {source} has unknown top-level keys {extra!r}"
        raise ConfigError(
            msg,
            hint="the top level holds only format, version and pins",
        )
    entries = document.get("pins", [])
    if not isinstance(entries, list):
        msg = f"pin file {source}: pins must be a list, got {type(entries).__name__}"
        raise ConfigError(
            msg,
            hint='write pins as a JSON list: "pins": [ {...}, ... ]',
        )
    pins: dict[str, Pin] = {}
    for index, raw in enumerate(entries):
        pin = _parse_entry(source, index, raw)
        if pin.nodeid in pins:
            raise _entry_error(
                source,
                index,
                pin.nodeid,
                "pins the same test a second time",
                "keep one entry per node id (`lanes slow pin` replaces an existing pin)",
            )
        if slow is not None and pin.tier not in slow.tiers:
            raise _entry_error(
                source,
                index,
                pin.nodeid,
                f"tier {pin.tier!r} is not configured (tiers: {', '.join(slow.tiers)})",
                f"set the pin's tier to a configured tier, or add [tool.lanes.slow.tiers.{pin.tier}]",
            )
        pins[pin.nodeid] = pin
    return PinList(source=source, pins=dict(sorted(pins.items())))


def load_pins(path: Path, *, slow: SlowConfig | None = None) -> PinList:
    """Read the pin file; a missing file is an empty list (no pins yet)."""
    try:
        # Strict: a FIFO or device at the configured path is refused, not waited on.
        data = read_bytes(path, follow_symlinks=True)
        text = None if data is None else data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        msg = f"pin file {str(path)!r} cannot be read: {exc}"
        raise StateError(
            msg,
            hint="the pin file must be a regular UTF-8 JSON file you can read",
        ) from None
    if text is None:
        return PinList(source=str(path), pins={})
    return parse_pins(text, source=str(path), slow=slow)


def dump_pins(pins: Sequence[Pin]) -> str:
    document = {
        "format": PINS_FORMAT,
        "version": PINS_VERSION,
        "pins": [pin.to_dict() for pin in sorted(pins, key=lambda p: p.nodeid)],
    }
    return json.dumps(document, indent=2) + "\n"


def write_pins(path: Path, pins: Sequence[Pin], *, root: Path | None = None) -> None:
    """Write the pin file; inside ``root`` (the project) without following a link down."""
    write_atomic_under(path.parent if root is None else root, path, dump_pins(pins))


def _inside(path: Path, root: Path | None) -> None:
    """Refuse a pin file whose directory resolves outside the project (a symlinked baselines/)."""
    if root is None or path.parent.resolve().is_relative_to(root.resolve()):
        return
    msg = f"the pin file {str(path)!r} resolves to {str(path.resolve())!r}, outside the project"
    raise UsageError(
        msg,
        hint=f"replace the symlink on the way to {str(path.parent)!r} with a directory of "
        "the project: pins are a committed file of this repository",
    )


def _today() -> str:
    return dt.datetime.now(tz=dt.UTC).date().isoformat()


def add_pin(
    path: Path,
    *,
    slow: SlowConfig,
    nodeid: str,
    tier: str,
    ceiling: float,
    reason: str,
    tracking: str,
    root: Path | None = None,
) -> tuple[Pin, Pin | None]:
    """Pin ``nodeid`` (replacing an existing pin, which keeps its ``added`` date).

    Returns the new pin and the one it replaced. With ``root`` (the project)
    the file must resolve inside it and is written without following links.
    """
    if not nodeid.strip():
        msg = f"NODEID must be a non-empty text, got {nodeid!r}"
        raise UsageError(msg, hint="pass the test's node id as pytest prints it")
    problems = justification_problems(reason, tracking)
    if problems:
        msg = "this pin would not pass `lanes slow check`: " + "; ".join(problems)
        raise UsageError(
            msg,
            hint='a pin is a reviewed waiver: say why the test is slow (--reason "spawns a real '
            'server per case") and where speeding it up is tracked (--tracking, e.g. an issue '
            "URL or #123)",
        )
    if tier not in slow.tiers:
        msg = f"--tier {tier!r} is not a configured tier"
        raise UsageError(
            msg,
            hint=f"use one of: {', '.join(slow.tiers)}",
        )
    if not math.isfinite(ceiling) or ceiling <= 0:
        msg = f"--ceiling must be a finite number of seconds > 0, got {ceiling!r}"
        raise UsageError(
            msg,
            hint="pass the seconds the test may take, e.g. --ceiling 4.5",
        )
    _inside(path, root)
    with flocked_directory(path.parent):
        current = load_pins(path, slow=slow)
        previous = current.get(nodeid)
        pin = Pin(
            nodeid=nodeid,
            tier=tier,
            ceiling=ceiling,
            reason=reason.strip(),
            tracking=tracking.strip(),
            added=previous.added if previous is not None else _today(),
        )
        pins = {p.nodeid: p for p in current}
        pins[nodeid] = pin
        write_pins(path, list(pins.values()), root=root)
    return pin, previous


def _remove_damaged(path: Path, nodeid: str, damage: ConfigError, root: Path | None) -> Pin | None:
    """Drop ``nodeid``'s entries from a pin file whose *entries* fail validation.

    The load error's hint for a damaged entry is "unpin it and pin it again",
    so unpin must work on exactly that file: the other entries are kept as
    written (the next load judges them), only the named one goes. A file that
    is not JSON, or not a pin file at all, is still refused.
    """
    try:
        document = load_object(path, what="the pin file", fail=ValueError)
    except ValueError:
        raise damage from None
    if document is None:
        raise damage
    entries = document.get("pins")
    if not isinstance(entries, list) or document.get("format") != PINS_FORMAT:
        raise damage
    kept = [e for e in entries if not (isinstance(e, dict) and e.get("nodeid") == nodeid)]
    if len(kept) == len(entries):
        return None
    gone = next(e for e in entries if isinstance(e, dict) and e.get("nodeid") == nodeid)
    document["pins"] = kept
    write_atomic_under(
        path.parent if root is None else root, path, json.dumps(document, indent=2) + "\n"
    )
    return Pin(
        nodeid=nodeid,
        tier=str(gone.get("tier", "")),
        ceiling=0.0,
        reason=str(gone.get("reason", "")),
        tracking=str(gone.get("tracking", "")),
        added=str(gone.get("added", "")),
    )


def remove_pin(path: Path, *, slow: SlowConfig, nodeid: str, root: Path | None = None) -> Pin:
    """Unpin ``nodeid``; a node id that is not pinned is a usage error with a guess.

    Works on a pin file with damaged entries too (see :func:`_remove_damaged`).
    ``root`` confines the write as in :func:`add_pin`.
    """
    _inside(path, root)
    with flocked_directory(path.parent):
        try:
            current = load_pins(path, slow=slow)
        except ConfigError as damage:
            removed = _remove_damaged(path, nodeid, damage, root)
            if removed is None:
                raise
            return removed
        pin = current.get(nodeid)
        if pin is None:
            from difflib import get_close_matches  # noqa: PLC0415  # a mistyped node id only

            close = get_close_matches(nodeid, list(current.pins), n=1, cutoff=0.6)
            guess = f" — did you mean {close[0]!r}?" if close else ""
            msg = f"{nodeid!r} is not pinned in {path}{guess}"
            raise UsageError(
                msg,
                hint=f"pass the node id exactly as it is written in {path}",
            )
        write_pins(path, [p for p in current if p.nodeid != nodeid], root=root)
    return pin
