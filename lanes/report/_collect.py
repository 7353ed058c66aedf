"""Read every envelope in a directory, keeping the invalid ones as findings.

A report that crashed on the one corrupt envelope would hide every other
lane's result, and a report that skipped it would pass a run whose lane left
garbage behind. So an unreadable or schema-breaking file becomes an
:class:`Entry` with problems: it is shown, and it fails the report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from lanes.affected.testmap import MAP_FILE_NAME
from lanes.envelope import read_envelope, validate_envelope
from lanes.errors import EnvelopeError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["Entry", "Status", "collect", "read_entry"]

Status = Literal["pass", "fail", "error", "invalid"]

# How many schema problems an invalid entry keeps: the first few say what is
# wrong; `lanes envelope validate FILE` lists them all.
MAX_PROBLEMS = 5


@dataclass(frozen=True)
class Entry:
    """One ``*.json`` file of the envelope directory."""

    file: str
    """The file name, relative to the directory."""
    envelope: dict[str, Any] | None
    """The envelope when it is valid, else None."""
    problems: tuple[str, ...] = ()
    """Why it is invalid (at most :data:`MAX_PROBLEMS`), empty when valid."""
    problem_count: int = 0

    @property
    def status(self) -> Status:
        if self.envelope is None:
            return "invalid"
        if self.envelope["stage"] == "error":
            return "error"
        return "pass" if self.envelope["result"] == "pass" else "fail"

    @property
    def lane(self) -> str:
        if self.envelope is None:
            return self.file.removesuffix(".json")
        return str(self.envelope["lane"])


def read_entry(path: Path) -> Entry:
    """One envelope file as an :class:`Entry` (invalid ones keep their problems)."""
    try:
        document = read_envelope(path)
    except EnvelopeError as exc:
        return Entry(
            file=path.name, envelope=None, problems=(f"$: {exc.message}",), problem_count=1
        )
    problems = validate_envelope(document)
    if problems:
        shown = tuple(str(problem) for problem in problems[:MAX_PROBLEMS])
        return Entry(file=path.name, envelope=None, problems=shown, problem_count=len(problems))
    return Entry(file=path.name, envelope=document)


def collect(directory: Path) -> list[Entry]:
    """Every ``*.json`` directly in ``directory``, by file name; [] when it does not exist.

    Hidden files are skipped: they are the atomic writer's temporary files,
    never envelopes. So is ``lanes affected``'s recorded map, which is kept
    beside the envelopes (and uploaded with them) but is no lane's envelope.
    """
    if not directory.is_dir():
        return []
    paths = sorted(
        path
        for path in directory.iterdir()
        if path.suffix == ".json"
        and not path.name.startswith(".")
        and path.name != MAP_FILE_NAME
        and not path.is_dir()
    )
    return [read_entry(path) for path in paths]
