"""Fuzz inputs <-> JSON, losslessly, for failure artifacts and the corpus.

Generated inputs are JSON-like but not JSON: bytes, NaN and infinities, TOML
dates and times. Each of those becomes a one-key object whose key starts with
``$`` (``{"$bytes": "<base64>"}``); a generated dict that itself has exactly one
``$``-key is wrapped as ``{"$dict": [[key, value], ...]}`` so it cannot be
mistaken for a tag. Everything else is written as itself, so an artifact stays
readable by eye.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import math
from typing import Any, Final

from lanes.errors import LanesError

__all__ = ["CodecError", "canonical", "decode", "encode"]

_TAGS: Final = ("$bytes", "$float", "$datetime", "$date", "$time", "$dict")


class CodecError(LanesError, ValueError):
    """A saved fuzz input is not in the encoding this module writes."""


def encode(value: object) -> object:
    """A JSON-ready form of ``value`` that :func:`decode` turns back into an equal value."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, bytes):
        return {"$bytes": base64.b64encode(value).decode("ascii")}
    # datetime before date: a datetime is a date.
    if isinstance(value, dt.datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, dt.date):
        return {"$date": value.isoformat()}
    if isinstance(value, dt.time):
        return {"$time": value.isoformat()}
    if isinstance(value, list | tuple):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        if all(isinstance(key, str) for key in value) and not _looks_tagged(value):
            return {key: encode(item) for key, item in value.items()}
        return {"$dict": [[encode(key), encode(item)] for key, item in value.items()]}
    msg = f"cannot save a fuzz input of type {type(value).__name__}: {value!r:.80}"
    raise CodecError(
        msg,
        hint="a fuzz strategy must generate JSON-like values (str, bytes, numbers, lists, "
        "dicts, dates); map other values to one of those in the strategy",
    )


def _looks_tagged(value: dict[Any, Any]) -> bool:
    return len(value) == 1 and next(iter(value)).startswith("$")


def decode(data: object) -> object:
    """The value :func:`encode` produced ``data`` from."""
    if isinstance(data, list):
        return [decode(item) for item in data]
    if not isinstance(data, dict):
        return data
    if not _looks_tagged(data):
        return {key: decode(item) for key, item in data.items()}
    ((tag, payload),) = data.items()
    try:
        return _decode_tag(tag, payload)
    except (ValueError, TypeError) as exc:
        msg = f"saved fuzz input has a malformed {tag!r} value {payload!r:.80}: {exc}"
        raise CodecError(
            msg, hint="the file was edited by hand or damaged; re-save it from a fuzz run"
        ) from None


def _decode_tag(tag: str, payload: object) -> object:
    if tag == "$dict":
        if not isinstance(payload, list):
            msg = "expected a list of [key, value] pairs"
            raise TypeError(msg)
        return {decode(key): decode(item) for key, item in payload}
    if not isinstance(payload, str):
        msg = "expected a string"
        raise TypeError(msg)
    if tag == "$bytes":
        return base64.b64decode(payload, validate=True)
    if tag == "$float":
        number = float(payload)
        if math.isfinite(number):
            msg = "only nan, inf and -inf are tagged"
            raise ValueError(msg)
        return number
    if tag == "$datetime":
        return dt.datetime.fromisoformat(payload)
    if tag == "$date":
        return dt.date.fromisoformat(payload)
    if tag == "$time":
        return dt.time.fromisoformat(payload)
    msg = f"unknown tag; known tags: {', '.join(_TAGS)}"
    raise ValueError(msg)


def canonical(value: object) -> str:
    """One JSON text per input value: what the corpus deduplicates on."""
    return json.dumps(encode(value), sort_keys=True, separators=(",", ":"))
