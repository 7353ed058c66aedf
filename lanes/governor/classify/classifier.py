"""``classify(command, root)``: which test runs a shell command makes.

The decision kernel of the governor. It splits the command into the simple
commands a shell would run (:mod:`._shell`), strips inline environment
assignments and wrappers (:mod:`._wrappers`), and asks the runner table
(:mod:`._runners`) whether each one runs tests, and whether fully or filtered.

It never raises, for any string: the hook runs it on every command an agent
makes, and a classifier bug must not break the agent's tool call. It is
deterministic, and reads nothing but the pytest configuration under ``root``
(only when a path selector needs the whole-tree check).
"""

from __future__ import annotations

import os

from lanes.governor.classify.model import Classification, Invocation, Segment
from lanes.governor.classify.runners.argscan import Call, Delegate, Match
from lanes.governor.classify.runners.table import recognise
from lanes.governor.classify.shell import split_commands
from lanes.governor.classify.wrappers import SHELLS, Script, basename, unwrap

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from lanes.governor.classify.shell import SimpleCommand

__all__ = ["classify"]

# Bounds that keep hostile input linear: `bash -c` inside `bash -c` ..., and
# wrapper chains (`env env env ... pytest`).
_MAX_SCRIPT_DEPTH = 8
_MAX_UNWRAP = 64

_EMPTY = Classification((), ())


def classify(command: str, root: os.PathLike[str] | str | None = None) -> Classification:
    """Classify one shell command; ``root`` is the project directory, if known."""
    try:
        collector = _Collector(_root_dir(root))
        collector.script(command, {}, 0)
        return Classification(tuple(collector.invocations), tuple(collector.segments))
    except Exception:  # noqa: BLE001  # never raise: the governor fails open
        return _EMPTY


def _root_dir(root: os.PathLike[str] | str | None) -> str | None:
    """``root`` as a string; anything unusable means "no root" (never an error)."""
    try:
        path = os.fspath(root) if root is not None else None
    except TypeError:
        return None
    return (path.rstrip("/") or "/") if isinstance(path, str) and path else None


class _Collector:
    """Walks the command's simple commands, collecting segments and test runs."""

    __slots__ = ("exported", "invocations", "root", "segments")

    def __init__(self, root: str | None) -> None:
        self.root = root
        self.segments: list[Segment] = []
        self.invocations: list[Invocation] = []
        # `export A=1; pytest`: later commands of the text inherit A=1.
        self.exported: dict[str, str] = {}

    def script(self, text: str, env: dict[str, str], depth: int) -> None:
        if depth > _MAX_SCRIPT_DEPTH or not isinstance(text, str):
            return
        for simple in split_commands(text):
            self.simple(simple, env, depth)

    def simple(self, simple: SimpleCommand, inherited: dict[str, str], depth: int) -> None:
        words = simple.words
        env = {**self.exported, **inherited}
        i = 0
        while i < len(words) and words[i].assignment:
            name, _, value = words[i].value.partition("=")
            env[name] = value
            i += 1
        argv = [word.value for word in words[i:]]
        dynamic = [word.dynamic for word in words[i:]]
        outcome: Match | Delegate | None = None
        narrowed: list[str] = []  # selectors a wrapper applied (`pnpm --filter web exec jest`)
        for _ in range(_MAX_UNWRAP):
            if not argv:
                return
            step = unwrap(argv)
            if isinstance(step, Script):
                self.script(step.text, env, depth + 1)
                return
            if step is not None:
                if step.env:
                    env.update(step.env)
                argv, dynamic = argv[step.start :], dynamic[step.start :]
                if step.program is not None and argv:
                    argv[0], dynamic[0] = step.program, False
                continue
            if simple.stdin is not None and _reads_script_from_stdin(argv):
                self.script(simple.stdin, env, depth + 1)
                return
            outcome = recognise(Call(argv, dynamic, env, self.root))
            if not isinstance(outcome, Delegate):
                break
            narrowed.extend(outcome.selectors)
            argv, dynamic = argv[outcome.start :], dynamic[outcome.start :]
            if outcome.program is not None and argv:
                argv[0], dynamic[0] = outcome.program, False
            if outcome.insert:
                argv[1:1] = outcome.insert
                dynamic[1:1] = [False] * len(outcome.insert)
            outcome = None
        else:
            return
        segment = Segment(tuple(argv), env, simple.text)
        self.segments.append(segment)
        if argv[0] in ("export", "unset"):
            self._export(argv)
        if isinstance(outcome, Match):
            selectors = (*narrowed, *outcome.selectors)
            self.invocations.append(
                Invocation(
                    outcome.runner,
                    "filtered" if selectors else "full",
                    selectors,
                    segment,
                    paths=tuple(outcome.paths),
                    name_filters=(*narrowed, *outcome.names),
                    markers=outcome.markers,
                )
            )

    def _export(self, argv: list[str]) -> None:
        for arg in argv[1:]:
            if arg.startswith("-"):
                continue
            name, eq, value = arg.partition("=")
            if argv[0] == "unset":
                self.exported.pop(name, None)
            elif eq and name.isidentifier():
                self.exported[name] = value


def _reads_script_from_stdin(argv: list[str]) -> bool:
    """``bash <<EOF`` / ``sh -s <<< '...'``: a shell whose script is stdin."""
    return basename(argv[0]) in SHELLS and all(arg[:1] in ("-", "+") for arg in argv[1:])
