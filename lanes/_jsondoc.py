"""Strict JSON documents: one reader for every state, cache and input file.

Each lanekit file of JSON (the verify ledger, the run lock, run notes, the
economy store, the gate's config cache, slow pins, fuzz artifacts, an agent's
settings, envelopes) is read the same way, with the same refusals:

- **opened without blocking and without following links**
  (``O_NONBLOCK | O_NOFOLLOW``), then ``fstat``: anything but a regular file —
  a FIFO, a device such as ``/dev/zero``, a directory — is refused before a
  single byte is read, so a planted FIFO can never hang the hook;
- **a size cap**: a file larger than the reader's limit is refused instead of
  read into memory;
- **an explicit nesting limit**: json's decoder recurses per level, and how
  deep it goes before :class:`RecursionError` differs between interpreters;
  both the error and a document deeper than :data:`MAX_DEPTH` are one refusal;
- **"must be an object"**, then typed field readers.

Every refusal raises the *caller's* typed error, built by the caller's
``fail(message)`` so it carries the caller's hint (see :func:`failing_with`).
Stdlib only and cheap to import: the governor reads its state through here.
"""

from __future__ import annotations

import math
import os
import stat

from lanes._jsonscan import loads

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Callable

    Fail = Callable[[str], Exception]

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_DEPTH",
    "NotRegularFileError",
    "TooLargeError",
    "failing_with",
    "integer_field",
    "load_object",
    "loads_object",
    "nesting_exceeds",
    "number_field",
    "read_bytes",
    "string_field",
]

# Larger than any file lanekit writes (a big ledger or economy store is well
# under 1 MiB); small enough that a hostile file cannot exhaust memory.
DEFAULT_MAX_BYTES = 16 << 20
# Deeper than any document lanekit writes; shallow enough for every decoder.
MAX_DEPTH = 64

_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC


class NotRegularFileError(OSError):
    """The path is a FIFO, a device, a directory or a socket: not a document."""


class TooLargeError(OSError):
    """The file is larger than its reader accepts."""


def read_bytes(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    follow_symlinks: bool = False,
) -> bytes | None:
    """The bytes of the regular file at ``path``, or None when it does not exist.

    Raises ``OSError``: ELOOP for a symlink, :class:`NotRegularFileError` for
    anything that is not a regular file (checked on the open descriptor, so a
    swap between check and read cannot fool it), :class:`TooLargeError` past
    ``max_bytes``. ``follow_symlinks`` is for files a user names on the
    command line; state files are never read through a link.
    """
    name = os.fspath(path)
    try:
        fd = os.open(name, _OPEN_FLAGS & ~os.O_NOFOLLOW if follow_symlinks else _OPEN_FLAGS)
    except FileNotFoundError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            msg = f"{name} is not a regular file"
            raise NotRegularFileError(msg)
        if info.st_size > max_bytes:
            msg = f"{name} is {info.st_size} bytes, more than {max_bytes}"
            raise TooLargeError(msg)
        chunks: list[bytes] = []
        size = 0
        # Read to EOF, but never past the cap: the file may grow after fstat.
        while chunk := os.read(fd, min(1 << 20, max_bytes + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                msg = f"{name} grew past {max_bytes} bytes while being read"
                raise TooLargeError(msg)
        return b"".join(chunks)
    finally:
        os.close(fd)


def nesting_exceeds(value: object, limit: int) -> bool:
    """Whether JSON-like ``value`` nests deeper than ``limit`` containers (iterative)."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: list[object] | tuple[object, ...] = list(item.values())
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def failing_with(error: Callable[..., Exception], hint: str) -> Fail:
    """``fail`` for a :class:`~lanes.errors.LanesError` subclass and its hint."""
    return lambda message: error(message, hint=hint)


def loads_object(
    text: str | bytes, *, what: str, fail: Fail, max_depth: int = MAX_DEPTH
) -> dict[str, object]:
    """Parse ``text`` as a JSON object named ``what`` in messages; ``fail(msg)`` otherwise."""
    try:
        document = loads(text)
    except RecursionError:
        msg = f"{what} is not valid JSON (nested too deeply: more than {max_depth} levels)"
        raise fail(msg) from None
    except ValueError as exc:  # JSONDecodeError, and UnicodeDecodeError of bytes
        msg = f"{what} is not valid JSON: {str(exc)[:200]}"
        raise fail(msg) from None
    if not isinstance(document, dict):
        msg = f"{what} must hold a JSON object, got {type(document).__name__}"
        raise fail(msg)
    if nesting_exceeds(document, max_depth):
        msg = f"{what} is not valid JSON (nested too deeply: more than {max_depth} levels)"
        raise fail(msg)
    return document


def load_object(
    path: str | os.PathLike[str],
    *,
    what: str,
    fail: Fail,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = MAX_DEPTH,
    follow_symlinks: bool = False,
) -> dict[str, object] | None:
    """The JSON object in the file at ``path``; None when the file does not exist.

    Every other refusal — a symlink, a FIFO or device, a file past
    ``max_bytes``, unreadable, not UTF-8 JSON, too deep, not an object — is
    ``fail(message)``.
    """
    try:
        data = read_bytes(path, max_bytes=max_bytes, follow_symlinks=follow_symlinks)
    except OSError as exc:
        msg = f"{what} cannot be read: {exc.strerror or exc}"
        if isinstance(exc, NotRegularFileError | TooLargeError):
            msg = f"{what} cannot be read: {exc}"
        raise fail(msg) from None
    if data is None:
        return None
    return loads_object(data, what=what, fail=fail, max_depth=max_depth)


def string_field(
    document: dict[str, object],
    key: str,
    *,
    fail: Fail,
    what: str,
    default: str | None = None,
    max_chars: int | None = None,
) -> str:
    """``document[key]`` as a string (``default`` when absent and one is given)."""
    value = document.get(key, default)
    if not isinstance(value, str):
        msg = f"{what}: {key} must be a string, got {_shown(value)}"
        raise fail(msg)
    if max_chars is not None and len(value) > max_chars:
        msg = f"{what}: {key} is longer than {max_chars} characters"
        raise fail(msg)
    return value


def number_field(
    document: dict[str, object],
    key: str,
    *,
    fail: Fail,
    what: str,
    default: float | None = None,
    minimum: float | None = None,
) -> float:
    """``document[key]`` as a finite float: an int or float, never a bool or a string."""
    value = document.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = f"{what}: {key} must be a number, got {_shown(value)}"
        raise fail(msg)
    try:
        number = float(value)
    except OverflowError:  # an integer past the float range
        number = float("inf")
    if not math.isfinite(number):
        msg = f"{what}: {key} must be a finite number, got {_shown(value)}"
        raise fail(msg)
    if minimum is not None and number < minimum:
        msg = f"{what}: {key} must be at least {minimum:g}, got {_shown(value)}"
        raise fail(msg)
    return number


def integer_field(
    document: dict[str, object],
    key: str,
    *,
    fail: Fail,
    what: str,
    default: int | None = None,
    minimum: int = 0,
    maximum: int = 2**63 - 1,
) -> int:
    """``document[key]`` as an int within ``[minimum, maximum]``; a bool is damage, not 1."""
    value = document.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        msg = f"{what}: {key} must be an integer from {minimum} to {maximum}, got {_shown(value)}"
        raise fail(msg)
    return value


def _shown(value: object) -> str:
    # repr of an int past 4,300 digits raises ValueError; a long string would
    # flood the message. Both are cut to something a person can read.
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "an integer too large to show"
    text = repr(value) if not isinstance(value, dict | list) else type(value).__name__
    return text if len(text) <= 80 else text[:77] + "..."
