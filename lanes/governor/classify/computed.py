"""Program names computed at run time: what ``$p``, ``$(echo pytest)`` or
``${RUNNER:-pytest}`` run, when the command itself says so.

A runner name built at run time (``p=pytest; $p``) once walked straight past
the full-sweep gate. :func:`resolve_program` expands the
forms whose value the command text determines:

- ``$NAME`` / ``${NAME}`` / ``${NAME:-default}`` with ``NAME`` assigned or
  exported earlier in the same command (or an inline prefix);
- ``$(echo WORDS)`` / ``$(printf WORDS)`` and backticks, with literal words;
- ``$(which X)``, ``$(command -v X)``, ``$(type -P X)``: the program ``X``;
- a computed directory with a literal program after it
  (``"$(npm bin)"/jest``): the program is the literal basename.

Anything else returns ``None``, and the classifier tries stand-ins instead.
Only the hook's rare path imports this module.
"""

from __future__ import annotations

from lanes.governor.classify.shell import split_commands
from lanes.governor.classify.shell_lexer import Budget, TooComplex

__all__ = ["resolve_program"]

_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _NAME_START | frozenset("0123456789")
_ECHOES = frozenset(("echo", "printf"))
_LOOKUPS = frozenset(("which", "command", "type"))
# A computed name is expanded once, not recursively: `$(echo $(echo pytest))`
# is rare enough to be left to the stand-ins.
_BODY_BUDGET = 200


def resolve_program(word: str, known: dict[str, str]) -> list[str] | None:
    """The words ``word`` (a program name holding expansions) expands to, or None."""
    value = _expand(word, known)
    if value is not None:
        words = value.split()
        return words or None
    head, slash, tail = word.rpartition("/")
    if slash and head and tail and "$" not in tail and "`" not in tail:
        return [tail]
    return None


def _expand(word: str, known: dict[str, str]) -> str | None:
    out: list[str] = []
    i, n = 0, len(word)
    while i < n:
        c = word[i]
        if c == "`":
            end = word.find("`", i + 1)
            if end < 0:
                return None
            body = _substitution(word[i + 1 : end])
            if body is None:
                return None
            out.append(body)
            i = end + 1
        elif c != "$":
            out.append(c)
            i += 1
        elif word.startswith("$(", i) and not word.startswith("$((", i):
            end = _closing(word, i + 2)
            if end < 0:
                return None
            body = _substitution(word[i + 2 : end])
            if body is None:
                return None
            out.append(body)
            i = end + 1
        elif word.startswith("${", i):
            end = word.find("}", i + 2)
            if end < 0:
                return None
            # `${NAME:-default}` with NAME unknown here is no resolution: the
            # environment may still set it, so the default is only a candidate.
            name = word[i + 2 : end].partition(":")[0].partition("-")[0]
            if not _is_name(name) or name not in known:
                return None
            out.append(known[name])
            i = end + 1
        else:
            j = i + 1
            while j < n and word[j] in _NAME_CHARS:
                j += 1
            name = word[i + 1 : j]
            if not _is_name(name) or name not in known:
                return None
            out.append(known[name])
            i = j
    return "".join(out)


def _closing(word: str, start: int) -> int:
    depth = 1
    for i in range(start, len(word)):
        if word[i] == "(":
            depth += 1
        elif word[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _substitution(body: str) -> str | None:
    """The output of ``$(body)`` when it is one echo or a program lookup."""
    try:
        commands = split_commands(body, budget=Budget(_BODY_BUDGET))
    except TooComplex:
        return None
    if len(commands) != 1:
        return None
    words = commands[0].words
    if not words or any(word.dynamic or word.assignment for word in words):
        return None
    argv = [word.value for word in words]
    args = [arg for arg in argv[1:] if not arg.startswith("-")]
    if argv[0] in _ECHOES:
        return " ".join(args)
    if argv[0] in _LOOKUPS and len(args) == 1:
        return args[0]
    return None


def _is_name(name: str) -> bool:
    return bool(name) and name[0] in _NAME_START and all(c in _NAME_CHARS for c in name)
