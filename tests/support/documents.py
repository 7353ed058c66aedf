"""JSON documents the code under test wrote: read them, and check a lane
envelope against the published schema on the way."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from lanes.envelope import validate_envelope

if TYPE_CHECKING:
    from pathlib import Path


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object at ``path`` (anything else fails the test)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(document, dict), document
    return document


def read_envelope(path: Path) -> dict[str, Any]:
    """The lane envelope at ``path``, valid against lanes/envelope.schema.json."""
    document = read_json(path)
    assert validate_envelope(document) == []
    return document
