"""The tree a suite run started on, kept from PreToolUse to its post event.

A run takes minutes; another agent may edit the tree meanwhile. Recording the
result against the tree *after* the run would vouch for edits the suite never
saw, and a sibling would then skip the suite on exactly that unproven tree.
So PreToolUse notes the tree the run starts on in ``<state>/run-<key>.json``
(key: the session and the exact command), and the post event records a result
only when the tree is still the same.
"""

from __future__ import annotations

import os

from lanes._jsondoc import loads_object, string_field
from lanes.governor.state.ledger import TreeState

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from lanes.governor.state.env import Environment

__all__ = ["note_start", "run_path", "take_start"]


def run_path(state_dir: str, session_tail: str, command: str) -> str:
    import hashlib  # not on the dedup-hit path, which ends before a run

    key = hashlib.sha256(f"{session_tail}\0{command}".encode()).hexdigest()[:20]
    return os.path.join(state_dir, f"run-{key}.json")


def note_start(env: Environment, path: str, tree: TreeState, suites: list[str]) -> None:
    import json  # a writer: the read path stays free of json (and re)

    env.replace(path, json.dumps({"tree": tree.to_dict(), "suites": suites, "ts": env.now()}))


def take_start(env: Environment, path: str) -> tuple[TreeState, float | None] | None:
    """The tree noted for this run and when (and forget it); None when none
    was noted or the note is unreadable. The time is None in a note without
    one: the post event then cannot tell this run from an earlier one."""
    try:
        text = env.read(path)
    except OSError:
        text = None
    if text is None:
        return None
    env.unlink(path)
    try:
        data = loads_object(text, what="run note", fail=_NoteError)
        tree = data.get("tree")
        if not isinstance(tree, dict):
            return None
        head = string_field(tree, "git_head", what="run note", fail=_NoteError)
        digest = string_field(tree, "dirty_digest", what="run note", fail=_NoteError)
    except _NoteError:
        return None
    from lanes.governor.state.numbers import finite_float

    return TreeState(head, digest), finite_float(data.get("ts"))


class _NoteError(ValueError):
    """A run note that is not one: treated as no note (the run records nothing)."""
