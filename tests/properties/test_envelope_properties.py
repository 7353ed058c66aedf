"""Lane envelopes survive to_dict/from_dict and JSON unchanged, and what lane_run writes validates."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lanes.envelope import Envelope, Result, Stage, Subject, validate_envelope
from lanes.payloads.envelope import ErrorDocument, SeedRange

_hex = "0123456789abcdef"
_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)
_subjects = st.builds(
    Subject,
    commit=st.none() | st.text(_hex, min_size=40, max_size=40),
    dirty=st.booleans(),
    branch=st.none() | st.text(max_size=20),
)
_seeds: st.SearchStrategy[int | SeedRange | None] = (
    st.none()
    | st.integers()
    | st.builds(SeedRange, start=st.integers(), count=st.integers(0, 10**6))
)
# lane_run writes the current time; four-digit years are all the schema allows.
_timestamps = st.datetimes(
    min_value=dt.datetime(1970, 1, 1), max_value=dt.datetime(9999, 1, 1)
).map(lambda moment: moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z")


@st.composite
def envelopes(draw: st.DrawFn) -> Envelope:
    stages: tuple[Stage, ...] = ("complete", "error")
    results: tuple[Result, ...] = ("pass", "fail")
    stage = draw(st.sampled_from(stages))
    error: ErrorDocument | None = (
        None
        if stage == "complete"
        else {"type": draw(st.text(min_size=1, max_size=12)), "message": draw(st.text())}
    )
    return Envelope(
        # "x-" lanes: no lane of ours, so `data` is free-form under the schema.
        lane="x-" + draw(st.text("abcdefghij0123456789_-", max_size=8)),
        subject=draw(_subjects),
        config_hash="sha256:" + draw(st.text(_hex, min_size=64, max_size=64)),
        started_at=draw(_timestamps),
        duration_ms=draw(st.integers(0, 10**10)),
        result="fail" if stage == "error" else draw(st.sampled_from(results)),
        stage=stage,
        seed=draw(_seeds),
        error=error,
        data=draw(st.dictionaries(st.text(max_size=8), _json_values, max_size=4)),
        tools=draw(
            st.dictionaries(st.text(min_size=1, max_size=8), st.text(max_size=8), max_size=3)
        ),
        run_id=str(draw(st.uuids())),
        group_id=draw(st.text(min_size=1, max_size=20)),
    )


@given(envelopes())
def test_dict_round_trip(envelope: Envelope) -> None:
    document = envelope.to_dict()
    assert Envelope.from_dict(document).to_dict() == document


@given(envelopes())
def test_json_round_trip(envelope: Envelope) -> None:
    document = envelope.to_dict()
    text = json.dumps(document, allow_nan=False)
    again: dict[str, Any] = json.loads(text)
    assert again == document
    assert Envelope.from_dict(again).to_dict() == document


# Schema validation costs tens of milliseconds per document: fewer, still varied, examples.
@settings(max_examples=10)
@given(envelopes())
def test_every_well_formed_envelope_validates(envelope: Envelope) -> None:
    assert validate_envelope(envelope.to_dict()) == []
