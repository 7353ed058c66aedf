"""Shell segmentation: command text -> the simple commands a POSIX shell would run.

:mod:`lanes.governor.classify.shell_lexer` reads the text into tokens
(quotes, escapes, comments, heredoc bodies, command substitutions); this
module groups them into simple commands:

- a simple command ends at an operator: ``;`` ``&&`` ``||`` ``|`` ``|&`` ``&``,
  a newline, the ``( )`` of a subshell, ``;;`` in ``case``;
- reserved words (``if then else fi for do done while until case esac !``),
  ``{ }`` groups and the headers of ``for``, ``case`` and ``function`` are
  syntax, not commands;
- redirections' targets are dropped from the argv, and heredoc and herestring
  bodies are data fed to the command's stdin, not commands;
- the commands of command substitutions ``$(...)`` / backticks / ``<(...)``
  do run, and are returned as simple commands of their own, first.

Like the lexer, it never raises on malformed input.
"""

from __future__ import annotations

from lanes.governor.classify.shell_lexer import (
    TOKEN_OP,
    TOKEN_REDIR,
    TOKEN_WORD,
    Budget,
    Lexer,
    Text,
)

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from lanes.governor.classify.shell_lexer import Token, Word

__all__ = ["SimpleCommand", "split_commands"]

# Words that are syntax, not commands, when they start a simple command.
_PREFIX_KEYWORDS = frozenset(("if", "then", "else", "elif", "do", "while", "until", "!", "{"))
_CLOSING_KEYWORDS = frozenset(("fi", "done", "esac", "}"))
_CASE_ARM_END = frozenset((";;", ";&", ";;&"))


class SimpleCommand:
    """The words of one simple command, its source text and any stdin text.

    ``stdin`` is the body of a heredoc or herestring fed to the command: data,
    unless the command turns out to be a shell reading its script from stdin.
    """

    __slots__ = ("stdin", "text", "words")

    def __init__(self, words: list[Word], text: str, stdin: str | None) -> None:
        self.words = words
        self.text = text
        self.stdin = stdin

    def __repr__(self) -> str:
        return f"SimpleCommand({[w.value for w in self.words]!r})"


def _parse(tokens: list[Token], src: str) -> list[SimpleCommand]:  # noqa: PLR0915  # a flat state machine reads best in one piece
    """Group tokens into simple commands, dropping syntax and redirections."""
    commands: list[SimpleCommand] = []
    words: list[Word] = []
    first: int | None = None
    last = 0
    stdin: str | None = None
    skip_target = False
    skip_to_separator = False  # `for x in ...;` / `function f` headers
    case_depth = 0
    case_want_in = False  # between `case WORD` and `in`
    in_pattern = False  # a case arm's pattern, up to its `)`

    def flush() -> None:
        nonlocal words, first, stdin
        if words and first is not None:
            commands.append(SimpleCommand(words, src[first:last], stdin))
        words = []
        first = None
        stdin = None

    for token in tokens:
        if token.kind == TOKEN_OP:
            if in_pattern:
                if token.value == ")":
                    in_pattern = False
                continue
            flush()
            skip_target = skip_to_separator = False
            if case_depth and token.value in _CASE_ARM_END:
                in_pattern = True
            continue
        if token.kind == TOKEN_REDIR:
            if first is None:
                first = token.start
            last = token.end
            skip_target = True
            if token.value in ("<<", "<<-"):
                stdin = token.body
            continue
        word = token.word
        if word is None:  # pragma: no cover - every word token carries its Word
            continue
        if skip_target:
            skip_target = False
            last = token.end
            continue
        if in_pattern:
            if word.value == "esac" and not word.quoted:  # `a) x;; esac`: no next arm
                in_pattern = False
                case_depth -= 1
            continue
        if skip_to_separator:
            if word.value == "{" and not word.quoted:  # `function f {`: the body follows
                skip_to_separator = False
            continue
        if case_want_in:
            if word.value == "in" and not word.quoted:
                case_want_in = False
                in_pattern = True
            continue
        if not words and not word.quoted:
            value = word.value
            if value in _PREFIX_KEYWORDS:
                continue
            if value in _CLOSING_KEYWORDS:
                if value == "esac" and case_depth:
                    case_depth -= 1
                continue
            if value in ("for", "select", "function"):
                skip_to_separator = True
                continue
            if value == "case":
                case_depth += 1
                case_want_in = True
                continue
        if first is None:
            first = token.start
        last = token.end
        words.append(word)
    flush()
    return commands


def _herestrings(tokens: list[Token]) -> None:
    """Attach each ``<<<`` herestring's word to the redirection as its body."""
    for i, token in enumerate(tokens):
        if token.kind == TOKEN_REDIR and token.value == "<<<" and i + 1 < len(tokens):
            nxt = tokens[i + 1]
            if nxt.kind == TOKEN_WORD:
                token.body = nxt.value
                token.value = "<<"  # from here on a herestring is just stdin data


def split_commands(src: str, depth: int = 0, budget: Budget | None = None) -> list[SimpleCommand]:
    """Every simple command ``src`` runs, command substitutions first.

    Raises :class:`TooComplex` when lexing would spend more than ``budget``
    (a fresh :class:`Budget` when not given).
    """
    lexer = Lexer(Text(src), 0, depth, Budget() if budget is None else budget)
    lexer.run(until_close=False)
    commands: list[SimpleCommand] = []
    for sub_tokens, sub_src in zip(lexer.subs, lexer.sub_sources, strict=True):
        _herestrings(sub_tokens)
        commands.extend(_parse(sub_tokens, sub_src))
    _herestrings(lexer.tokens)
    commands.extend(_parse(lexer.tokens, src))
    return commands
