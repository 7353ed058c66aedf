"""``classify(command, root)``: which test runs a shell command makes.

The decision kernel of the governor. It splits the command into the simple
commands a shell would run (:mod:`._shell`), strips inline environment
assignments and wrappers (:mod:`._wrappers`), and asks the runner table
(:mod:`._runners`) whether each one runs tests, and whether fully or filtered.

It never raises, for any string: the hook runs it on every command an agent
makes, and a classifier bug must not break the agent's tool call. It is
deterministic, and reads nothing but the pytest configuration under ``root``
(only when a path selector needs the whole-tree check) and a pytest
``@argsfile`` the command names.

What it cannot see through it says, rather than reporting "no test run": ``Classification.opaque`` holds why (a command longer
than :data:`MAX_CLASSIFIED` bytes or :data:`~lanes.governor.classify.shell_lexer.MAX_TOKENS`
tokens, nesting deeper than it follows, a fault of its own), and
``Classification.possible`` the runs a program name computed at run time
could make (``$(echo pytest)``, ``$runner -q``): the sweep gate treats both
as a possible full sweep instead of allowing them.
"""

from __future__ import annotations

import os

from lanes.governor.classify.model import Classification, Invocation, Segment
from lanes.governor.classify.runners.argscan import Call, Delegate, Match
from lanes.governor.classify.runners.names import DEFAULT_TEST_COMMANDS
from lanes.governor.classify.runners.table import recognise
from lanes.governor.classify.shell import split_commands
from lanes.governor.classify.shell_lexer import Budget, TooComplex
from lanes.governor.classify.wrappers import SHELLS, Script, basename, unwrap

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from lanes.governor.classify.shell import SimpleCommand

__all__ = ["MAX_CLASSIFIED", "classify"]

# Bounds that keep hostile input linear: `bash -c` inside `bash -c` ..., and
# wrapper chains (`env env env ... pytest`).
_MAX_SCRIPT_DEPTH = 8
_MAX_UNWRAP = 64
# Longer commands are not lexed at all: the lexer's per-character loops cost
# ~0.2 us a character, so this keeps the worst shape near 50 ms; the hook's byte-level screen judges longer text.
MAX_CLASSIFIED = 256 * 1024
# What a program name computed at run time (`$runner`, `$(cat name)`) might
# be, tried in turn: every gated runner is reachable from one of them.
_STAND_INS = ("pytest", "python")


def classify(
    command: str,
    root: os.PathLike[str] | str | None = None,
    test_commands: tuple[str, ...] = DEFAULT_TEST_COMMANDS,
) -> Classification:
    """Classify one shell command; ``root`` is the project directory, if known;
    ``test_commands`` the wrapper forms that run the whole suite
    (``[tool.lanes.governor] test_commands``)."""
    collector = _Collector(_root_dir(root), _forms(test_commands))
    try:
        if len(command) > MAX_CLASSIFIED:
            collector.budget.opaque = (
                f"the command is {len(command)} characters, more than {MAX_CLASSIFIED}"
            )
        else:
            collector.script(command, {}, 0)
    except TooComplex:
        collector.budget.opaque = "the command has more shell words than the classifier reads"
    except Exception as exc:  # noqa: BLE001  # never raise: the governor fails open
        collector.budget.opaque = f"the classifier failed ({type(exc).__name__})"
    return Classification(
        tuple(collector.invocations),
        tuple(collector.segments),
        opaque=collector.budget.opaque,
        possible=tuple(collector.possible),
    )


_parsed_forms: dict[tuple[str, ...], tuple[tuple[str, ...], ...]] = {}


