"""``lanes governor install``: register ``lanes hook`` with the agents.

Claude Code reads hooks from ``.claude/settings.json`` (committed, shared by the
team) and ``.claude/settings.local.json`` (this user's, git-ignored), and runs
the hooks of both files; Codex CLI reads ``.codex/hooks.json``. All use the
same shape::

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

Which Claude Code file: a bare ``lanes hook`` is portable and goes to the
shared ``settings.json``; ``--absolute`` writes this machine's virtualenv path,
which a teammate's checkout does not have, so it goes to the personal
``settings.local.json``. Claude Code runs the hooks of both files, so a
registration in either one counts and the other never gets a second (the hook
would run twice per command and count everything twice): an event already
registered in the other file is left alone and said so. The one exception is
the mistake this rule fixes: an absolute path in the shared file (written by
an older lanekit) moves to the personal file on ``--absolute``. Codex CLI has
no personal project file, so its ``.codex/hooks.json`` is the only place for
either form (``--absolute`` there writes a path the whole team would share:
use it only when ``.codex/`` is not committed).

It writes inside the project only: a symlinked ``.claude/`` or ``.codex/``, or
a symlinked settings file, is refused before anything is read or written (a
link can carry the write to any file the user can write — a dotfiles
repository, another project, a file that is not agent settings at all), and
the write itself opens every directory below the project root without
following links (:func:`lanes._atomic.write_atomic_under`), so a link swapped
in after the check cannot carry it either.

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
import shlex
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from lanes._atomic import OutsideTreeError, write_atomic_under
from lanes._jsondoc import failing_with, loads_object, read_bytes
from lanes.errors import ConfigError

if TYPE_CHECKING:
    import argparse

__all__ = [
    "CLAUDE_EVENTS",
    "CLAUDE_LOCAL",
    "CLAUDE_SHARED",
    "CODEX_EVENTS",
    "CODEX_HOOKS",
    "SettingsEdit",
    "check_target",
    "load_agent_settings",
    "merge_hooks",
    "plan_install",
    "run_install",
]

CLAUDE_SHARED: Final = Path(".claude") / "settings.json"
CLAUDE_LOCAL: Final = Path(".claude") / "settings.local.json"
CODEX_HOOKS: Final = Path(".codex") / "hooks.json"
CLAUDE_EVENTS: Final = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
CODEX_EVENTS: Final = ("PreToolUse", "PostToolUse")
CLAUDE_COMMAND: Final = "lanes hook"
CODEX_COMMAND: Final = "lanes hook --agent codex"
MATCHER: Final = "Bash"
# An agent settings file is kilobytes; a larger one is not ours to parse.
_MAX_SETTINGS_BYTES: Final = 4 << 20


def _hint(path: Path) -> str:
    return (
        f"fix or move {path} by hand (lanekit never overwrites a file it cannot "
        "read), then run `lanes governor install` again"
    )


def _malformed(path: Path, what: str) -> ConfigError:
    return ConfigError(f"{path} {what}", hint=_hint(path))


def _refuse_link(path: Path, link: Path) -> ConfigError:
    msg = (
        f"{path} is not written: {str(link)!r} is a symlink (to {str(link.readlink())!r}), "
        "and lanekit writes agent settings only inside the project"
    )
    return ConfigError(
        msg,
        hint=(
            f"replace {link} by a real {'file' if link == path else 'directory'} "
            "(copy what it points to), or add the hook registration to the linked "
            "file by hand; then run `lanes governor install` again"
        ),
    )


def check_target(root: Path, path: Path) -> None:
    """Refuse a settings path that a symlink would carry out of ``root``: a
    linked directory between ``root`` and the file, or a linked file."""
    current = root
    for part in path.relative_to(root).parts:
        current = current / part
        if current.is_symlink():
            raise _refuse_link(path, current)


def load_agent_settings(path: Path) -> dict[str, Any]:
    """The agent settings file as a JSON object; {} when absent or blank.

    Read strictly (:mod:`lanes._jsondoc`): a FIFO or device at the path is
    refused without blocking, and so is a symlink (:func:`check_target`
    names it first for ``lanes governor install``).
    """
    if path.is_symlink():
        raise _refuse_link(path, path)
    try:
        data = read_bytes(path, follow_symlinks=False, max_bytes=_MAX_SETTINGS_BYTES)
    except OSError as exc:
        raise _malformed(path, f"cannot be read: {exc}") from None
    if data is None or not data.strip():
        return {}
    return loads_object(data, what=str(path), fail=failing_with(ConfigError, _hint(path)))


def _same_hook(registered: str, command: str) -> bool:
    """Whether two hook commands run the same ``lanes hook`` (bare or by path)."""
    try:
        old, new = shlex.split(registered), shlex.split(command)
    except ValueError:
        return False
    return (
        bool(old)
        and bool(new)
        and os.path.basename(old[0]) == os.path.basename(new[0]) == "lanes"
        and old[1:] == new[1:]
    )


def _registration(groups: list[Any], command: str) -> str:
    """``"present"``, ``"absent"``, or ``"rewritten"``: a bare ``lanes hook`` was
    changed in place to an ``--absolute`` one (or back), never registered twice."""
    for group in groups:
        if not isinstance(group, dict) or group.get("matcher") != MATCHER:
            continue
        handlers = group.get("hooks")
        if not isinstance(handlers, list):
            continue
        for handler in handlers:
            if not isinstance(handler, dict) or handler.get("type") != "command":
                continue
            registered = handler.get("command")
            if registered == command:
                return "present"
            if isinstance(registered, str) and _same_hook(registered, command):
                handler["command"] = command
                return "rewritten"
    return "absent"


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
        found = _registration(groups, command)
        if found == "present":
            continue
        if found == "absent":
            groups.append({"matcher": MATCHER, "hooks": [{"type": "command", "command": command}]})
        added.append(event)
    return added


def _lanes_hooks(document: dict[str, Any], event: str) -> list[str]:
    """The ``lanes hook`` commands (bare or by path) registered for ``event``."""
    hooks = document.get("hooks")
    groups = hooks.get(event) if isinstance(hooks, dict) else None
    found: list[str] = []
    for group in groups if isinstance(groups, list) else ():
        if not isinstance(group, dict) or group.get("matcher") != MATCHER:
            continue
        handlers = group.get("hooks")
        for handler in handlers if isinstance(handlers, list) else ():
            if isinstance(handler, dict) and handler.get("type") == "command":
                command = handler.get("command")
                if isinstance(command, str) and _same_hook(command, CLAUDE_COMMAND):
                    found.append(command)
    return found


def _is_bare(command: str) -> bool:
    return shlex.split(command)[0] == "lanes"


def _remove_hooks(document: dict[str, Any], event: str) -> None:
    """Drop ``event``'s ``lanes hook`` handlers, and a ``Bash`` group they leave empty."""
    groups = document["hooks"][event]
    for group in list(groups):
        if not isinstance(group, dict) or group.get("matcher") != MATCHER:
            continue
        handlers = group.get("hooks")
        if not isinstance(handlers, list):
            continue
        kept = [
            handler
            for handler in handlers
            if not (
                isinstance(handler, dict)
                and isinstance(handler.get("command"), str)
                and _same_hook(handler["command"], CLAUDE_COMMAND)
            )
        ]
        if kept:
            group["hooks"] = kept
        else:
            groups.remove(group)


