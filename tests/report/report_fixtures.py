"""Real envelopes for the report tests, written by ``lane_run`` itself."""

from __future__ import annotations

import json
from contextlib import suppress
from typing import TYPE_CHECKING

from lanes.config import parse_config
from lanes.envelope import lane_run

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

HOSTILE = "<script>alert('x')</script> | *bold* [link](http://example.invalid) `tick`"


def write_lane(
    root: Path, lane: str, outcome: str, data: Mapping[str, object] | None = None
) -> Path:
    """An envelope for ``lane`` ending in ``outcome``: pass, fail, error or no-verdict."""
    config = parse_config({}, root=root)
    with suppress(RuntimeError), lane_run(lane, config=config, seed=11) as run:
        run.data.update(data or {})
        if outcome == "error":
            msg = f"crashed on {HOSTILE}"
            raise RuntimeError(msg)
        if outcome in ("pass", "fail"):
            run.verdict(passed=outcome == "pass")
    return root / "envelopes" / f"{lane}.json"


def write_invalid(root: Path, name: str = "broken") -> Path:
    """A well-formed envelope with ``result`` removed."""
    path = write_lane(root, name, "pass")
    document = json.loads(path.read_text(encoding="utf-8"))
    del document["result"]
    path.write_text(json.dumps(document), encoding="utf-8")
    return path
