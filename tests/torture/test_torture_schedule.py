"""Schedule files: shrinking, replay, and the strict reader."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lanes.errors import LanesError
from lanes.torture.program import parse_op
from lanes.torture.schedule import (
    FORMAT,
    Schedule,
    ScheduleError,
    dump_schedule,
    load_schedule,
)
from lanes.torture.shrink import shrink
from lanes.torture.sweep import Settings, Variant, programs, run_schedule, run_seed

TTL = 1800
SETTINGS = Settings(clients=4, ops=40, scheduler="random", ttl=TTL)


def _failing(bug: str = "release-ignores-token") -> tuple[Schedule, Variant]:
    variant = Variant(bug, ttl=TTL)
    for seed in range(8):
        result = run_seed(seed, SETTINGS, variant)
        if result.failed:
            invariant = result.violations[0].invariant
            start = Schedule(
                seed, bug, TTL, invariant, programs(seed, SETTINGS), tuple(result.choices)
            )
            return shrink(start, result, lambda s: run_schedule(s, variant), budget=200), variant
    pytest.fail(f"{bug} was not caught in 8 seeds")


def test_shrunk_schedule_is_smaller_and_still_fails_the_same_way() -> None:
    variant = Variant("release-ignores-token", ttl=TTL)
    original = run_seed(0, SETTINGS, variant)
    assert original.failed
    shrunk, _ = _failing()
    # Dropping ops together with the choices made while running them keeps
    # the other clients aligned: the shrink is large, not cosmetic.
    assert len(shrunk.choices) * 3 < len(original.choices)
    assert shrunk.ops <= 10
    replayed = run_schedule(shrunk)
    assert replayed.violations[0].invariant == shrunk.invariant


def test_schedule_file_round_trips_and_replays_exactly() -> None:
    shrunk, _ = _failing("ledger-unlocked")
    loaded = load_schedule(dump_schedule(shrunk))
    assert loaded == shrunk
    first, second = run_schedule(loaded), run_schedule(loaded)
    assert first.signature == second.signature
    assert first.outcome == second.outcome
    assert first.violations[0].invariant == "ledger"


def _valid() -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": 1,
        "seed": 3,
        "variant": "governor",
        "ttl": TTL,
        "invariant": "liveness",
        "clients": [{"host": "h-local", "program": ["sleep 5"]}],
        "choices": [0, 1],
    }


def test_a_valid_document_loads() -> None:
    schedule = load_schedule(json.dumps(_valid()))
    assert schedule.clients[0].program == (parse_op("sleep 5"),)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda d: d.update(format="something"), "format"),
        (lambda d: d.update(version=2), "version"),
        (lambda d: d.update(version=True), "version"),
        (lambda d: d.pop("choices"), "missing 'choices'"),
        (lambda d: d.update(extra=1), "unknown key"),
        (lambda d: d.update(variant="no-such-bug"), "variant"),
        (lambda d: d.update(seed=-1), "seed"),
        (lambda d: d.update(seed=1.5), "seed"),
        (lambda d: d.update(ttl=0), "ttl"),
        (lambda d: d.update(invariant=3), "invariant"),
        (lambda d: d.update(clients=[]), "clients"),
        (lambda d: d.update(clients="x"), "clients"),
        (lambda d: d["clients"][0].update(host="mars"), "host"),
        (lambda d: d["clients"][0].update(program=["fly away"]), "program[0]"),
        (lambda d: d["clients"][0].update(program=["sleep ²"]), "program[0]"),
        (lambda d: d["clients"][0].update(program=[7]), "program[0]"),
        (lambda d: d["clients"][0].pop("program"), "clients[0]"),
        (lambda d: d.update(choices=[0, 2]), "choices[1]"),
        (lambda d: d.update(choices=[False]), "choices[0]"),
        (lambda d: d.update(choices={}), "choices"),
    ],
)
def test_reader_rejects_garbage_with_a_hint(change: Any, needle: str) -> None:
    document = _valid()
    change(document)
    with pytest.raises(ScheduleError) as info:
        load_schedule(json.dumps(document))
    assert needle in info.value.message
    assert info.value.hint.strip()
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("text", ["", "not json", "[]", "null", "[" * 5000, '{"a": 1}'])
def test_reader_rejects_non_schedules(text: str) -> None:
    with pytest.raises(LanesError) as info:
        load_schedule(text)
    assert info.value.hint.strip()


@pytest.mark.parametrize(
    "text",
    [
        "cycle unit pass 20",
        "cycle slow crash 0 force",
        "sleep 300",
        "wait-lock -1",
        "edit d2",
        "commit h1",
        "reuse",
        "record unit fail",
    ],
)
def test_op_text_round_trips(text: str) -> None:
    assert parse_op(text).text() == text
