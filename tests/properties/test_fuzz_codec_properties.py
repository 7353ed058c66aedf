"""Saved fuzz inputs come back exactly as generated, and are strict JSON on disk."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from lanes.fuzz._codec import canonical, decode, encode
from lanes.strategies.documents import json_values
from lanes.strategies.tables import toml_values

inputs = st.one_of(
    json_values(),
    toml_values(),
    st.binary(max_size=40),
    st.lists(st.binary(max_size=4), max_size=3),
)


@given(inputs)
def test_decode_inverts_encode(value: object) -> None:
    # canonical() compares NaN equal to itself, which == does not.
    assert canonical(decode(encode(value))) == canonical(value)
    assert type(decode(encode(value))) is type(value)


@given(inputs)
def test_encoded_inputs_are_strict_json(value: object) -> None:
    text = json.dumps(encode(value), allow_nan=False)
    assert canonical(decode(json.loads(text))) == canonical(value)


@given(
    st.dictionaries(
        st.sampled_from(("$bytes", "$dict", "$x")), json_values(max_leaves=2), max_size=1
    )
)
def test_dicts_that_look_like_tags_are_not_mistaken_for_them(value: dict[str, object]) -> None:
    assert canonical(decode(encode(value))) == canonical(value)