def _forms(test_commands: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The forms as word tuples, parsed once per process."""
    parsed = _parsed_forms.get(test_commands)
    if parsed is None:
        parsed = tuple(tuple(form.split()) for form in test_commands if form.split())
        _parsed_forms[test_commands] = parsed
    return parsed


def _runs_form(argv: list[str], forms: tuple[tuple[str, ...], ...]) -> str | None:
    """The program of the first form ``argv`` runs (``tox -e py311`` runs
    ``tox``), or None. A form's later words must appear in order; a word also
    matches its parametrised spellings (``tests-3.12``, ``tests(python='3.12')``)."""
    program = basename(argv[0])
    for form in forms:
        if form[0] != program:
            continue
        at = 1
        for word in form[1:]:
            while at < len(argv) and not _same_word(argv[at], word):
                at += 1
            if at >= len(argv):
                break
            at += 1
        else:
            return program
    return None


def _same_word(arg: str, word: str) -> bool:
    return arg == word or (arg.startswith(word) and arg[len(word)] in "-(")


def _root_dir(root: os.PathLike[str] | str | None) -> str | None:
    """``root`` as a string; anything unusable means "no root" (never an error)."""
    try:
        path = os.fspath(root) if root is not None else None
    except TypeError:
        return None
    return (path.rstrip("/") or "/") if isinstance(path, str) and path else None


class _Collector:
    """Walks the command's simple commands, collecting segments and test runs."""

    __slots__ = (
        "anchor",
        "budget",
        "exported",
        "forms",
        "hypothetical",
        "invocations",
        "possible",
        "root",
        "segments",
        "variables",
    )

    def __init__(self, root: str | None, forms: tuple[tuple[str, ...], ...]) -> None:
        self.root = root
        self.forms = forms
        self.segments: list[Segment] = []
        self.invocations: list[Invocation] = []
        # Runs a program name computed at run time might make (see classify).
        self.possible: list[Invocation] = []
        # Set while trying a stand-in for such a name: runs go to `possible`.
        self.hypothetical = False
        # The real segment a stand-in is tried for: its possible runs point at
        # it, so messages and inline overrides see the command as written.
        self.anchor: Segment | None = None
        # `export A=1; pytest`: later commands of the text inherit A=1.
        self.exported: dict[str, str] = {}
        # `p=pytest; $p`: shell variables set by a bare assignment, whose
        # literal value resolves a later `$p` used as a program name.
        self.variables: dict[str, str] = {}
        self.budget = Budget()

    def script(self, text: str, env: dict[str, str], depth: int) -> None:
        if depth > _MAX_SCRIPT_DEPTH:
            self.budget.opaque = f"shell scripts nested more than {_MAX_SCRIPT_DEPTH} deep"
            return
        for simple in split_commands(text, budget=self.budget):
            self.simple(simple, env, depth)

    def simple(self, simple: SimpleCommand, inherited: dict[str, str], depth: int) -> None:
        words = simple.words
        env = {**self.exported, **inherited}
        i = 0
        while i < len(words) and words[i].assignment:
            name, _, value = words[i].value.partition("=")
            env[name] = value
            if i + 1 == len(words):
                # A bare assignment sets shell variables; a dynamic value is
                # unknown, so it forgets rather than records.
                for word in words:
                    var, _, val = word.value.partition("=")
                    if word.dynamic:
                        self.variables.pop(var, None)
                    else:
                        self.variables[var] = val
            i += 1
        argv = [word.value for word in words[i:]]
        dynamic = [word.dynamic for word in words[i:]]
        self.command(argv, dynamic, env, simple, depth)

    def command(
        self,
        argv: list[str],
        dynamic: list[bool],
        env: dict[str, str],
        simple: SimpleCommand,
        depth: int,
    ) -> None:
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
                if step.guessed is not None and dynamic[step.guessed]:
                    self._guess_program(
                        argv[step.guessed :], dynamic[step.guessed :], env, simple, depth
                    )
                if step.env:
                    env.update(step.env)
                argv, dynamic = argv[step.start :], dynamic[step.start :]
                if step.program is not None and argv:
                    argv[0], dynamic[0] = step.program, False
                continue
            if simple.stdin is not None and _reads_script_from_stdin(argv):
                self.script(simple.stdin, env, depth + 1)
                return
            wrapper = self._wrapper_run(argv)
            if wrapper is not None:
                # The whole suite, unless arguments after `--` are handed on
                # to the test command (`tox -- tests/x.py`): those narrow it.
                outcome = Match(wrapper)
                if "--" in argv:
                    posargs = argv[argv.index("--") + 1 :]
                    for arg in posargs:
                        outcome.name([arg], arg)
                break
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
        if outcome is None and dynamic[0] and not self.hypothetical:
            self._computed_program(argv, dynamic, env, simple, depth)
            return
        if self.hypothetical and self.anchor is not None:
            segment = self.anchor
        else:
            segment = Segment(tuple(argv), env, simple.text)
        if not self.hypothetical:
            self.segments.append(segment)
        if argv[0] in ("export", "unset"):
            self._export(argv)
        if isinstance(outcome, Match):
            selectors = (*narrowed, *outcome.selectors)
            (self.possible if self.hypothetical else self.invocations).append(
                Invocation(
                    outcome.runner,
                    "filtered" if selectors else "full",
                    selectors,
                    segment,
                    paths=tuple(outcome.paths),
                    name_filters=(*narrowed, *outcome.names),
                    markers=outcome.markers,
                    narrowing=tuple(outcome.narrowing),
                )
            )

    def _wrapper_run(self, argv: list[str]) -> str | None:
        """The program of the ``test_commands`` form ``argv`` runs, or None.
        tox and nox are judged closer: ``tox --version`` only prints, and
        ``nox -s lint`` runs tests when the noxfile's lint session does."""
        form = _runs_form(argv, self.forms) if self.forms else None
        program = basename(argv[0])
        if program not in ("tox", "nox"):
            return form
        from lanes.governor.classify.wrapper_runs import nox_runs_tests, only_informs

        if only_informs(program, argv):
            return None
        if program == "nox":
            return program if nox_runs_tests(argv, self.root, forms_hit=form is not None) else None
        return form

    def _computed_program(
        self,
        argv: list[str],
        dynamic: list[bool],
        env: dict[str, str],
        simple: SimpleCommand,
        depth: int,
    ) -> None:
        """A program name known only at run time: resolve it when the command
        itself says what it is, else try what it might be."""
        from lanes.governor.classify.computed import resolve_program  # rare

        known = {**self.variables, **self.exported, **env}
        resolved = resolve_program(argv[0], known)
        if resolved is not None:
            # `p=pytest; $p -q`, `$(echo pytest)`: a real run, as if written out.
            self.command(
                [*resolved, *argv[1:]], [False] * len(resolved) + dynamic[1:], env, simple, depth
            )
            return
        was, outer = self.hypothetical, self.anchor
        anchor = Segment(tuple(argv), env, simple.text)
        if not was:
            self.segments.append(anchor)
        self.hypothetical, self.anchor = True, anchor
        try:
            for stand_in in _STAND_INS:
                self.command([stand_in, *argv[1:]], [False, *dynamic[1:]], env, simple, depth)
        finally:
            self.hypothetical, self.anchor = was, outer

    def _guess_program(
        self,
        argv: list[str],
        dynamic: list[bool],
        env: dict[str, str],
        simple: SimpleCommand,
        depth: int,
    ) -> None:
        """A wrapper took an expansion for assignments. When the expansion says
        which program it is (``$(command -v pytest)``), what that program would
        run counts as possible (never for the economy), and so does an unknown
        expansion followed by an option (``env A=1 "$PY" -m pytest``: a list
        of assignments is followed by a program, not by ``-m``). An expansion
        followed by a program (``env $(cat .env | xargs) npm test``) stays
        assignments."""
        from lanes.governor.classify.computed import resolve_program  # rare

        resolved = resolve_program(argv[0], {**self.variables, **self.exported, **env})
        if resolved is None and not argv[1].startswith("-"):
            return
        was, outer = self.hypothetical, self.anchor
        self.hypothetical, self.anchor = True, None
        try:
            if resolved is None:
                self._computed_program(argv, dynamic, env, simple, depth)
            else:
                rest = [*resolved, *argv[1:]]
                self.command(rest, [False] * len(resolved) + dynamic[1:], env, simple, depth)
        finally:
            self.hypothetical, self.anchor = was, outer

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
