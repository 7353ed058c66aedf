"""The tree a suite run started on, kept from PreToolUse to its post event.

A run takes minutes; another agent may edit the tree meanwhile. Recording the
result against the tree *after* the run would vouch for edits the suite never
saw, and a sibling would then skip the suite on exactly that unproven tree.
So PreToolUse notes the tree the run starts on in ``<state>/run-<key>.json``
(key: the session and the exact command), and the post event records a result
only when the tree is still the same.
"""

from __future__ import annotations

import json
import os

from lanes.governor.state.ledger import TreeState

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from lanes.governor.state.env import Environment

__all__ = ["note_start", "run_path", "take_start"]


def run_path(state_dir: str, session_tail: str, command: str) -> str:
    import hashlib  # noqa: PLC0415  # not on the dedup-hit path, which ends before a run

    key = hashlib.sha256(f"{session_tail}\0{command}".encode()).hexdigest()[:20]
    return os.path.join(state_dir, f"run-{key}.json")


def note_start(env: Environment, path: str, tree: TreeState, suites: list[str]) -> None:
    env.replace(path, json.dumps({"tree": tree.to_dict(), "suites": suites, "ts": env.now()}))


def take_start(env: Environment, path: str) -> TreeState | None:
    """The tree noted for this run (and forget it); None when none was noted
    or the note is unreadable."""
    try:
        text = env.read(path)
    except OSError:
        text = None
    if text is None:
        return None
    env.unlink(path)
    try:
        data = json.loads(text)
        tree = data["tree"]
        head, digest = tree["git_head"], tree["dirty_digest"]
    except (ValueError, TypeError, KeyError, RecursionError):
        return None
    if not isinstance(head, str) or not isinstance(digest, str):
        return None
    return TreeState(head, digest)
