"""The ``state-files`` fuzz target: every hostile object at every state path
is answered — fail open or a typed refusal — without blocking (the fuzz lane grows the generator that would have
found a state file that hung the hook)."""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING

import pytest
from hypothesis import given

from lanes.fuzz.state_adapters import check_plant, read_planted_state
from lanes.fuzz.targets import BUILTIN_TARGETS, MalformedInputError
from lanes.strategies.state_files import KINDS, STATE_FILES, planted_state_files

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from lanes.strategies.state_files import Plant


@pytest.fixture(autouse=True)
def _bounded(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> Iterator[None]:
    # A hang is the defect: turn it into a failure instead of a stuck suite.
    monkeypatch.setenv("LANES_FUZZ_SCRATCH", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))  # the adapter points it at its plants
    monkeypatch.setattr("lanes.fuzz.adapters._scratch", None)

    def hung(*_: object) -> None:
        pytest.fail("a state reader blocked on a planted file")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", STATE_FILES)
def test_every_plant_at_every_state_path_is_answered(name: str, kind: str) -> None:
    read_planted_state((name, kind, 3000))


@given(planted_state_files())
def test_generated_plants_are_answered(plant: Plant) -> None:
    read_planted_state(plant)


def test_the_fuzz_lane_has_the_target() -> None:
    [target] = [t for t in BUILTIN_TARGETS if t.name == "state-files"]
    assert not target.may_reject  # any exception is a finding


@pytest.mark.parametrize(
    "value",
    [
        ["/etc/passwd", "text", 1],
        ["../economy.json", "text", 1],
        ["economy.json", "text", 0],
        ["economy.json", "text", 20_001],
        ["economy.json", "mkfs", 1],
        ["economy.json", "text"],
        ["economy.json", "text", True],
        "economy.json",
    ],
)
def test_a_plant_the_strategy_cannot_draw_is_refused(value: object) -> None:
    with pytest.raises(MalformedInputError) as caught:
        read_planted_state(value)  # type: ignore[arg-type]  # a hand-edited corpus entry is any JSON
    assert caught.value.hint


@given(planted_state_files())
def test_every_drawn_plant_passes_the_check_also_as_json_lists(plant: Plant) -> None:
    assert check_plant(list(plant)) == plant


def test_the_check_knows_every_name_and_kind_of_the_strategy() -> None:
    for name in STATE_FILES:
        for kind in KINDS:
            check_plant([name, kind, 1])


def test_a_symlinked_state_dir_in_the_scratch_is_refused(tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "lanekit").mkdir()
    (tmp_path / "state").symlink_to(outside)
    with pytest.raises(MalformedInputError, match="outside the scratch"):
        read_planted_state(("verify-ledger.json", "text", 3))
    assert not (outside / "verify-ledger.json").exists()
