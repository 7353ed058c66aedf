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
    "CODEX_EVENTS",
    "check_target",
    "load_agent_settings",
    "merge_hooks",
    "run_install",
]

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


def _install_file(root: Path, path: Path, events: tuple[str, ...], command: str) -> list[str]:
    document = load_agent_settings(path)
    added = merge_hooks(document, events, command, path)
    if added:
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        try:
            write_atomic_under(root, path, text)
        except OutsideTreeError as exc:
            # A directory turned into a link between the check and the write.
            msg = f"{path} is not written: {exc.strerror or exc}"
            raise ConfigError(
                msg,
                hint="make the directories under the project real directories, then run "
                "`lanes governor install` again",
            ) from None
    return added


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


def run_install(ns: argparse.Namespace) -> int:
    root = Path(ns.root).resolve() if ns.root else _default_root()
    if not root.is_dir():
        msg = f"--root {str(root)!r} is not a directory"
        raise ConfigError(msg, hint="pass the project's top-level directory, or omit --root")
    claude_command, codex_command = hook_commands(absolute=bool(getattr(ns, "absolute", False)))
    targets: list[tuple[Path, tuple[str, ...], str]] = [
        (root / ".claude" / "settings.json", CLAUDE_EVENTS, claude_command)
    ]
    if ns.codex:
        targets.append((root / ".codex" / "hooks.json", CODEX_EVENTS, codex_command))
    # Read and check every file before writing any, so a malformed (or
    # linked) second file never leaves the first half-installed.
    for path, _events, _command in targets:
        check_target(root, path)
        load_agent_settings(path)
    for path, events, command in targets:
        added = _install_file(root, path, events, command)
        shown = path.relative_to(root)
        if added:
            print(f"{shown}: registered `{command}` for {', '.join(added)} (matcher {MATCHER})")
        else:
            print(f"{shown}: `{command}` already registered; nothing changed")
    _advise_runner(root)
    if claude_command == CLAUDE_COMMAND:
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
