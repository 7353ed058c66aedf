"""``baselines/contention-retry.json``: the files whose timeouts may be retried once.

Each entry names a test file, which spawn or wait contends (``reason``),
where removing the need is tracked (``tracking``) and a ``review_by`` date.
``lanes retry check`` fails on an entry past its date, without a real reason
or tracking reference, or naming a file that no longer exists or lies outside
the project: a list that only grows would turn the retry into a blanket waiver.
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from lanes._jsondoc import load_object
from lanes.errors import ConfigError
from lanes.slow.pins import justification_problems

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["ENTRIES_FORMAT", "Entry", "entries_path", "entry_problems", "load_entries"]

ENTRIES_FORMAT: Final = "lanekit.contention-retry"
_VERSION: Final = 1
_FIELDS: Final = ("file", "reason", "tracking", "review_by")
_DATE: Final = re.compile(r"\A\d{4}-\d{2}-\d{2}\Z")
_SHAPE: Final = (
    '{"format": "lanekit.contention-retry", "version": 1, "entries": [{"file": "tests/test_x.py", '
    '"reason": "waits on a spawned server", "tracking": "#12", "review_by": "2027-03-01"}]}'
)


@dataclass(frozen=True)
class Entry:
    file: str
    reason: str
    tracking: str
    review_by: str


def entries_path(root: Path, baseline_dir: str) -> Path:
    return root / baseline_dir / "contention-retry.json"


def _bad(source: str, where: str, problem: str, fix: str) -> ConfigError:
    return ConfigError(f"retry list {source}: {where}: {problem}", hint=fix)


def _is_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _entry(source: str, index: int, raw: object) -> Entry:
    where = f"entry {index}"
    if not isinstance(raw, dict):
        raise _bad(
            source, where, f"must be a JSON object, got {raw!r:.60}", f"write it as {_SHAPE}"
        )
    for key in raw:
        if key not in _FIELDS:
            close = difflib.get_close_matches(str(key), _FIELDS, n=1, cutoff=0.6)
            guess = f" — did you mean {close[0]!r}?" if close else ""
            raise _bad(
                source,
                where,
                f"unknown key {key!r}{guess}",
                f"an entry has exactly: {', '.join(_FIELDS)}",
            )
    values: dict[str, str] = {}
    for key in _FIELDS:
        value = raw.get(key, "")
        if not isinstance(value, str):
            raise _bad(
                source, where, f"{key} must be a string, got {value!r:.60}", f"write it as {_SHAPE}"
            )
        values[key] = value
    if not values["file"].strip():
        raise _bad(
            source, where, "file is empty", "name the test file, relative to the project root"
        )
    if not _DATE.match(values["review_by"]) or not _is_date(values["review_by"]):
        raise _bad(
            source,
            where,
            f"review_by must be a date YYYY-MM-DD, got {values['review_by']!r}",
            'set review_by to the date this entry must be looked at again, e.g. "2027-03-01"',
        )
    return Entry(**values)


def load_entries(path: Path) -> tuple[Entry, ...]:
    """The listed files; a missing file lists none (nothing may be retried)."""
    source = str(path)
    document = load_object(
        path,
        what="the file",
        fail=lambda why: _bad(source, "the file", why, "fix the JSON, or restore it from git"),
        follow_symlinks=True,
    )
    if document is None:
        return ()
    if (
        document.get("format") != ENTRIES_FORMAT
        or document.get("version") != _VERSION
        or set(document) - {"format", "version", "entries"}
        or not isinstance(document.get("entries", []), list)
    ):
        shown = json.dumps(document)[:80]
        raise _bad(
            source,
            "the file",
            f"is not a retry list: {shown!r}",
            f"the file looks like {_SHAPE}",
        )
    entries = document.get("entries", [])
    assert isinstance(entries, list)  # noqa: S101  # checked just above
    return tuple(_entry(source, i, raw) for i, raw in enumerate(entries))


def entry_problems(root: Path, entry: Entry, today: dt.date) -> list[str]:
    """Why ``entry`` fails ``lanes retry check``; [] when it holds."""
    problems = list(justification_problems(entry.reason, entry.tracking))
    if dt.date.fromisoformat(entry.review_by) < today:
        problems.append(f"review_by {entry.review_by} has passed")
    path = root / entry.file
    # Resolved, not compared as text: an absolute path, a '..' or a symlink
    # that leads out of the project names no test of this project.
    if not path.resolve().is_relative_to(root.resolve()):
        problems.append(f"file {entry.file!r} is outside the project")
    elif not path.is_file():
        problems.append(f"file {entry.file!r} does not exist")
    return problems
