"""``lanes governor install``: register ``lanes hook`` with the agents.

Claude Code reads hooks from ``.claude/settings.json`` (committed, shared by the
team); Codex CLI from ``.codex/hooks.json``. Both use the same shape::

    {"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "lanes hook"}]}
    ]}}

an event name maps to a list of matcher groups, each with a ``matcher`` (a
tool-name pattern) and a list of handlers of ``type: "command"``. Claude Code
sends failed commands to ``PostToolUseFailure``; Codex has no such event and
sends them to ``PostToolUse``, so it gets two registrations, not three.

The merge is idempotent and conservative: it adds one group per event only when
no ``Bash`` group of that event already runs the same command, keeps every
other key and hook of the file in its order, and refuses (never overwrites) a
file that is not a JSON object.

The command is ``lanes hook``, resolved through PATH like any project-local
hook: measured cheaper than ``python -m lanes hook`` (``runpy`` alone costs
about half an interpreter start). Claude Code's ``if`` condition (v2.1.85+) is
not used: it holds one permission rule per handler, so covering every runner
and wrapper form (``uv run pytest``, ``bash -c '...'``, ``timeout 60 go test``)
needs several handlers, a command matching two of them would be counted twice,
and one matching none would escape the gate — the pre-screen inside
``lanes hook`` gives the same saving without either risk.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from lanes._atomic import write_atomic
from lanes.errors import ConfigError

if TYPE_CHECKING:
    import argparse

__all__ = ["CLAUDE_EVENTS", "CODEX_EVENTS", "merge_hooks", "run_install"]

CLAUDE_EVENTS: Final = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
CODEX_EVENTS: Final = ("PreToolUse", "PostToolUse")
CLAUDE_COMMAND: Final = "lanes hook"
CODEX_COMMAND: Final = "lanes hook --agent codex"
MATCHER: Final = "Bash"


def _malformed(path: Path, what: str) -> ConfigError:
    return ConfigError(
        f"{path} {what}",
        hint=f"fix or move {path} by hand (lanekit never overwrites a file it cannot "
        "read), then run `lanes governor install` again",
    )


def _load(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise _malformed(path, f"cannot be read: {exc}") from None
    if not text.strip():
        return {}
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: "[[[[..." nests past the decoder
        raise _malformed(path, f"is not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise _malformed(path, f"must hold a JSON object, got {type(document).__name__}")
    return document


def _registered(groups: list[Any], command: str) -> bool:
    for group in groups:
        if not isinstance(group, dict) or group.get("matcher") != MATCHER:
            continue
        handlers = group.get("hooks")
        if isinstance(handlers, list) and any(
            isinstance(h, dict) and h.get("type") == "command" and h.get("command") == command
            for h in handlers
        ):
            return True
    return False


def merge_hooks(
    document: dict[str, Any], events: tuple[str, ...], command: str, path: Path
) -> list[str]:
    """Add ``command`` for each of ``events`` to ``document`` in place; the
    events that were added (empty when everything was already there)."""
    hooks = document.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise _malformed(path, f'has "hooks" of type {type(hooks).__name__}, expected an object')
    added: list[str] = []
    for event in events:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise _malformed(
                path, f'has "hooks.{event}" of type {type(groups).__name__}, expected a list'
            )
        if _registered(groups, command):
            continue
        groups.append({"matcher": MATCHER, "hooks": [{"type": "command", "command": command}]})
        added.append(event)
    return added


def _install_file(path: Path, events: tuple[str, ...], command: str) -> list[str]:
    document = _load(path)
    added = merge_hooks(document, events, command, path)
    if added:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return added


def _default_root() -> Path:
    from lanes.governor.policy.push_gates import project_root

    return Path(project_root(os.getcwd()))


def run_install(ns: argparse.Namespace) -> int:
    root = Path(ns.root).resolve() if ns.root else _default_root()
    if not root.is_dir():
        msg = f"--root {str(root)!r} is not a directory"
        raise ConfigError(msg, hint="pass the project's top-level directory, or omit --root")
    targets: list[tuple[Path, tuple[str, ...], str]] = [
        (root / ".claude" / "settings.json", CLAUDE_EVENTS, CLAUDE_COMMAND)
    ]
    if ns.codex:
        targets.append((root / ".codex" / "hooks.json", CODEX_EVENTS, CODEX_COMMAND))
    # Read and check every file before writing any, so a malformed second file
    # never leaves the first half-installed.
    for path, _events, _command in targets:
        _load(path)
    for path, events, command in targets:
        added = _install_file(path, events, command)
        shown = path.relative_to(root)
        if added:
            print(f"{shown}: registered `{command}` for {', '.join(added)} (matcher {MATCHER})")
        else:
            print(f"{shown}: `{command}` already registered; nothing changed")
    print("`lanes hook` must be on the agent's PATH (activate the virtualenv that has lanekit).")
    return 0
