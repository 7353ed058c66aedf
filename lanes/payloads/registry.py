"""Every lane's payload type, in one place: the schema generator and the report read it.

A lane listed here gets ``$defs.<lane>`` in ``lanes/envelope.schema.json`` and
its envelopes are checked against it; a lane missing from it (a user's own
lane name) is free-form and shown by the report's generic view.
"""

from __future__ import annotations

from typing import Final

from lanes.payloads.affected import AffectedData
from lanes.payloads.bench import BenchData
from lanes.payloads.fuzz import FuzzData
from lanes.payloads.mutation import MutationData
from lanes.payloads.retry import RetryData
from lanes.payloads.slow import SlowData
from lanes.payloads.timing import TimingData
from lanes.payloads.torture import TortureData

__all__ = ["LANE_PAYLOADS"]

# lane name -> its payload type. Adding a lane's type is adding one line.
LANE_PAYLOADS: Final[dict[str, object]] = {
    "affected": AffectedData,
    "bench": BenchData,
    "fuzz": FuzzData,
    "mutation": MutationData,
    "retry": RetryData,
    "slow": SlowData,
    "timing": TimingData,
    "torture": TortureData,
}
