"""pytest's ``-k`` expression language, evaluated for one question: does the
expression select a test whose names match none of its words?

``pytest -k ''`` and ``pytest -k 'not nothing'`` run the whole suite while
looking filtered; such a selector counts as none for the full-sweep gate
(issue 11, defect 4). With every identifier false, an expression that is still
true selects all the tests its words do not name — everything, for practical
purposes.

The grammar is pytest's (``_pytest.mark.expression``)::

    expression: expr? EOF
    expr:       and_expr ('or' and_expr)*
    and_expr:   not_expr ('and' not_expr)*
    not_expr:   'not' not_expr | '(' expr ')' | ident

evaluated with an explicit operator stack (shunting-yard), so a hostile
nesting depth costs linear time and no recursion. A malformed expression is
pytest's usage error, which runs no test: it answers False. An expression of
more than :data:`MAX_TOKENS` tokens is not read and counts as selecting
everything (the gate then treats the run as a sweep rather than spend
unbounded time on it).
"""

from __future__ import annotations

__all__ = ["MAX_TOKENS", "evaluates_true"]

MAX_TOKENS = 10_000
_OPERATORS = {"or": 1, "and": 2, "not": 3}
_CLOSE = ")"
# pytest's identifier is (\w|:|\+|-|\.|\[|\]|\\|/)+; anything else is an
# error. Read by hand, not by a regex: the hook's path stays free of re.
_IDENT_PUNCTUATION = frozenset(":+-.[]\\/")


def _is_ident_char(ch: str) -> bool:
    # re's Unicode \w is str.isalnum() plus the underscore.
    return ch.isalnum() or ch == "_" or ch in _IDENT_PUNCTUATION


def _tokens(expression: str) -> list[str] | None:
    tokens: list[str] = []
    pos, n = 0, len(expression)
    while pos < n:
        ch = expression[pos]
        if ch.isspace():
            pos += 1
            continue
        if ch in "()":
            end = pos + 1
        elif _is_ident_char(ch):
            end = pos + 1
            while end < n and _is_ident_char(expression[end]):
                end += 1
        else:
            return None
        tokens.append(expression[pos:end])
        if len(tokens) > MAX_TOKENS:
            return ["not", "everything"]  # too long to read: treated as everything
        pos = end
    return tokens


def _apply(operator: str, values: list[bool]) -> bool:
    if operator == "not":
        if not values:
            return False
        values.append(not values.pop())
        return True
    if len(values) < 2:
        return False
    right, left = values.pop(), values.pop()
    values.append(left and right if operator == "and" else left or right)
    return True


def evaluates_true(expression: str) -> bool:
    """Whether ``expression`` is true with every identifier false (see module)."""
    tokens = _tokens(expression)
    if tokens is None:
        return False
    if not tokens:
        return True  # `-k ''`: no expression selects everything
    values: list[bool] = []
    operators: list[str] = []
    want_operand = True
    for token in tokens:
        if want_operand:
            if token in ("not", "("):
                operators.append(token)
            elif token in ("and", "or", ")"):
                return False
            else:
                values.append(False)
                want_operand = False
            continue
        if token in ("and", "or"):
            while (
                operators
                and operators[-1] != "("
                and (_OPERATORS[operators[-1]] >= _OPERATORS[token])
            ):
                if not _apply(operators.pop(), values):
                    return False
            operators.append(token)
            want_operand = True
        elif token == _CLOSE:
            while operators and operators[-1] != "(":
                if not _apply(operators.pop(), values):
                    return False
            if not operators:
                return False
            operators.pop()
        else:
            return False
    if want_operand:
        return False
    while operators:
        operator = operators.pop()
        if operator == "(" or not _apply(operator, values):
            return False
    return len(values) == 1 and values[0]
