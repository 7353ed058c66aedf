"""The slow payload's closed sets are the ratchet's own."""

from __future__ import annotations

import typing

from lanes.payloads.slow import SlowPinState
from lanes.slow.verdicts import PinState


def test_the_pin_states_of_the_payload_are_the_ratchets() -> None:
    # lanes.slow.report writes str(PinState) where the type says SlowPinState
    # (a cast: the plugin names payload types only under TYPE_CHECKING).
    assert sorted(typing.get_args(SlowPinState)) == sorted(state.value for state in PinState)
