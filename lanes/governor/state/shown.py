"""State values made safe to show: bounded and free of control characters.

Every string in a state file may have been written by someone else (a
tampered ledger, a planted lock). Whatever of it reaches the agent's context
or a terminal passes through :func:`shown`: a 5 MB ``agent`` field must not
become a 5 MB block message, and an ANSI escape or a newline followed by
"SYSTEM:" must not reach the reader as anything but visible text.
"""

from __future__ import annotations

__all__ = ["SHORT", "shown", "shown_fields"]

# Names (agent, suite, host, session tail): far longer than any real one.
SHORT = 64
_ELLIPSIS = "…"


def shown(value: object, limit: int = SHORT) -> str:
    """``value`` as one line of at most ``limit`` printable characters.

    Control and format characters (C0, C1, DEL, bidi overrides, line and
    paragraph separators) become ``?``; a cut string ends in ``…``.
    """
    text = value if isinstance(value, str) else _plain(value)
    cut = len(text) > limit
    if cut:
        text = text[: max(limit - 1, 0)]
    if not text.isprintable():
        text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text + _ELLIPSIS if cut else text


def shown_fields(record: dict[str, object], limit: int = SHORT) -> dict[str, object]:
    """A state record's fields for a JSON view: every string bounded by :func:`shown`."""
    return {
        key: shown(value, limit) if isinstance(value, str) else value
        for key, value in record.items()
    }


def _plain(value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "(a very large number)"  # repr past 4,300 digits raises
    return repr(value)
