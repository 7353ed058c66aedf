"""The pin file: strict loading, errors naming file + entry + fix, atomic sorted edits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from lanes.config import parse_config
from lanes.errors import ConfigError, UsageError
from lanes.slow.pins import PINS_FORMAT, add_pin, load_pins, parse_pins, remove_pin

if TYPE_CHECKING:
    from lanes.slow.settings import SlowConfig


@pytest.fixture
def slow() -> SlowConfig:
    return parse_config({"slow": {"tiers": {"unit": {"budget": 1}}}}, root=Path("/p")).slow


def _entry(**overrides: object) -> dict[str, object]:
    entry: dict[str, object] = {
        "nodeid": "tests/test_a.py::test_x",
        "tier": "unit",
        "ceiling": 3.0,
        "reason": "real database",
        "tracking": "#7",
        "added": "2026-01-02",
    }
    entry.update(overrides)
    return entry


def _doc(*entries: object) -> str:
    return json.dumps({"format": PINS_FORMAT, "version": 1, "pins": list(entries)})


def test_missing_file_is_an_empty_list(tmp_path: Path) -> None:
    assert len(load_pins(tmp_path / "absent.json")) == 0


def test_a_pin_without_reason_loads_so_that_check_can_judge_it() -> None:
    pins = parse_pins(_doc(_entry(reason="", tracking="")), source="p.json")
    pin = pins.get("tests/test_a.py::test_x")
    assert pin is not None
    assert not pin.justified


@pytest.mark.parametrize(
    ("text", "message", "hint"),
    [
        ("{not json", "p.json is not valid JSON", "fix the JSON"),
        ("[" * 100_000, "p.json is not valid JSON", "fix the JSON"),  # past the decoder's depth
        ("[]", "must hold a JSON object", '"format"'),
        (json.dumps({"format": "x", "version": 1, "pins": []}), "has format 'x'", PINS_FORMAT),
        (
            json.dumps({"format": PINS_FORMAT, "version": 1, "pins": {}}),
            "pins must be a list",
            "JSON list",
        ),
        (
            _doc(_entry(ceilling=2)),
            "entry 0 ('tests/test_a.py::test_x'): unknown key 'ceilling' — did you mean 'ceiling'?",
            "exactly these keys",
        ),
        (
            _doc(_entry(ceiling=-1)),
            "entry 0 ('tests/test_a.py::test_x'): ceiling must be a finite number of seconds > 0, got -1",
            "e.g. 4.5",
        ),
        (_doc(_entry(ceiling=True)), "ceiling must be", "seconds"),
        (
            _doc(_entry(added="yesterday")),
            "added must be a date YYYY-MM-DD, got 'yesterday'",
            "2026-01-31",
        ),
        (
            _doc(_entry(), "oops"),
            "entry 1: must be a JSON object, got str 'oops'",
            "lanes slow pin",
        ),
        (
            _doc({"nodeid": "t.py::x", "tier": "unit"}),
            "entry 0 ('t.py::x'): is missing ceiling, added",
            "lanes slow pin",
        ),
        (
            _doc(_entry(), _entry()),
            "entry 1 ('tests/test_a.py::test_x'): pins the same test a second time",
            "one entry",
        ),
        (
            _doc(_entry(tier="nightly")),
            "entry 0 ('tests/test_a.py::test_x'): tier 'nightly' is not configured (tiers: unit)",
            "tool.lanes.slow.tiers.nightly",
        ),
    ],
)
def test_malformed_file_names_file_entry_and_fix(
    slow: SlowConfig, text: str, message: str, hint: str
) -> None:
    with pytest.raises(ConfigError) as info:
        parse_pins(text, source="p.json", slow=slow)
    assert message in info.value.message
    assert info.value.message.startswith("pin file p.json")
    assert hint in info.value.hint


def test_pin_and_unpin_keep_the_file_sorted_and_valid(tmp_path: Path, slow: SlowConfig) -> None:
    path = tmp_path / "baselines" / "slow-tests.json"
    for nodeid in ("tests/b.py::t", "tests/a.py::t"):
        add_pin(
            path,
            slow=slow,
            nodeid=nodeid,
            tier="unit",
            ceiling=2.0,
            reason="sleeps on purpose",
            tracking="#1",
        )
    document = json.loads(path.read_text())
    assert [p["nodeid"] for p in document["pins"]] == ["tests/a.py::t", "tests/b.py::t"]
    first_added = document["pins"][0]["added"]

    pin, previous = add_pin(
        path,
        slow=slow,
        nodeid="tests/a.py::t",
        tier="unit",
        ceiling=4.0,
        reason="sleeps longer now",
        tracking="#2",
    )
    assert previous is not None
    assert (pin.ceiling, pin.added) == (4.0, first_added)  # re-pinning keeps the date

    remove_pin(path, slow=slow, nodeid="tests/a.py::t")
    assert list(load_pins(path, slow=slow).pins) == ["tests/b.py::t"]
    assert list(tmp_path.joinpath("baselines").iterdir()) == [path]  # no temp or lock droppings


def test_unpin_of_an_unknown_test_guesses(tmp_path: Path, slow: SlowConfig) -> None:
    path = tmp_path / "slow-tests.json"
    add_pin(
        path,
        slow=slow,
        nodeid="tests/a.py::test_one",
        tier="unit",
        ceiling=2,
        reason="sleeps on purpose",
        tracking="#1",
    )
    with pytest.raises(UsageError, match=r"did you mean 'tests/a.py::test_one'\?"):
        remove_pin(path, slow=slow, nodeid="tests/a.py::test_on")


@pytest.mark.parametrize(
    ("field", "value"), [("reason", " "), ("tracking", ""), ("tier", "nightly"), ("ceiling", 0.0)]
)
def test_pin_refuses_bad_input(tmp_path: Path, slow: SlowConfig, field: str, value: object) -> None:
    kwargs: dict[str, object] = {
        "nodeid": "t.py::x",
        "tier": "unit",
        "ceiling": 1.0,
        "reason": "sleeps on purpose",
        "tracking": "#1",
    }
    kwargs[field] = value
    with pytest.raises(UsageError) as info:
        add_pin(tmp_path / "p.json", slow=slow, **kwargs)  # type: ignore[arg-type]  # parametrised kwargs
    assert info.value.hint
    assert not (tmp_path / "p.json").exists()
