"""``json.loads`` without importing :mod:`re`: the hook's JSON decoder.

``import json`` imports :mod:`json.decoder`, which compiles regular
expressions at import time and so pulls in :mod:`re` with :mod:`enum`,
:mod:`functools` and :mod:`collections` behind it — about half an interpreter
start, paid by every PreToolUse of a test command just to read a payload of a
few hundred bytes and a small ledger. The decoding itself is done by the C
scanner of :mod:`_json` (the accelerator ``json`` uses too), which needs none
of that. So :func:`loads` drives that scanner directly, with the settings
``json.loads`` gives it, and falls back to ``json.loads`` itself for every
case it does not reproduce byte for byte:

- no C scanner (another interpreter): ``json.loads``;
- bytes that are not plain UTF-8 (a BOM, UTF-16/32, invalid UTF-8) and text
  starting with a BOM: ``json.loads``, so its encoding detection and its error
  messages stay the only ones;
- any decoding error: the text is decoded again by ``json.loads``, which
  raises the very :class:`json.JSONDecodeError` (a :class:`ValueError`) it
  always raised. Errors are the rare path; they may import :mod:`re`.

Deep nesting raises :class:`RecursionError` exactly as ``json.loads`` does:
it is the same scanner. ``tests/foundation/test_jsonscan.py`` checks the
equivalence on generated documents.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Callable

    Scanner = Callable[[str, int], tuple[object, int]]

__all__ = ["loads"]

_WHITESPACE = " \t\n\r"
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Context:
    """The attributes the C scanner reads from a ``JSONDecoder`` (its defaults)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


def _make_scanner() -> Scanner | None:
    try:
        import _json  # the stdlib's own accelerator: no re behind it
    except ImportError:
        return None
    make: Callable[[_Context], Scanner] | None = getattr(_json, "make_scanner", None)
    return None if make is None else make(_Context())


_SCAN = _make_scanner()


def _slow(text: str | bytes) -> object:
    import json  # only for what the scanner does not reproduce

    return json.loads(text)


def loads(text: str | bytes) -> object:
    """The JSON value in ``text``, exactly as ``json.loads(text)`` returns it."""
    if _SCAN is None:
        return _slow(text)
    if isinstance(text, bytes):
        if text.startswith(b"\xef\xbb\xbf") or b"\x00" in text[:4]:
            return _slow(text)  # a BOM or UTF-16/32: json's detection decides
        try:
            string = text.decode("utf-8")
        except UnicodeDecodeError:
            return _slow(text)
    else:
        string = text
    if string.startswith("\ufeff"):
        return _slow(text)
    start = len(string) - len(string.lstrip(_WHITESPACE))
    try:
        value, end = _SCAN(string, start)
    except StopIteration:
        return _slow(text)
    except ValueError:
        return _slow(text)
    if end != len(string) and string[end:].strip(_WHITESPACE):
        return _slow(text)
    return value
