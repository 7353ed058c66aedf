"""Every lane's payload type, in one place: the schema generator and the report read it.

A lane that is not listed here yet keeps its hand-written part of
``lanes/envelope.schema.json`` (carried over by the generator) until its
payload type exists.
"""

from __future__ import annotations

from typing import Final

from lanes.payloads.affected import AffectedData
from lanes.payloads.bench import BenchData
from lanes.payloads.timing import TimingData

__all__ = ["LANE_PAYLOADS"]

# lane name -> its payload type. Adding a lane's type is adding one line.
LANE_PAYLOADS: Final[dict[str, object]] = {
    "affected": AffectedData,
    "bench": BenchData,
    "timing": TimingData,
}
