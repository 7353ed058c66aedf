"""Every refusal of the pin file and of ``lanes slow pin``/``unpin``, word for word.

A refused pin file stops the ratchet, so its message is the user's only guide:
it names the file, the entry (by index and node id), what is wrong with the
value received, and a hint with the fix. These tests hold each message and
hint to its full text, and the file's written form to one key per line (a
re-pin is a one-line diff in review). Real files in a temporary directory.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from lanes._atomic import OutsideTreeError
from lanes.config import parse_config
from lanes.errors import ConfigError, StateError, UsageError
from lanes.slow.pins import (
    PINS_FORMAT,
    Pin,
    add_pin,
    dump_pins,
    justification_problems,
    load_pins,
    parse_pins,
    remove_pin,
)

if TYPE_CHECKING:
    from lanes.slow.settings import SlowConfig

NODE = "tests/test_a.py::test_x"
OTHER = "tests/test_b.py::test_y"
WHY = "talks to a real database"


@pytest.fixture
def slow() -> SlowConfig:
    tiers = {"unit": {"budget": 1}, "integration": {"budget": 10}}
    return parse_config({"slow": {"tiers": tiers}}, root=Path("/p")).slow


def _entry(**overrides: object) -> dict[str, object]:
    entry: dict[str, object] = {
        "nodeid": NODE,
        "tier": "unit",
        "ceiling": 3.0,
        "reason": WHY,
        "tracking": "#7",
        "added": "2026-01-02",
    }
    entry.update(overrides)
    return {k: v for k, v in entry.items() if v is not ...}


def _doc(*entries: object, **top: object) -> str:
    return json.dumps({"format": PINS_FORMAT, "version": 1, "pins": list(entries), **top})


def _refusal(text: str, slow: SlowConfig | None) -> tuple[str, str]:
    with pytest.raises(ConfigError) as info:
        parse_pins(text, source="p.json", slow=slow)
    return info.value.message, info.value.hint


HINT_ONE_PIN = (
    'write each pin as {"nodeid": ..., "tier": ..., "ceiling": ..., "reason": ..., '
    '"tracking": ..., "added": ...}, or use `lanes slow pin`'
)
HINT_MISSING = (
    "re-create the pin with `lanes slow unpin NODEID` then "
    "`lanes slow pin NODEID --reason ... --tracking ...`"
)
HINT_CEILING = "set ceiling to the seconds this test may take, e.g. 4.5"


@pytest.mark.parametrize(
    ("entry", "message", "hint"),
    [
        ([1], "entry 0: must be a JSON object, got list [1]", HINT_ONE_PIN),
        (
            _entry(ceilling=2),
            f"entry 0 ('{NODE}'): unknown key 'ceilling' — did you mean 'ceiling'?",
            "a pin has exactly these keys: nodeid, tier, ceiling, reason, tracking, added",
        ),
        (
            _entry(owner="me"),
            f"entry 0 ('{NODE}'): unknown key 'owner'",
            "a pin has exactly these keys: nodeid, tier, ceiling, reason, tracking, added",
        ),
        (_entry(nodeid=..., added=...), "entry 0: is missing nodeid, added", HINT_MISSING),
        # A node id that is no text is not shown as the entry's name.
        (
            _entry(nodeid=5),
            "entry 0: nodeid must be a non-empty string, got 5",
            "set nodeid to the test's node id",
        ),
        (
            _entry(nodeid=" "),
            "entry 0 (' '): nodeid must be a non-empty string, got ' '",
            "set nodeid to the test's node id",
        ),
        (
            _entry(tier=""),
            f"entry 0 ('{NODE}'): tier must be a non-empty string, got ''",
            "set tier to the test's tier name",
        ),
        (
            _entry(reason=3),
            f"entry 0 ('{NODE}'): reason must be a string, got 3",
            "set reason to a short text (why the test is slow / an issue reference)",
        ),
        (
            _entry(tracking=None),
            f"entry 0 ('{NODE}'): tracking must be a string, got None",
            "set tracking to a short text (why the test is slow / an issue reference)",
        ),
        (
            _entry(ceiling=0),
            f"entry 0 ('{NODE}'): ceiling must be a finite number of seconds > 0, got 0",
            HINT_CEILING,
        ),
        (
            _entry(ceiling="3"),
            f"entry 0 ('{NODE}'): ceiling must be a finite number of seconds > 0, got '3'",
            HINT_CEILING,
        ),
        (
            _entry(ceiling=False),
            f"entry 0 ('{NODE}'): ceiling must be a finite number of seconds > 0, got False",
            HINT_CEILING,
        ),
        (
            _entry(added=20260102),
            f"entry 0 ('{NODE}'): added must be a date YYYY-MM-DD, got 20260102",
            'set added to the date the pin was created, e.g. "2026-01-31"',
        ),
    ],
)
def test_a_broken_entry_is_named_with_the_value_and_the_fix(
    slow: SlowConfig, entry: object, message: str, hint: str
) -> None:
    assert _refusal(_doc(entry), slow) == (f"pin file p.json: {message}", hint)


@pytest.mark.parametrize("ceiling", [float("inf"), float("nan")])
def test_a_ceiling_that_is_not_finite_is_refused(slow: SlowConfig, ceiling: float) -> None:
    # json.dumps writes Infinity / NaN, which Python's reader accepts.
    message, _ = _refusal(_doc(_entry(ceiling=ceiling)), slow)
    assert message.startswith(f"pin file p.json: entry 0 ('{NODE}'): ceiling must be a finite")


def test_a_ceiling_under_a_second_is_a_ceiling(slow: SlowConfig) -> None:
    pins = parse_pins(_doc(_entry(ceiling=0.5)), source="p.json", slow=slow)
    assert [p.ceiling for p in pins] == [0.5]


def test_a_pin_without_reason_or_tracking_loads_with_empty_ones(slow: SlowConfig) -> None:
    pins = parse_pins(_doc(_entry(reason=..., tracking=...)), source="p.json", slow=slow)
    assert list(pins) == [Pin(NODE, "unit", 3.0, "", "", "2026-01-02")]
    assert pins.source == "p.json"


@pytest.mark.parametrize(
    ("text", "message", "hint"),
    [
        (
            "{not json",
            (
                "pin file p.json is not valid JSON: Expecting property name enclosed in double "
                "quotes: line 1 column 2 (char 1)"
            ),
            (
                f'fix the JSON (the file looks like {{"format": "{PINS_FORMAT}", "version": 1, '
                '"pins": [...]}), or restore the file from git'
            ),
        ),
        (
            json.dumps({"format": PINS_FORMAT, "version": 2, "pins": []}),
            (
                f"pin file p.json has format '{PINS_FORMAT}' version 2; expected "
                f"'{PINS_FORMAT}' version 1"
            ),
            (
                f'start the file with "format": "{PINS_FORMAT}", "version": 1, '
                "or delete it and re-pin with `lanes slow pin`"
            ),
        ),
        (
            _doc(owner="me", notes=[]),
            "pin file p.json has unknown top-level keys ['notes', 'owner']",
            "the top level holds only format, version and pins",
        ),
        (
            json.dumps({"format": PINS_FORMAT, "version": 1, "pins": {}}),
            "pin file p.json: pins must be a list, got dict",
            'write pins as a JSON list: "pins": [ {...}, ... ]',
        ),
        (
            _doc(_entry(), _entry(ceiling=4.0)),
            f"pin file p.json: entry 1 ('{NODE}'): pins the same test a second time",
            "keep one entry per node id (`lanes slow pin` replaces an existing pin)",
        ),
        (
            _doc(_entry(tier="nightly")),
            (
                f"pin file p.json: entry 0 ('{NODE}'): tier 'nightly' is not configured "
                "(tiers: unit, integration)"
            ),
            "set the pin's tier to a configured tier, or add [tool.lanes.slow.tiers.nightly]",
        ),
    ],
)
def test_a_broken_file_is_named_with_what_it_holds_and_the_fix(
    slow: SlowConfig, text: str, message: str, hint: str
) -> None:
    assert _refusal(text, slow) == (message, hint)


def test_a_file_without_a_pins_list_has_no_pins() -> None:
    pins = parse_pins(json.dumps({"format": PINS_FORMAT, "version": 1}), source="p.json")
    assert len(pins) == 0


# -- justification -------------------------------------------------------------


@pytest.mark.parametrize(
    ("reason", "tracking", "problems"),
    [
        (WHY, "#7", []),
        ("database hit", "#7", []),  # 12 characters, two words: enough
        (" ", "", ["reason is empty", "tracking is empty"]),
        (
            "<why it is slow>",
            "<issue>",
            [
                "reason '<why it is slow>' is a placeholder (the text in <...> is to be replaced)",
                "tracking '<issue>' is a placeholder (the text in <...> is to be replaced)",
            ],
        ),
        ("TODO", "TBD", ["reason 'TODO' says nothing", "tracking 'TBD' says nothing"]),
        (
            "slow start",
            "#7",
            [
                (
                    "reason 'slow start' is too short to explain anything (at least 12 "
                    "characters and two words: what makes the test slow)"
                )
            ],
        ),
        (
            "unbelievably",
            "#7",
            [
                (
                    "reason 'unbelievably' is too short to explain anything (at least 12 "
                    "characters and two words: what makes the test slow)"
                )
            ],
        ),
        # A reason already refused is not judged for length as well.
        ("slow start", "", ["tracking is empty"]),
    ],
)
def test_a_pin_is_justified_only_by_a_real_reason_and_tracking(
    reason: str, tracking: str, problems: list[str]
) -> None:
    assert justification_problems(reason, tracking) == problems


# -- the written file ------------------------------------------------------------


def test_the_file_is_written_one_key_per_line_sorted_by_node_id() -> None:
    pins = [
        Pin(OTHER, "unit", 2.0, WHY, "#8", "2026-01-03"),
        Pin(NODE, "integration", 30.0, WHY, "#7", "2026-01-02"),
    ]
    assert dump_pins(pins) == (
        "{\n"
        f'  "format": "{PINS_FORMAT}",\n'
        '  "version": 1,\n'
        '  "pins": [\n'
        "    {\n"
        f'      "nodeid": "{NODE}",\n'
        '      "tier": "integration",\n'
        '      "ceiling": 30.0,\n'
        f'      "reason": "{WHY}",\n'
        '      "tracking": "#7",\n'
        '      "added": "2026-01-02"\n'
        "    },\n"
        "    {\n"
        f'      "nodeid": "{OTHER}",\n'
        '      "tier": "unit",\n'
        '      "ceiling": 2.0,\n'
        f'      "reason": "{WHY}",\n'
        '      "tracking": "#8",\n'
        '      "added": "2026-01-03"\n'
        "    }\n"
        "  ]\n"
        "}\n"
    )


# -- load_pins ---------------------------------------------------------------------


def test_the_pin_list_remembers_its_file(tmp_path: Path, slow: SlowConfig) -> None:
    path = tmp_path / "slow-tests.json"
    assert load_pins(path, slow=slow).source == str(path)
    path.write_text(_doc(_entry()))
    assert load_pins(path, slow=slow).source == str(path)


def test_a_pin_file_behind_a_link_the_user_configured_is_read(
    tmp_path: Path, slow: SlowConfig
) -> None:
    real = tmp_path / "real.json"
    real.write_text(_doc(_entry()))
    link = tmp_path / "slow-tests.json"
    link.symlink_to(real)
    assert [p.nodeid for p in load_pins(link, slow=slow)] == [NODE]


def test_loading_checks_the_tiers_against_the_configuration(
    tmp_path: Path, slow: SlowConfig
) -> None:
    path = tmp_path / "slow-tests.json"
    path.write_text(_doc(_entry(tier="nightly")))
    with pytest.raises(ConfigError, match="tier 'nightly' is not configured"):
        load_pins(path, slow=slow)
    assert [p.tier for p in load_pins(path)] == ["nightly"]  # no configuration: not judged


def test_an_unreadable_pin_file_is_a_state_error_naming_it(
    tmp_path: Path, slow: SlowConfig
) -> None:
    path = tmp_path / "slow-tests.json"
    path.write_bytes(b'{"format": "\xff"}')
    with pytest.raises(StateError) as info:
        load_pins(path, slow=slow)
    assert info.value.message.startswith(f"pin file {str(path)!r} cannot be read: ")
    assert "can't decode byte 0xff" in info.value.message
    assert info.value.hint == "the pin file must be a regular UTF-8 JSON file you can read"


# -- add_pin ---------------------------------------------------------------------------


def _pin(path: Path, slow: SlowConfig, **overrides: Any) -> tuple[Pin, Pin | None]:
    arguments: dict[str, Any] = {
        "nodeid": NODE,
        "tier": "unit",
        "ceiling": 2.0,
        "reason": WHY,
        "tracking": "#7",
        **overrides,
    }
    return add_pin(path, slow=slow, **arguments)


@pytest.mark.parametrize(
    ("overrides", "message", "hint"),
    [
        (
            {"nodeid": " "},
            "NODEID must be a non-empty text, got ' '",
            "pass the test's node id as pytest prints it",
        ),
        (
            {"reason": "TODO", "tracking": ""},
            (
                "this pin would not pass `lanes slow check`: reason 'TODO' says nothing; "
                "tracking is empty"
            ),
            (
                'a pin is a reviewed waiver: say why the test is slow (--reason "spawns a real '
                'server per case") and where speeding it up is tracked (--tracking, e.g. an issue '
                "URL or #123)"
            ),
        ),
        (
            {"tier": "nightly"},
            "--tier 'nightly' is not a configured tier",
            "use one of: unit, integration",
        ),
        (
            {"ceiling": float("nan")},
            "--ceiling must be a finite number of seconds > 0, got nan",
            "pass the seconds the test may take, e.g. --ceiling 4.5",
        ),
        (
            {"ceiling": -1.0},
            "--ceiling must be a finite number of seconds > 0, got -1.0",
            "pass the seconds the test may take, e.g. --ceiling 4.5",
        ),
    ],
)
def test_pin_refuses_with_the_value_and_the_fix(
    tmp_path: Path, slow: SlowConfig, overrides: dict[str, Any], message: str, hint: str
) -> None:
    path = tmp_path / "slow-tests.json"
    with pytest.raises(UsageError) as info:
        _pin(path, slow, **overrides)
    assert (info.value.message, info.value.hint) == (message, hint)
    assert not path.exists()


def test_pin_takes_a_ceiling_under_a_second(tmp_path: Path, slow: SlowConfig) -> None:
    pin, _ = _pin(tmp_path / "slow-tests.json", slow, ceiling=0.5)
    assert pin.ceiling == 0.5


def test_re_pinning_keeps_the_date_the_pin_was_first_added(
    tmp_path: Path, slow: SlowConfig
) -> None:
    path = tmp_path / "slow-tests.json"
    path.write_text(_doc(_entry(added="2020-05-06")))
    pin, previous = _pin(path, slow, ceiling=5.0, reason="  spawns a real server  ")
    assert previous == Pin(NODE, "unit", 3.0, WHY, "#7", "2020-05-06")
    assert pin == Pin(NODE, "unit", 5.0, "spawns a real server", "#7", "2020-05-06")
    assert list(load_pins(path, slow=slow)) == [pin]


@pytest.mark.usefixtures("zone_on_another_date")
def test_a_new_pin_is_dated_by_utc_whatever_the_local_zone(
    tmp_path: Path, slow: SlowConfig
) -> None:
    pin, previous = _pin(tmp_path / "slow-tests.json", slow)
    assert previous is None
    assert pin.added == dt.datetime.now(tz=dt.UTC).date().isoformat()


def test_pin_refuses_a_file_whose_pins_name_an_unconfigured_tier(
    tmp_path: Path, slow: SlowConfig
) -> None:
    path = tmp_path / "slow-tests.json"
    path.write_text(_doc(_entry(nodeid=OTHER, tier="nightly")))
    with pytest.raises(ConfigError, match="tier 'nightly' is not configured"):
        _pin(path, slow)


def _linked_baselines(tmp_path: Path) -> tuple[Path, Path, str]:
    """A project whose baselines/ is a link to another directory of the project."""
    root = tmp_path / "project"
    real = root / "elsewhere"
    real.mkdir(parents=True)
    text = _doc(_entry(nodeid=OTHER))
    (real / "slow-tests.json").write_text(text)
    (root / "baselines").symlink_to(real)
    return root, real / "slow-tests.json", text


def test_pin_inside_the_project_never_writes_through_a_link(
    tmp_path: Path, slow: SlowConfig
) -> None:
    root, target, text = _linked_baselines(tmp_path)
    with pytest.raises(OutsideTreeError):
        _pin(root / "baselines" / "slow-tests.json", slow, root=root)
    assert target.read_text() == text


def test_unpin_inside_the_project_never_writes_through_a_link(
    tmp_path: Path, slow: SlowConfig
) -> None:
    root, target, text = _linked_baselines(tmp_path)
    with pytest.raises(OutsideTreeError):
        remove_pin(root / "baselines" / "slow-tests.json", slow=slow, nodeid=OTHER, root=root)
    assert target.read_text() == text


def test_a_pin_file_outside_the_project_is_refused_with_the_fix(
    tmp_path: Path, slow: SlowConfig
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "baselines").symlink_to(outside)
    path = root / "baselines" / "slow-tests.json"
    for act in (
        lambda: _pin(path, slow, root=root),
        lambda: remove_pin(path, slow=slow, nodeid=NODE, root=root),
    ):
        with pytest.raises(UsageError) as info:
            act()
        assert (info.value.message, info.value.hint) == (
            (
                f"the pin file {str(path)!r} resolves to {str(outside / 'slow-tests.json')!r}, "
                "outside the project"
            ),
            (
                f"replace the symlink on the way to {str(path.parent)!r} with a directory of "
                "the project: pins are a committed file of this repository"
            ),
        )
    assert list(outside.iterdir()) == []


# -- remove_pin --------------------------------------------------------------------------


def test_unpin_of_a_test_that_is_not_pinned_names_the_file_and_guesses(
    tmp_path: Path, slow: SlowConfig
) -> None:
    path = tmp_path / "slow-tests.json"
    path.write_text(_doc(_entry()))
    with pytest.raises(UsageError) as info:
        remove_pin(path, slow=slow, nodeid="tests/test_a.py::test_z")
    assert (info.value.message, info.value.hint) == (
        f"'tests/test_a.py::test_z' is not pinned in {path} — did you mean '{NODE}'?",
        f"pass the node id exactly as it is written in {path}",
    )
    with pytest.raises(UsageError) as info:
        remove_pin(path, slow=slow, nodeid="docs/x")
    assert info.value.message == f"'docs/x' is not pinned in {path}"


def test_unpin_removes_a_damaged_entry_and_keeps_the_others_as_written(
    tmp_path: Path, slow: SlowConfig
) -> None:
    path = tmp_path / "baselines" / "slow-tests.json"
    path.parent.mkdir()
    damaged = _entry(ceiling=...)
    also_damaged = _entry(nodeid="tests/test_c.py::test_z", added="someday")
    entries: list[object] = [also_damaged, damaged, _entry(nodeid=OTHER), "junk"]
    document = {"format": PINS_FORMAT, "version": 1, "pins": entries}
    path.write_text(json.dumps(document))
    removed = remove_pin(path, slow=slow, nodeid=NODE, root=tmp_path)
    # What the damaged entry held; its ceiling was lost with the damage.
    assert removed == Pin(NODE, "unit", 0.0, WHY, "#7", "2026-01-02")
    document["pins"] = [also_damaged, *entries[2:]]
    assert path.read_text() == json.dumps(document, indent=2) + "\n"
    # The other damaged entry still stops a load: the next unpin is its own.
    with pytest.raises(ConfigError, match="added must be a date"):
        load_pins(path, slow=slow)


def test_unpin_removes_an_entry_that_holds_only_its_node_id(
    tmp_path: Path, slow: SlowConfig
) -> None:
    path = tmp_path / "slow-tests.json"
    path.write_text(_doc(_entry(nodeid=OTHER), {"nodeid": NODE}))
    # Without a project root the file's own directory confines the write.
    assert remove_pin(path, slow=slow, nodeid=NODE) == Pin(NODE, "", 0.0, "", "", "")
    assert [p.nodeid for p in load_pins(path, slow=slow)] == [OTHER]


def test_unpin_of_a_damaged_entry_never_writes_through_a_link(
    tmp_path: Path, slow: SlowConfig
) -> None:
    root = tmp_path / "project"
    real = root / "elsewhere"
    real.mkdir(parents=True)
    text = _doc(_entry(ceiling=...))
    (real / "slow-tests.json").write_text(text)
    (root / "baselines").symlink_to(real)
    with pytest.raises(OutsideTreeError):
        remove_pin(root / "baselines" / "slow-tests.json", slow=slow, nodeid=NODE, root=root)
    assert (real / "slow-tests.json").read_text() == text


@pytest.mark.parametrize(
    "document",
    [
        # The damaged entry is another test's: nothing to remove, the damage is the news.
        {"format": PINS_FORMAT, "version": 1, "pins": [_entry(nodeid=OTHER, ceiling=...)]},
        # A pin of a tier no longer configured: the file is damaged, and a node id
        # that is not in it is no reason to hide that behind "not pinned".
        {"format": PINS_FORMAT, "version": 1, "pins": [_entry(nodeid=OTHER, tier="nightly")]},
        # Not a pin file at all, or no list of entries: never edited.
        {"format": "something.else", "version": 1, "pins": [_entry(ceiling=...)]},
        {"format": PINS_FORMAT, "version": 1, "pins": {"nodeid": NODE}},
        "{not json",
    ],
)
def test_unpin_of_a_damaged_file_it_cannot_edit_reports_the_damage(
    tmp_path: Path, slow: SlowConfig, document: object
) -> None:
    path = tmp_path / "slow-tests.json"
    text = document if isinstance(document, str) else json.dumps(document)
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        remove_pin(path, slow=slow, nodeid=NODE)
    assert info.value.message.startswith(f"pin file {path}")
    assert path.read_text() == text