class SettingsEdit:
    """One agent settings file as ``lanes governor install`` would leave it."""

    __slots__ = ("added", "command", "document", "notes", "path", "removed")

    def __init__(self, path: Path, document: dict[str, Any]) -> None:
        self.path = path
        self.document = document
        # The command registered here; None for the Claude file that is not
        # this install's target (it may only lose a misplaced registration).
        self.command: str | None = None
        self.added: list[str] = []
        self.removed: list[str] = []
        # Events left alone, and why (registered in the other Claude file).
        self.notes: list[str] = []

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)

    def text(self) -> str:
        return json.dumps(self.document, indent=2, ensure_ascii=False) + "\n"


def _read(root: Path, relative: Path) -> SettingsEdit:
    path = root / relative
    check_target(root, path)
    return SettingsEdit(path, load_agent_settings(path))


def _plan_claude(root: Path, command: str) -> list[SettingsEdit]:
    """Both Claude Code files, edited: ``command`` in its file (module docstring)."""
    shared, local = _read(root, CLAUDE_SHARED), _read(root, CLAUDE_LOCAL)
    absolute = not _is_bare(command)
    target, other = (local, shared) if absolute else (shared, local)
    target.command = command
    for event in CLAUDE_EVENTS:
        elsewhere = _lanes_hooks(other.document, event)
        if absolute and elsewhere and not any(_is_bare(c) for c in elsewhere):
            # This machine's path in the committed file: it moves here.
            _remove_hooks(other.document, event)
            other.removed.append(event)
        elif elsewhere:
            target.notes.append(
                f"{event}: `{elsewhere[0]}` is registered in "
                f"{other.path.relative_to(root)}; not registered twice"
            )
            continue
        target.added.extend(merge_hooks(target.document, (event,), command, target.path))
    return [shared, local]


