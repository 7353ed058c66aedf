"""Shell lexing: command text -> the words, operators and redirections a POSIX shell reads.

A small hand-written lexer rather than :mod:`shlex`: ``shlex`` knows neither
operators nor heredocs, so ``cat <<EOF\\npytest\\nEOF`` would look like a test
run, and ``a&&b`` would be one word. What this module understands:

- operators ``;`` ``&&`` ``||`` ``|`` ``|&`` ``&`` ``;;``, newlines, ``( )``, and
  the redirection operators (``>`` ``2>&1`` ``&>>`` ``<<<`` ...);
- quotes (``'...'``, ``"..."``, ``$'...'``), backslash escapes and
  backslash-newline continuations;
- comments (``#`` at the start of a word);
- heredoc bodies (``<<EOF``, ``<<-'EOF'``), kept on their redirection token
  as data;
- command substitutions ``$(...)`` / backticks / ``<(...)``, lexed by nested
  lexers whose tokens are kept, because their commands do run;
- parameter expansions and arithmetic (``$VAR``, ``${...}``, ``$((...))``),
  which mark a word's value as unknown until run time.

No regular expression is involved (:class:`Text` says why). It never raises
on malformed input: an unterminated quote runs to the end of the text, as an
interactive shell would keep reading; only a command past its :class:`Budget`
stops it (:class:`TooComplex`). Grouping the tokens into simple commands is
:mod:`lanes.governor.classify.shell`.
"""

from __future__ import annotations

__all__ = [
    "MAX_TOKENS",
    "TOKEN_OP",
    "TOKEN_REDIR",
    "TOKEN_WORD",
    "Budget",
    "Lexer",
    "Text",
    "Token",
    "TooComplex",
    "Word",
]

# Nesting bound for $(...) and backticks inside each other; deeper text is
# still skipped correctly but its commands are not looked into (the budget
# notes that it was: see Budget.opaque).
_MAX_DEPTH = 12
# Tokens (words and operators, across every nested lexer and every re-lexed
# `bash -c` script of one command) lexed before giving up. Lexing costs a few
# microseconds per token, so this bounds the classifier's work to tens of
# milliseconds whatever the shape; no command an agent
# types by hand comes near it. A nested lexer costs as much as several tokens.
MAX_TOKENS = 5000
_NESTED_LEXER_COST = 8

_WORD_BREAK = frozenset(" \t\n;&|()<>")
_WORD_SPECIAL = frozenset(" \t\n;&|()<>\\'\"$`")
_DQUOTE_SPECIAL = frozenset('\\"$`')
# The characters each scan stops at (see Text): a plain word's, inside
# double quotes, inside $(( / ${ when balancing, at a double quote's end.
_PLAIN_STOPS = " \t\n;&|()<>\\'\"$`"
_DQUOTE_STOPS = '\\"$`'
_BALANCE_STOPS = {"(": "\\'\"()", "{": "\\'\"{}"}
_DQUOTE_END_STOPS = '\\"'
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _NAME_START | frozenset("0123456789")
_SPECIAL_PARAMS = frozenset("?#@*!-$0123456789")
_ANSI_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b",
                 "E": "\x1b", "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}  # fmt: skip

# Token kinds.
TOKEN_WORD = 0
TOKEN_OP = 1
TOKEN_REDIR = 2


class Word:
    """One shell word: its value after quote removal and where it came from.

    ``dynamic`` is set when the word holds an unquoted-or-double-quoted
    expansion (``$VAR``, ``$(...)``, backticks): its run-time value is unknown.
    ``quoted`` is set when any part of it was quoted or escaped, which stops a
    reserved word or an assignment from being recognised as such.
    """

    __slots__ = ("assignment", "dynamic", "end", "quoted", "start", "value")

    def __init__(
        self, value: str, start: int, end: int, *, quoted: bool, dynamic: bool, assignment: bool
    ) -> None:
        self.value = value
        self.start = start
        self.end = end
        self.quoted = quoted
        self.dynamic = dynamic
        self.assignment = assignment

    def __repr__(self) -> str:
        return f"Word({self.value!r})"


class TooComplex(Exception):  # noqa: N818  # a verdict on the input, not an error of ours
    """The command has more tokens than the classifier's budget."""


