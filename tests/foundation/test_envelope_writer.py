"""``lane_run`` in-process: what lands in the envelope, and data it cannot hold.

Lane names here ("probe", "x") have no `data` schema of their own, so any
payload validates; the real lanes' shapes are tested with those lanes.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

from lanes.config import parse_config
from lanes.envelope import SCHEMA_VERSION, Envelope, lane_run, read_envelope, validate_envelope
from lanes.errors import EnvelopeError, StateError


@pytest.fixture(autouse=True)
def _no_ci_group(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_RUN_ID", "GITHUB_RUN_ATTEMPT", "LANES_GROUP_ID"):
        monkeypatch.delenv(name, raising=False)


def _read(path: Path) -> dict[str, Any]:
    document = read_envelope(path)
    assert validate_envelope(document) == []
    return document


def test_fields_and_round_trip(tmp_path: Path) -> None:
    config = parse_config({"torture": {"runs": 3}}, root=tmp_path)
    with lane_run(
        "probe", config=config, sections=("torture",), seed={"start": 5, "count": 3}
    ) as run:
        run.tools["mutmut"] = "3.8.1"
        run.data["runs"] = 3
        run.verdict(passed=True)
    document = _read(tmp_path / "envelopes" / "probe.json")
    assert document["format"] == "lanekit.envelope"
    assert document["schema_version"] == SCHEMA_VERSION
    assert document["seed"] == {"start": 5, "count": 3}
    assert document["config_hash"] == config.section_hash("torture")
    assert document["generated_by"]["tools"] == {"mutmut": "3.8.1"}
    # Without a CI run id, an envelope is its own group.
    assert document["group_id"] == document["run_id"]
    assert Envelope.from_dict(document).to_dict() == document


def test_config_hash_follows_only_the_named_sections(tmp_path: Path) -> None:
    def digest(raw: dict[str, Any]) -> str:
        config = parse_config(raw, root=tmp_path)
        with lane_run("probe", config=config, sections=("torture",)) as run:
            run.verdict(passed=True)
        return str(_read(tmp_path / "envelopes" / "probe.json")["config_hash"])

    base = digest({})
    assert digest({"governor": {"max_full": 1}}) == base
    assert digest({"torture": {"runs": 7}}) != base


def test_group_id_from_github(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_RUN_ID", "123")
    monkeypatch.setenv("GITHUB_RUN_ATTEMPT", "2")
    with lane_run("x", config=parse_config({}, root=tmp_path)) as run:
        run.verdict(passed=True)
    assert _read(tmp_path / "envelopes" / "x.json")["group_id"] == "github-123-2"


def test_explicit_path(tmp_path: Path) -> None:
    # A lane without a data schema: this is about the path, not any lane's payload.
    target = tmp_path / "shards" / "probe-1.json"
    with lane_run("probe", config=parse_config({}, root=tmp_path), path=target) as run:
        run.verdict(passed=False)
    assert _read(target)["result"] == "fail"
    assert not (tmp_path / "envelopes").exists()


def _lane(tmp_path: Path, *, data: dict[str, Any], error: BaseException | None = None) -> None:
    with lane_run("x", config=parse_config({}, root=tmp_path)) as run:
        run.data.update(data)
        if error is not None:
            raise error
        run.verdict(passed=True)


def test_lanes_error_message_without_hint_noise(tmp_path: Path) -> None:
    with pytest.raises(StateError):
        _lane(tmp_path, data={}, error=StateError("baseline unreadable", hint="re-record it"))
    error = _read(tmp_path / "envelopes" / "x.json")["error"]
    assert error == {"type": "StateError", "message": "baseline unreadable"}


def test_bare_exception_gets_a_message(tmp_path: Path) -> None:
    with pytest.raises(AssertionError):
        _lane(tmp_path, data={}, error=AssertionError())
    error = _read(tmp_path / "envelopes" / "x.json")["error"]
    assert error == {"type": "AssertionError", "message": "AssertionError raised without a message"}


@pytest.mark.parametrize("bad", [math.nan, math.inf, Path("x"), {1, 2}], ids=repr)
def test_data_the_envelope_cannot_hold(tmp_path: Path, bad: object) -> None:
    # Regression: a Path in `data` raised TypeError before anything was
    # written (no envelope at all), and NaN was written as the bare token
    # `NaN`, which is not JSON for jq, browsers or any strict parser.
    target = tmp_path / "envelopes" / "x.json"
    with pytest.raises(EnvelopeError, match=r"data\['bad'\]") as raised:
        _lane(tmp_path, data={"good": 1, "bad": bad})
    assert raised.value.hint
    text = target.read_text(encoding="utf-8")
    json.loads(text, parse_constant=lambda token: pytest.fail(f"non-JSON token {token}"))
    document = _read(target)
    assert (document["stage"], document["result"]) == ("error", "fail")
    assert document["error"]["type"] == "EnvelopeError"
    assert "data['bad']" in document["error"]["message"]


def test_data_nested_too_deeply_still_leaves_an_envelope(tmp_path: Path) -> None:
    deep: list[Any] = []
    for _ in range(sys.getrecursionlimit()):
        deep = [deep]
    with pytest.raises(EnvelopeError, match=r"data\['deep'\]"):
        _lane(tmp_path, data={"deep": deep})
    assert _read(tmp_path / "envelopes" / "x.json")["stage"] == "error"


def test_unholdable_data_keeps_the_original_error(tmp_path: Path) -> None:
    with pytest.raises(KeyError):
        _lane(tmp_path, data={"bad": math.nan}, error=KeyError("missing"))
    document = _read(tmp_path / "envelopes" / "x.json")
    assert document["error"]["type"] == "KeyError"
    assert "data['bad']" in document["data"]["dropped"]


def test_deeply_nested_json_is_an_envelope_error(tmp_path: Path) -> None:
    # Regression (found by the fuzz lane): json.loads raised RecursionError,
    # which escaped read_envelope untyped and crashed `lanes envelope validate`.
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(EnvelopeError, match="nested too deeply") as raised:
        read_envelope(path)
    assert raised.value.hint


def test_a_symlinked_envelope_dir_never_carries_the_envelope_out_of_the_project(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "envelopes").symlink_to(outside, target_is_directory=True)
    config = parse_config({}, root=project)
    with (
        pytest.raises(EnvelopeError, match="outside the project") as caught,
        lane_run("torture", config=config) as run,
    ):
        run.verdict(passed=True)
    assert "symlink" in caught.value.hint
    assert list(outside.iterdir()) == []