def plan_install(root: Path, *, absolute: bool, codex: bool) -> list[SettingsEdit]:
    """Every agent settings file ``lanes governor install`` touches, as it
    would leave it. Every file is read and checked (no symlink, a JSON
    object) before any is written, so a bad second file never leaves the
    first half-installed."""
    claude_command, codex_command = hook_commands(absolute=absolute)
    edits = _plan_claude(root, claude_command)
    if codex:
        edit = _read(root, CODEX_HOOKS)
        edit.command = codex_command
        edit.added = merge_hooks(edit.document, CODEX_EVENTS, codex_command, edit.path)
        edits.append(edit)
    return edits


def _write(root: Path, edit: SettingsEdit) -> None:
    try:
        write_atomic_under(root, edit.path, edit.text())
    except OutsideTreeError as exc:
        # A directory turned into a link between the check and the write.
        msg = f"{edit.path} is not written: {exc.strerror or exc}"
        raise ConfigError(
            msg,
            hint="make the directories under the project real directories, then run "
            "`lanes governor install` again",
        ) from None


def _installed_lanes() -> str | None:
    """The absolute path of this installation's ``lanes`` script, if there is one."""
    beside = Path(sys.executable).parent / "lanes"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("lanes")
    return None if found is None else os.path.abspath(found)


def hook_commands(*, absolute: bool) -> tuple[str, str]:
    """(Claude's, Codex's) hook command: bare ``lanes`` resolved through PATH,
    or with ``absolute`` the path of the installed script."""
    if not absolute:
        return CLAUDE_COMMAND, CODEX_COMMAND
    script = _installed_lanes()
    if script is None:
        msg = "cannot find the installed `lanes` script to write its absolute path"
        raise ConfigError(msg, hint="install lanekit into this environment, then run this again")
    prefix = shlex.quote(script)
    return f"{prefix} hook", f"{prefix} hook --agent codex"


def _default_root() -> Path:
    from lanes.governor.policy.push_gates import project_root

    return Path(project_root(os.getcwd()))


def _advise_runner(root: Path) -> None:
    """Check the project's test environments for the governor's pytest plugin
    and say how to add it where it is missing: the hook alone judges shell
    strings, the plugin judges what pytest collects."""
    from lanes.governor.cli.runner_check import check_runner, record_verdict, render_checks
    from lanes.governor.state.tree import state_dir

    checks, disabled = check_runner(root)
    record_verdict(state_dir(str(root), os.environ), checks, disabled, source="install")
    print("pytest plugin (lanes.governor), where this project's pytest may run:")
    for line in render_checks(checks, disabled, advise=True):
        print(line)


def _warn_unignored(root: Path, path: Path) -> None:
    """Warn when the personal settings file would be committed: it holds this
    machine's path. Claude Code ignores the file it creates itself; one that
    lanekit creates is ignored only if the project says so."""
    git = shutil.which("git")
    if git is None:
        return
    import subprocess  # install only

    relative = str(path.relative_to(root))
    probe = subprocess.run(
        [git, "-C", str(root), "check-ignore", "-q", "--", relative],
        capture_output=True,
        check=False,
    )
    # 1: not ignored (0: ignored; 128: not a git work tree, nothing to commit it to).
    if probe.returncode == 1:
        print(
            f"warning: {relative} is not git-ignored and holds this machine's path; "
            f"add `{relative}` to .gitignore so it is never committed",
            file=sys.stderr,
        )


def run_install(ns: argparse.Namespace) -> int:
    root = Path(ns.root).resolve() if ns.root else _default_root()
    if not root.is_dir():
        msg = f"--root {str(root)!r} is not a directory"
        raise ConfigError(msg, hint="pass the project's top-level directory, or omit --root")
    absolute = bool(getattr(ns, "absolute", False))
    edits = plan_install(root, absolute=absolute, codex=bool(ns.codex))
    for edit in edits:
        if edit.changed:
            _write(root, edit)
        shown = edit.path.relative_to(root)
        for event in edit.removed:
            print(f"{shown}: removed this machine's `lanes hook` path for {event} (moved)")
        if edit.added:
            print(
                f"{shown}: registered `{edit.command}` for {', '.join(edit.added)} "
                f"(matcher {MATCHER})"
            )
        for note in edit.notes:
            print(f"{shown}: {note}")
        if edit.command is not None and not edit.changed and not edit.notes:
            print(f"{shown}: `{edit.command}` already registered; nothing changed")
    if absolute and any(e.path == root / CLAUDE_LOCAL and e.added for e in edits):
        _warn_unignored(root, root / CLAUDE_LOCAL)
    _advise_runner(root)
    if not absolute:
        print(
            "`lanes hook` must be on the agent's PATH (activate the virtualenv that has lanekit)."
        )
        if shutil.which("lanes") is None:
            # The agent's hook would run nothing, silently: say so now.
            print(
                "warning: `lanes` is not on PATH here, so the registered hook would not run; "
                "activate the virtualenv for the agent, or re-run with --absolute",
                file=sys.stderr,
            )
    return 0
