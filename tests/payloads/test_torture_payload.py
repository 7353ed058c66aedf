"""The torture payload's closed sets are the lane's own."""

from __future__ import annotations

import typing

from lanes.payloads.torture import TortureScheduler
from lanes.torture.settings import SCHEDULERS


def test_the_schedulers_of_the_payload_are_the_lanes() -> None:
    # lanes.torture.lane writes the configured scheduler where the type says
    # TortureScheduler (a cast: [tool.lanes.torture] admits only SCHEDULERS).
    assert typing.get_args(TortureScheduler) == SCHEDULERS
