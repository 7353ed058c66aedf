"""The fuzz payload's closed sets are the lane's own."""

from __future__ import annotations

import typing

from lanes.fuzz.watchdog import FAILURE_KINDS
from lanes.payloads.fuzz import FuzzFailureKind


def test_the_failure_kinds_of_the_payload_are_the_watchdogs() -> None:
    # lanes.fuzz.artifacts writes a failing outcome's kind where the type says
    # FuzzFailureKind (a cast: the watchdog's OutcomeKind also has "ok" and "rejected").
    assert set(typing.get_args(FuzzFailureKind)) == FAILURE_KINDS