class Budget:
    """What one classification may still spend, shared by every lexer it runs.

    ``opaque`` says why part of the command was not looked into (nesting
    deeper than the lexer follows), or stays ``None``.
    """

    __slots__ = ("opaque", "tokens")

    def __init__(self, tokens: int = MAX_TOKENS) -> None:
        self.tokens = tokens
        self.opaque: str | None = None

    def spend(self, cost: int = 1) -> None:
        self.tokens -= cost
        if self.tokens < 0:
            raise TooComplex


class Token:
    """A word, an operator or a redirection (``kind``: a ``TOKEN_`` constant) and where it is."""

    __slots__ = ("body", "end", "kind", "start", "value", "word")

    def __init__(
        self, kind: int, value: str, start: int, end: int, word: Word | None = None
    ) -> None:
        self.kind = kind
        self.value = value
        self.start = start
        self.end = end
        self.word = word
        # For a heredoc/herestring redirection: the data it feeds to stdin.
        self.body: str | None = None


class Text:
    """A command text, and where the next character of a set occurs in it.

    A regex character class would find it in a C loop, but importing :mod:`re`
    (enum and functools behind it) costs half an interpreter start on every
    suite command the hook sees. Instead the text is translated once per set,
    lazily, so that each character of the set becomes NUL (and a NUL of the
    text itself something else): ``str.find`` then runs the same C loop.
    Nested ``$(...)`` lexers share their parent's text, so each set is
    translated at most once per text.
    """

    __slots__ = ("_marked", "n", "src")

    def __init__(self, src: str) -> None:
        self.src = src
        self.n = len(src)
        self._marked: dict[str, str] = {}

    def next_stop(self, stops: str, pos: int) -> int:
        """Index of the first character of ``stops`` at or after ``pos``;
        the text's length when there is none."""
        marked = self._marked.get(stops)
        if marked is None:
            marked = self._marked[stops] = self.src.translate(_stop_table(stops))
        at = marked.find("\0", pos)
        return self.n if at < 0 else at


def _stop_table(stops: str) -> dict[int, int]:
    table = {ord(c): 0 for c in stops}
    table[0] = 1  # the text's own NUL is an ordinary character
    return table


def _is_assignment(raw: str) -> bool:
    """``NAME=...`` with an unquoted, unescaped name (checked on the source text)."""
    if not raw or raw[0] not in _NAME_START:
        return False
    for i, ch in enumerate(raw):
        if ch == "=":
            return i > 0
        if ch not in _NAME_CHARS:
            return False
    return False


