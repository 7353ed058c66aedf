"""Strict text and TOML documents: :mod:`lanes._jsondoc`'s refusals for every other file.

Every file lanekit reads that someone else wrote — a user's ``pyproject.toml``,
``noxfile.py`` and ``.gitignore`` (``lanes init``), a tracked source file
(``lanes affected``), a torture schedule — is read here, with the same rules
as JSON state:

- **regular files only**, opened without blocking (``O_NONBLOCK``) and checked
  on the descriptor: a FIFO is refused at once instead of hanging the command,
  ``/dev/zero`` instead of being read until memory runs out;
- **no-follow** unless the caller says the user named the path;
- **a size cap** per reader;
- **UTF-8, byte for byte**: no newline translation, so a CRLF file is
  rewritten with its CRLFs (``Path.read_text`` would turn them into LF);
- for TOML, **a nesting cap**: ``tomllib`` recurses per level of arrays and
  inline tables, and its :class:`RecursionError` is one more refusal.

Every refusal raises the caller's typed error through ``fail(message)``
(:func:`lanes._jsondoc.failing_with`), so it carries the caller's hint.
"""

from __future__ import annotations

import tomllib
from typing import TYPE_CHECKING, Any

from lanes._jsondoc import read_bytes

if TYPE_CHECKING:
    import os
    from collections.abc import Callable

    Fail = Callable[[str], Exception]

__all__ = ["DEFAULT_MAX_TEXT_BYTES", "load_toml", "loads_toml", "read_text"]

# Far above any hand-written project file (a large pyproject.toml is ~20 KiB,
# a large source module ~500 KiB); far below what would hurt to hold.
DEFAULT_MAX_TEXT_BYTES = 8 << 20


def read_text(
    path: str | os.PathLike[str],
    *,
    what: str,
    fail: Fail,
    max_bytes: int = DEFAULT_MAX_TEXT_BYTES,
    follow_symlinks: bool = False,
) -> str | None:
    """The UTF-8 text of the regular file at ``path`` exactly as stored; None when absent."""
    try:
        data = read_bytes(path, max_bytes=max_bytes, follow_symlinks=follow_symlinks)
    except OSError as exc:
        # ELOOP for a link, NotRegularFileError, TooLargeError, EACCES ...
        msg = f"{what} cannot be read: {exc.strerror or exc}"
        raise fail(msg) from None
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        msg = f"{what} is not UTF-8 text (byte {exc.start}: {data[exc.start : exc.start + 1]!r})"
        raise fail(msg) from None


def loads_toml(text: str, *, what: str, fail: Fail) -> dict[str, Any]:
    """``tomllib.loads(text)``; a syntax error or a too-deep nesting is ``fail(message)``."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = f"{what} is not valid TOML: {exc}"
        raise fail(msg) from None
    except RecursionError:
        msg = f"{what} nests arrays or inline tables too deeply to be read"
        raise fail(msg) from None


def load_toml(
    path: str | os.PathLike[str],
    *,
    what: str,
    fail: Fail,
    max_bytes: int = DEFAULT_MAX_TEXT_BYTES,
    follow_symlinks: bool = False,
) -> dict[str, Any] | None:
    """The TOML document at ``path`` (:func:`read_text`, then :func:`loads_toml`); None when absent."""
    text = read_text(
        path, what=what, fail=fail, max_bytes=max_bytes, follow_symlinks=follow_symlinks
    )
    return None if text is None else loads_toml(text, what=what, fail=fail)
