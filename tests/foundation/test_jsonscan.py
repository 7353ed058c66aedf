"""lanes._jsonscan.loads is json.loads without re: same values, same errors."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lanes._jsonscan import loads

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
_DOCUMENTS = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _same(left: object, right: object) -> bool:
    # NaN != NaN: compare the serialised forms instead.
    return json.dumps(left, sort_keys=True) == json.dumps(right, sort_keys=True)


@given(_DOCUMENTS, st.sampled_from(["", " ", "\n\t ", "\r\n"]))
def test_a_document_decodes_as_json_loads_does(document: object, pad: str) -> None:
    text = pad + json.dumps(document, ensure_ascii=False) + pad
    assert _same(loads(text), json.loads(text))
    assert _same(loads(text.encode()), json.loads(text.encode()))


@given(st.text(max_size=40) | st.binary(max_size=40))
def test_any_input_gives_json_loads_result_or_its_error(text: str | bytes) -> None:
    expected: object = None
    error: Exception | None = None
    try:
        expected = json.loads(text)
    except (ValueError, RecursionError) as exc:
        error = exc
    if error is None:
        assert _same(loads(text), expected)
    else:
        with pytest.raises(type(error)) as caught:
            loads(text)
        assert str(caught.value) == str(error)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1} x',  # extra data
        "",  # no value
        '{"a": }',
        '"\\ud800"',  # a lone surrogate escape is valid JSON
        "\ufeff{}",  # text BOM: json.loads refuses it
        b"\xef\xbb\xbf{}",  # bytes BOM: json.loads accepts it
        '{"a": "x',  # unterminated string
        "NaN",
        "[1, -Infinity]",
        '"\x01"',  # a control character in a string (strict)
        "[" * 100_000,  # deeper than any interpreter decodes
    ],
)
def test_edge_cases_match_json_loads(text: str | bytes) -> None:
    try:
        expected: object = json.loads(text)
    except (ValueError, RecursionError) as exc:
        with pytest.raises(type(exc)):
            loads(text)
    else:
        got = loads(text)
        assert _same(got, expected) or (
            isinstance(got, float) and isinstance(expected, float) and math.isnan(got)
        )


@pytest.mark.integration
def test_decoding_does_not_import_re() -> None:
    code = (
        "import sys\nfrom lanes._jsonscan import loads\n"
        "assert loads(b'{\"a\": [1, 2.5, null, true, \"x\"]}') == {'a': [1, 2.5, None, True, 'x']}\n"
        "print('re' in sys.modules, 'json' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.split() == ["False", "False"]
