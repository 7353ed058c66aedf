"""The envelope's limits and its reader: what the writer accepts the reader reads, and no more.

The writer refuses data nested past ``MAX_DATA_DEPTH``; the reader refuses a
file nested deeper than any envelope the writer could have written, or larger
than ``MAX_ENVELOPE_BYTES`` (without reading it), and says why each way.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

import pytest

from lanes.config import parse_config
from lanes.envelope import (
    MAX_DATA_DEPTH,
    lane_run,
    payload_problems,
    read_envelope,
    validate_envelope,
)
from lanes.errors import EnvelopeError, LanesError

if TYPE_CHECKING:
    from pathlib import Path

READ_HINT = (
    "the file is not an envelope (not a regular UTF-8 JSON object of a sane size); "
    "re-run the lane that wrote it"
)


def _nested(levels: int) -> list[Any]:
    """``levels`` lists, one inside the other."""
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


def test_data_nested_to_the_limit_is_written_and_read_back(tmp_path: Path) -> None:
    assert MAX_DATA_DEPTH == 100  # the documented limit, part of the envelope contract
    with lane_run("x", config=parse_config({}, root=tmp_path)) as run:
        run.data["deep"] = _nested(MAX_DATA_DEPTH)
        run.verdict(passed=True)
    document = read_envelope(tmp_path / "envelopes" / "x.json")
    assert document["data"]["deep"] == _nested(MAX_DATA_DEPTH)
    assert document["result"] == "pass"


def test_data_one_level_past_the_limit_is_dropped_and_named(tmp_path: Path) -> None:
    config = parse_config({}, root=tmp_path)
    with pytest.raises(EnvelopeError) as caught, lane_run("x", config=config) as run:
        run.data["deep"] = _nested(MAX_DATA_DEPTH + 1)
    assert caught.value.message == "lane 'x': data['deep'] is nested deeper than 100 levels"


def test_a_file_nested_deeper_than_any_envelope_is_refused(tmp_path: Path) -> None:
    # The envelope and its data are two levels; a value one past the writer's limit is refused.
    path = tmp_path / "deep.json"
    deep = json.dumps({"data": {"deep": _nested(MAX_DATA_DEPTH + 1)}})
    path.write_text(deep, encoding="utf-8")
    with pytest.raises(EnvelopeError) as caught:
        read_envelope(path)
    assert caught.value.message == (
        f"envelope {str(path)!r} is not valid JSON (nested too deeply: more than 102 levels)"
    )
    assert caught.value.hint == READ_HINT


def test_a_file_past_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    limit = 64 * 1024 * 1024  # 64 MiB: far above any envelope a lane writes
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:
        handle.truncate(limit + 1)  # sparse: no disk, and nothing is read
    with pytest.raises(EnvelopeError) as caught:
        read_envelope(path)
    assert f"is {limit + 1} bytes, more than {limit}" in caught.value.message
    assert caught.value.hint == READ_HINT
    # At the limit itself the file is read: it is refused for what it holds.
    os.truncate(path, limit)
    with pytest.raises(EnvelopeError, match="is not valid JSON"):
        read_envelope(path)


def test_a_missing_envelope_says_to_run_the_lane(tmp_path: Path) -> None:
    path = tmp_path / "envelopes" / "slow.json"
    with pytest.raises(EnvelopeError) as caught:
        read_envelope(path)
    assert caught.value.message == f"envelope {str(path)!r} does not exist"
    assert caught.value.hint == "run the lane first (nox -s <lane>), or check the path"


def test_a_symlink_the_user_names_is_followed(tmp_path: Path) -> None:
    with lane_run("x", config=parse_config({}, root=tmp_path)) as run:
        run.verdict(passed=True)
    link = tmp_path / "latest.json"
    link.symlink_to(tmp_path / "envelopes" / "x.json")
    assert read_envelope(link)["lane"] == "x"


def test_a_problem_inside_a_list_is_located_by_its_index() -> None:
    # The retry lane's data: its pytest arguments are strings, the second is not.
    problems = [str(problem) for problem in payload_problems("retry", {"pytest_args": ["-x", 5]})]
    # Sorted by where they are: the document's own first, then inside it.
    assert problems[0] == "$: 'because' is a required property"
    assert problems[-1] == "$.pytest_args[1]: 5 is not of type 'string'"
    assert payload_problems("no-such-lane", {"pytest_args": 5}) == []


def test_validating_without_jsonschema_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As on a machine where only the governor's dependencies are installed.
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    with pytest.raises(LanesError) as caught:
        validate_envelope({})
    assert caught.value.message == (
        "validating envelopes needs the jsonschema package, which is not installed"
    )
    assert caught.value.hint == (
        "install the lane dependencies: python3 -m pip install 'lanekit[lanes]'"
    )