class Lexer:
    """Turns shell text into tokens; command substitutions go to ``subs``."""

    def __init__(self, text: Text, pos: int, depth: int, budget: Budget) -> None:
        self.budget = budget
        self.text = text
        self.src = text.src
        self.n = text.n
        self.pos = pos
        self.depth = depth
        self.tokens: list[Token] = []
        self.subs: list[list[Token]] = []
        self.sub_sources: list[str] = []
        # Heredoc redirections awaiting their body: (token, strip tabs, delimiter).
        self._pending: list[tuple[Token, bool, str]] = []
        self._delimiter_for: tuple[Token, bool] | None = None

    # ------------------------------------------------------------ top level

    def run(self, *, until_close: bool) -> None:
        """Lex to the end, or (``until_close``) to the ``)`` closing a ``$(``."""
        src, n = self.src, self.n
        parens = 0
        while self.pos < n:
            c = src[self.pos]
            if c in " \t":
                self.pos += 1
            elif c == "\\" and src.startswith("\\\n", self.pos):
                self.pos += 2
            elif c == "\n":
                self.tokens.append(Token(TOKEN_OP, "\n", self.pos, self.pos + 1))
                self.pos += 1
                self._read_heredoc_bodies()
            elif c == "#":
                end = src.find("\n", self.pos)
                self.pos = n if end < 0 else end
            elif c == ")" and until_close and parens == 0:
                self.pos += 1
                return
            elif c in "<>" and src.startswith("(", self.pos + 1):
                self._read_word()  # process substitution: a word that runs commands
            elif c in ";&|()<>":
                op = self._read_operator()
                if op == "(":
                    parens += 1
                elif op == ")":
                    parens -= 1
            else:
                self._read_word()

    def _read_operator(self) -> str:
        self.budget.spend()
        src, start = self.src, self.pos
        three, two = src[start : start + 3], src[start : start + 2]
        kind = TOKEN_OP
        if three in (";;&", "&>>", "<<<", "<<-"):
            op = three
        elif two in ("&&", "||", "|&", ";;", ";&", ">>", "<<", "<&", ">&", "<>", ">|", "&>"):
            op = two
        else:
            op = src[start]
        if op[0] in "<>" or op in ("&>", "&>>"):
            kind = TOKEN_REDIR
        self.pos = start + len(op)
        token = Token(kind, op, start, self.pos)
        self.tokens.append(token)
        if op in ("<<", "<<-"):
            self._delimiter_for = (token, op == "<<-")
        return op

    def _read_heredoc_bodies(self) -> None:
        src, n = self.src, self.n
        for token, strip_tabs, delimiter in self._pending:
            body: list[str] = []
            while self.pos < n:
                eol = src.find("\n", self.pos)
                line = src[self.pos : n if eol < 0 else eol]
                self.pos = n if eol < 0 else eol + 1
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
                body.append(line)
            token.body = "\n".join(body)
        self._pending.clear()

    # ---------------------------------------------------------------- words

    def _read_word(self) -> None:  # noqa: PLR0915  # one branch per quoting form, in one hot loop
        self.budget.spend()
        src, n, start = self.src, self.n, self.pos
        parts: list[str] = []
        quoted = dynamic = False
        while self.pos < n:
            pos = self.pos
            c = src[pos]
            if c not in _WORD_SPECIAL:
                end = self.text.next_stop(_PLAIN_STOPS, pos)
                parts.append(src[pos:end])
                self.pos = end
            elif c in "<>" and src.startswith("(", pos + 1) and not parts:
                self.pos = pos + 2
                self._substitute_until_close()
                parts.append(src[pos : self.pos])
                dynamic = True
            elif c == "(" and parts and parts[-1].endswith("=") and _is_assignment(src[start:pos]):
                self.pos = _skip_balanced(self.text, pos + 1, "(", ")")  # array assignment a=(x y)
                parts.append(src[pos : self.pos])
            elif c in _WORD_BREAK:
                break
            elif c == "\\":
                if src.startswith("\n", pos + 1):
                    self.pos = pos + 2
                else:
                    parts.append(src[pos + 1 : pos + 2])
                    self.pos = pos + 2
                    quoted = True
            elif c == "'":
                end = src.find("'", pos + 1)
                end = n if end < 0 else end
                parts.append(src[pos + 1 : end])
                self.pos = end + 1
                quoted = True
            elif c == '"':
                self.pos = pos + 1
                dynamic |= self._read_double_quoted(parts)
                quoted = True
            elif c == "$":
                if src.startswith("'", pos + 1):
                    self.pos = pos + 2
                    parts.append(self._read_ansi_c())
                    quoted = True
                elif src.startswith('"', pos + 1):
                    self.pos = pos + 2
                    dynamic |= self._read_double_quoted(parts)
                    quoted = True
                else:
                    dynamic |= self._read_dollar(parts)
            else:  # backtick
                self._read_backticks(parts)
                dynamic = True
        end = self.pos
        value = "".join(parts)
        # `2>file`: an all-digit word glued to a redirection is its fd, not a word.
        if self.pos < n and src[self.pos] in "<>" and value.isdigit() and not quoted:
            return
        word = Word(
            value,
            start,
            end,
            quoted=quoted,
            dynamic=dynamic,
            assignment="=" in value and _is_assignment(src[start:end]),
        )
        if self._delimiter_for is not None:
            token, strip_tabs = self._delimiter_for
            self._pending.append((token, strip_tabs, value))
            self._delimiter_for = None
        self.tokens.append(Token(TOKEN_WORD, value, start, end, word))

    def _read_double_quoted(self, parts: list[str]) -> bool:
        """Read up to the closing quote; returns whether an expansion was seen."""
        src, n = self.src, self.n
        dynamic = False
        while self.pos < n:
            pos = self.pos
            c = src[pos]
            if c not in _DQUOTE_SPECIAL:
                end = self.text.next_stop(_DQUOTE_STOPS, pos)
                parts.append(src[pos:end])
                self.pos = end
            elif c == '"':
                self.pos = pos + 1
                return dynamic
            elif c == "\\":
                nxt = src[pos + 1 : pos + 2]
                if nxt == "\n":
                    pass
                elif nxt in ('"', "\\", "$", "`"):
                    parts.append(nxt)
                else:
                    parts.append("\\" + nxt)
                self.pos = pos + 2
            elif c == "$":
                dynamic |= self._read_dollar(parts)
            else:
                self._read_backticks(parts)
                dynamic = True
        return dynamic

    def _read_ansi_c(self) -> str:
        src, n = self.src, self.n
        out: list[str] = []
        while self.pos < n:
            c = src[self.pos]
            if c == "'":
                self.pos += 1
                break
            if c == "\\" and self.pos + 1 < n:
                nxt = src[self.pos + 1]
                out.append(_ANSI_ESCAPES.get(nxt, "\\" + nxt))
                self.pos += 2
            else:
                out.append(c)
                self.pos += 1
        return "".join(out)

    def _read_dollar(self, parts: list[str]) -> bool:
        """``$...`` at ``self.pos``; returns whether it is an expansion."""
        src, pos = self.src, self.pos
        nxt = src[pos + 1 : pos + 2]
        if src.startswith("((", pos + 1):
            self.pos = _skip_balanced(self.text, pos + 3, "(", ")")
            self.pos = min(self.n, self.pos + 1) if src.startswith(")", self.pos) else self.pos
        elif nxt == "(":
            self.pos = pos + 2
            self._substitute_until_close()
        elif nxt == "{":
            self.pos = _skip_balanced(self.text, pos + 2, "{", "}")
        elif nxt and (nxt in _NAME_START or nxt in _SPECIAL_PARAMS):
            end = pos + 2
            if nxt in _NAME_START:
                while end < self.n and src[end] in _NAME_CHARS:
                    end += 1
            self.pos = end
        else:
            parts.append("$")
            self.pos = pos + 1
            return False
        parts.append(src[pos : self.pos])
        return True

    def _substitute_until_close(self) -> None:
        """Lex a ``$(...)`` body in place; its commands run, so keep them."""
        if self.depth >= _MAX_DEPTH:
            self.budget.opaque = f"command substitutions nested more than {_MAX_DEPTH} deep"
            self.pos = _skip_balanced(self.text, self.pos, "(", ")")
            return
        self.budget.spend(_NESTED_LEXER_COST)
        child = Lexer(self.text, self.pos, self.depth + 1, self.budget)
        child.run(until_close=True)
        self.pos = child.pos
        self.subs.append(child.tokens)
        self.sub_sources.append(self.src)
        self.subs.extend(child.subs)
        self.sub_sources.extend(child.sub_sources)

    def _read_backticks(self, parts: list[str]) -> None:
        src, n, start = self.src, self.n, self.pos
        pos = start + 1
        inner: list[str] = []
        while pos < n and src[pos] != "`":
            if src[pos] == "\\" and pos + 1 < n and src[pos + 1] in "`\\$":
                inner.append(src[pos + 1])
                pos += 2
            else:
                inner.append(src[pos])
                pos += 1
        self.pos = min(n, pos + 1)
        parts.append(src[start : self.pos])
        if self.depth >= _MAX_DEPTH:
            self.budget.opaque = f"command substitutions nested more than {_MAX_DEPTH} deep"
        else:
            self.budget.spend(_NESTED_LEXER_COST)
            text = "".join(inner)
            child = Lexer(Text(text), 0, self.depth + 1, self.budget)
            child.run(until_close=False)
            self.subs.append(child.tokens)
            self.sub_sources.append(text)
            self.subs.extend(child.subs)
            self.sub_sources.extend(child.sub_sources)


def _skip_balanced(text: Text, pos: int, open_: str, close: str) -> int:
    """Index just past the ``close`` matching an already-consumed ``open_``.

    Quotes are honoured so that ``${x:-")"}`` does not end early; an
    unbalanced text runs to its end.
    """
    src, n, depth = text.src, text.n, 1
    stops = _BALANCE_STOPS[open_]
    while pos < n:
        pos = text.next_stop(stops, pos)
        if pos >= n:
            return n
        c = src[pos]
        if c == "\\":
            pos += 2
            continue
        if c == "'":
            end = src.find("'", pos + 1)
            pos = n if end < 0 else end + 1
            continue
        if c == '"':
            pos = _past_double_quote(text, pos + 1)
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return pos + 1
        pos += 1
    return n


def _past_double_quote(text: Text, pos: int) -> int:
    """Index just past the ``"`` closing a double-quoted span that starts at
    ``pos`` (backslash escapes honoured); past the end when it is unclosed."""
    n = text.n
    while pos < n:
        found = text.next_stop(_DQUOTE_END_STOPS, pos)
        if found >= n:
            return n + 1
        if text.src[found] == "\\":
            pos = found + 2
            continue
        return found + 1
    return pos + 1
