"""Whether the governor's pytest plugin is active for this project: one line in the state dir.

Where the plugin cannot load (lanekit missing from the environment that runs
the project's pytest, ``-p no:lanes.governor``, ``PYTEST_DISABLE_PLUGIN_AUTOLOAD``)
the hook's shell judgement is the only gate for pytest. Finding that
out takes a process per environment (:mod:`lanes.governor.cli.runner_check`),
far too slow for the hook; so the finding is kept here, by those who know:

- the plugin itself, when it governs a run: ``active`` ("it ran here at <ts>");
- ``lanes governor status`` and ``install``, from their check: ``active`` or
  ``inactive`` with the reason.

The latest writer wins: it holds the freshest evidence (a plugin run after an
``inactive`` check proves the plugin was added since). The hook reads the line
on a pytest command it lets through and, when it says ``inactive``, adds one
line of advice. No record, or an unreadable one, says nothing: the hook stays
silent rather than guess.

The format is one text line, ``<active|inactive> <ts> <source> [reason]``, so
that the hook's read needs no json (see ``tests/foundation/test_import_budget.py``).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook imports this module
if TYPE_CHECKING:
    from lanes.governor.state.env import Environment

__all__ = ["NAME", "PluginNote", "advice", "note_path", "read_note", "write_note"]

NAME = "runner-plugin"
_STATES = ("active", "inactive")
# How often a plugin that keeps running refreshes its "ran here at": a fresh
# record is read, not rewritten, so a governed run pays one small read.
REFRESH_S = 86_400.0
_MAX_REASON = 300


def note_path(state_dir: str) -> str:
    return os.path.join(state_dir, NAME)


class PluginNote:
    """One finding: is the plugin active here, when, who found it, and why not."""

    __slots__ = ("active", "reason", "source", "ts")

    def __init__(self, *, active: bool, ts: float, source: str, reason: str = "") -> None:
        self.active = active
        self.ts = ts
        # One word: "plugin", "status" or "install".
        self.source = source
        self.reason = " ".join(reason.split())[:_MAX_REASON]

    def line(self) -> str:
        state = "active" if self.active else "inactive"
        tail = f" {self.reason}" if self.reason else ""
        return f"{state} {self.ts:.0f} {self.source}{tail}\n"

    @classmethod
    def parse(cls, text: str) -> PluginNote | None:
        """The note in ``text``, or None when it is not one (damage, a foreign file)."""
        words = text.strip().split(" ", 3)
        if len(words) < 3 or words[0] not in _STATES:
            return None
        try:
            ts = float(words[1])
        except ValueError:
            return None
        reason = words[3] if len(words) == 4 else ""
        return cls(active=words[0] == "active", ts=ts, source=words[2], reason=reason)

    def __repr__(self) -> str:
        return f"PluginNote({self.line().strip()!r})"


def read_note(env: Environment, state_dir: str) -> PluginNote | None:
    """The recorded finding, or None (none yet, unreadable, or not a note)."""
    try:
        text = env.read(note_path(state_dir))
    except (OSError, ValueError):
        return None
    return None if text is None else PluginNote.parse(text[:1024])


def write_note(env: Environment, state_dir: str, note: PluginNote) -> None:
    """Replace the finding (atomically: a reader sees the old line or the new)."""
    env.replace(note_path(state_dir), note.line())


def advice(env: Environment, state_dir: str) -> str | None:
    """The hook's line for a pytest command it lets through, when the record
    says the plugin is not active for this project; else None."""
    note = read_note(env, state_dir)
    if note is None or note.active:
        return None
    why = f" ({note.reason})" if note.reason else ""
    return (
        "lanes: the governor's pytest plugin is not active in this project's test "
        f"environment{why}: the hook is the only gate for pytest, judging the shell "
        "string alone. Run `lanes governor install` to add it "
        "(`lanes governor status` shows where it loads)."
    )
