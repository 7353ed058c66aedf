"""``lanes init``: detect the project, plan every file, print or apply the plan.

The agent hook goes through ``lanes governor install`` itself (parsed and run
like the command line), so init and a hand-run install can never disagree on
what is registered; ``--dry-run`` shows the same merge as a diff instead.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from lanes._jsondoc import failing_with
from lanes._textdoc import read_text
from lanes.errors import UsageError
from lanes.exitcodes import work_began
from lanes.init.detect import detect_project
from lanes.init.plan import (
    Action,
    FileChange,
    Settings,
    apply,
    build_plan,
    check_targets,
    envelope_dir,
)
from lanes.init.requirement import running_source, source_from_option

if TYPE_CHECKING:
    from lanes.init.detect import Project

__all__ = ["run_init"]

_WIDTH = 10
# What actions/setup-python takes and nothing else: the value is pasted into
# the workflows' YAML, so a quote or a newline would rewrite them.
_PYTHON = re.compile(r"(?:pypy)?3\.\d{1,3}(?:\.\d{1,3})?(?:-dev)?")


def _python(value: str) -> str:
    if not _PYTHON.fullmatch(value):
        msg = f"--python must be a Python version such as 3.12, 3.13-dev or pypy3.10, got {value!r}"
        raise UsageError(msg, hint="pass --python 3.12 (the version the workflows set up)")
    return value


def _root(ns: argparse.Namespace) -> Path:
    root = Path(ns.root or ".").resolve()
    if not root.is_dir():
        msg = f"--root {str(root)!r} is not a directory"
        raise UsageError(msg, hint="pass your project's top-level directory, or run from it")
    return root


def _absolute_hook() -> bool:
    """Whether the hook can be registered by the absolute path of this ``lanes`` script.

    A bare ``lanes hook`` runs only when the agent's PATH has the virtualenv:
    in a new user's repository it usually does not, and the hook then ran
    nothing. The absolute path works from any shell; without an installed
    script (lanekit run from a source tree) the bare command is all there is.
    """
    from lanes.errors import ConfigError  # noqa: PLC0415
    from lanes.governor.cli.install import hook_commands  # noqa: PLC0415

    try:
        hook_commands(absolute=True)
    except ConfigError:
        return False
    return True


def _hook_change(root: Path, *, codex: bool) -> list[FileChange]:
    """What ``lanes governor install`` would merge, as file changes (for --dry-run):
    its own plan, so the two never disagree on which file gets what."""
    from lanes.errors import ConfigError  # noqa: PLC0415
    from lanes.governor.cli.install import (  # noqa: PLC0415
        CLAUDE_SHARED,
        CODEX_HOOKS,
        plan_install,
    )

    try:
        edits = plan_install(root, absolute=_absolute_hook(), codex=codex)
    except ConfigError as exc:
        # Install reads and checks every file before writing any: it would refuse them all.
        relatives = [CLAUDE_SHARED, *([CODEX_HOOKS] if codex else [])]
        return [
            FileChange(relative, None, "", "kept", f"install will refuse it: {exc.message}")
            for relative in relatives
        ]
    changes: list[FileChange] = []
    for edit in edits:
        relative = edit.path.relative_to(root)
        if edit.command is None and not edit.changed:
            continue  # the other Claude file, left as it is
        old = read_text(
            edit.path,
            what=str(edit.path),
            fail=failing_with(ConfigError, "make it a regular UTF-8 JSON file, or move it aside"),
        )
        action: Action = (
            "unchanged" if not edit.changed else ("create" if old is None else "update")
        )
        why = "the agent hook" + "".join(f"; {note}" for note in edit.notes)
        changes.append(
            FileChange(relative, old, edit.text() if edit.changed else (old or ""), action, why)
        )
    return changes


def _install_hook(root: Path, *, codex: bool, out: TextIO) -> int:
    """Run ``lanes governor install`` exactly as the command line would."""
    from lanes.governor.cli.parser import add_parser  # noqa: PLC0415

    parser = argparse.ArgumentParser(prog="lanes")
    add_parser(parser.add_subparsers(dest="command"))
    argv = [
        "governor",
        "install",
        "--root",
        str(root),
        *(["--codex"] if codex else []),
        *(["--absolute"] if _absolute_hook() else []),
    ]
    ns = parser.parse_args(argv)
    stdout = sys.stdout
    sys.stdout = out
    try:
        return int(ns.handler(ns))
    finally:
        sys.stdout = stdout


def _print_change(change: FileChange, out: TextIO) -> None:
    why = f"  ({change.why})" if change.why else ""
    print(f"  {change.action:<{_WIDTH}}{change.path.as_posix()}{why}", file=out)


def _next_commands(project: Project, out: TextIO) -> None:
    """What to run next; the slow budgets init wrote are seeds until a measured run sizes them."""
    envelopes = envelope_dir(project)
    targets = project.pyproject.get("tool", {}).get("lanes", {}).get("fuzz", {}).get("targets")
    fuzz_note = (
        "your parsers" if targets else "after declaring a parser in [tool.lanes.fuzz.targets]"
    )
    print("\nnext:", file=out)
    print(
        f"  nox -s slow      # your suite under the slow-test ratchet: {envelopes}/slow.json",
        file=out,
    )
    # The budgets init wrote are seeds: a suite whose slowest test takes 0.6 s
    # would let a test grow to 2 s unnoticed under the 2.5 s unit seed.
    print(
        "  lanes slow propose --write   # size the seeded budgets to that run: "
        "3 x each tier's slowest test",
        file=out,
    )
    print(f"  nox -s fuzz      # {fuzz_note}", file=out)
    print(f"  lanes report     # {envelopes}/summary.md and {envelopes}/index.html", file=out)


def run_init(ns: argparse.Namespace, *, out: TextIO | None = None) -> int:
    stream = sys.stdout if out is None else out
    root = _root(ns)
    project = detect_project(root)
    source = (
        source_from_option(ns.lanekit_requirement, cwd=Path.cwd())
        if ns.lanekit_requirement
        else running_source()
    )
    settings = Settings(
        lanekit_source=source,
        python=_python(ns.python),
        workflows=not ns.no_workflows,
        dependabot=not ns.no_dependabot,
        force=ns.force,
    )
    plan = build_plan(project, settings)
    hook = [] if ns.no_hook else _hook_change(root, codex=ns.codex)
    installs = f"lanekit{source.spec}" if source.spec is not None else "a PLACEHOLDER"
    print(f"lanes init: {root} (lanekit from {source.origin}: {installs})", file=stream)
    notes = [*project.notes, *source.notes]
    if source.spec is None:
        # A local path works on this machine only: the first CI run would fail.
        notes.append(
            "no lanekit a CI runner can install: noxfile.py and the workflows carry a "
            f"placeholder that stops with the fix; run: {source.fix}"
        )
    for note in notes:
        print(f"  note: {note}", file=stream)
    if ns.dry_run:
        for change in (*plan, *hook):
            _print_change(change, stream)
        for change in (*plan, *hook):
            if change.action in ("create", "update"):
                print(change.diff(), end="", file=stream)
        print("dry run: nothing was written", file=stream)
        return 0
    # Plan first: every target, the hook's files included, is checked before
    # the first write, so a symlinked directory, a file the hook install would
    # refuse or an unwritable path stops init with nothing written (exit 2).
    refused = [change for change in hook if change.action == "kept"]
    if refused:
        msg = f"{refused[0].path.as_posix()}: {refused[0].why}"
        raise UsageError(
            msg,
            hint="fix or move the file aside and run lanes init again (or pass --no-hook); "
            "nothing was written",
        )
    # Every file of the plan, kept and unchanged ones too: a symlinked
    # directory is refused even where init would not write this time.
    check_targets(root, [change.path for change in (*plan, *hook)])
    # From the first file written, an error leaves init unable to complete:
    # exit 3, not "nothing ran" (apply restores what it wrote).
    with work_began():
        apply(root, plan)
        for change in plan:
            _print_change(change, stream)
        if not ns.no_hook:
            _install_hook(root, codex=ns.codex, out=stream)
        _next_commands(detect_project(root), stream)
    return 0
