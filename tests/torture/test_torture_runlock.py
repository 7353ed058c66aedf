"""The torture lane's second lock layer: the runner plugin's kernel run lock.

Governed pytest runs (``plugin`` cycles) take the real
:mod:`lanes.governor.state.runlock` code over the modelled descriptors and
flock; hook-only runs take the JSON lock. These tests force the interleavings
where the kernel lock is all that keeps two heavy runs apart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.errors import UsageError
from lanes.governor.state import runlock
from lanes.torture.harness import run_clients
from lanes.torture.program import HOSTS, ClientSpec, generate_programs, parse_op
from lanes.torture.sweep import Settings, Variant, run_seed

if TYPE_CHECKING:
    from collections.abc import Sequence

    from lanes.torture.harness import RunResult
    from lanes.torture.world import World

TTL = 1800


class _FirstInsideThenSecond:
    """Client 0 until it is inside its run, then client 1 until its program
    is over, then whoever can move."""

    def __init__(self) -> None:
        self.world: World | None = None
        self.second_started = False

    def choose(self, runnable: Sequence[int], step: int) -> int:
        del step
        world = self.world
        assert world is not None
        if world.clients[0].in_cs:
            self.second_started = True
        wanted = 1 if self.second_started and not world.clients[1].finished else 0
        return wanted if wanted in runnable else runnable[0]


class _InOrder:
    """The lowest runnable client: client 0's program runs to its end first."""

    world: World | None = None

    def choose(self, runnable: Sequence[int], step: int) -> int:
        del step
        return min(runnable)


def _scenario(variant: str, first: str, second: str, *, in_order: bool = False) -> RunResult:
    """Client 0 runs ``first``; client 1 starts ``second`` once 0 is inside
    (or, ``in_order``, once 0 is done)."""
    specs = (
        ClientSpec(HOSTS[0], (parse_op(first),)),
        ClientSpec(HOSTS[0], (parse_op(second),)),
    )
    scheduler: _FirstInsideThenSecond | _InOrder = (
        _InOrder() if in_order else _FirstInsideThenSecond()
    )
    chosen = Variant(variant, ttl=TTL)

    def bind(world: World) -> None:
        scheduler.world = world

    return run_clients(
        0,
        specs,
        ttl=TTL,
        kernel=chosen.kernel,
        scheduler=scheduler,
        make_env=chosen.env,
        observe=bind,
    )


def _entered(result: RunResult, client: int) -> bool:
    return any(s.client == client and s.label == "enter run" for s in result.trace)


# A governed pytest longer than lock_ttl: its JSON lock has lapsed by the
# time client 1 asks, so only the kernel lock still says "busy".
LONG_RUN = f"cycle unit pass {TTL + 200} plugin"


def test_a_hook_only_run_is_refused_while_a_long_pytest_holds_the_kernel_lock() -> None:
    result = _scenario("governor", LONG_RUN, "cycle slow pass 30")
    assert result.outcome == "ok"
    assert result.counters.runner_locks == 1
    assert result.counters.held_blocks == 1
    assert not _entered(result, 1)
    # The refusal came from the hook's probe of the kernel lock (a shared flock).
    assert any(s.client == 1 and s.label == "flock-sh run-flock" for s in result.trace)


def test_the_hook_ignoring_the_kernel_lock_is_a_mutual_exclusion_violation() -> None:
    result = _scenario("hook-ignores-runlock", LONG_RUN, "cycle slow pass 30")
    assert result.violations, "the planted bug went unseen"
    assert result.violations[0].invariant == "mutual-exclusion"
    assert "kernel run lock" in result.violations[0].message


def test_a_second_governed_pytest_is_refused_by_the_kernel_lock_with_exit_8() -> None:
    result = _scenario("governor", LONG_RUN, "cycle slow pass 30 plugin")
    assert result.outcome == "ok"
    assert not _entered(result, 1)
    # Refused either by the hook's probe or by its own plugin; never let in.
    assert result.counters.held_blocks + result.counters.runner_blocks == 1


def test_a_crashed_pytest_frees_the_kernel_lock_at_once() -> None:
    # Client 0's pytest dies with its agent inside the run: the kernel closes
    # its descriptors (its holder text stays behind); client 1's governed run
    # then takes both locks at once (the JSON lock's owner is provably dead).
    result = _scenario(
        "governor", "cycle unit crash 30 plugin", "cycle slow pass 30 plugin", in_order=True
    )
    assert result.outcome == "ok"
    assert result.counters.crashes == 1
    assert result.counters.runner_locks == 2
    assert result.counters.breaks == {"owner dead": 1}
    assert _entered(result, 1)


def test_the_plugin_letting_go_of_its_lock_is_caught_as_runner_lock() -> None:
    result = _scenario("runner-lets-go", "cycle unit pass 30 plugin", "cycle slow pass 30")
    assert [v.invariant for v in result.violations][:1] == ["runner-lock"]


@pytest.mark.parametrize(
    ("bug", "invariant", "scheduler"),
    [
        ("hook-ignores-runlock", "mutual-exclusion", "random"),
        ("runner-lets-go", "runner-lock", "random"),
    ],
)
def test_each_kernel_lock_bug_is_caught_by_a_small_sweep(
    bug: str, invariant: str, scheduler: str
) -> None:
    settings = Settings(clients=4, ops=40, scheduler=scheduler, ttl=TTL)
    variant = Variant(bug, ttl=TTL)
    found = next((r for seed in range(8) if (r := run_seed(seed, settings, variant)).failed), None)
    assert found is not None, f"{bug} went undetected"
    assert found.violations[0].invariant == invariant


def test_both_layers_contend_in_generated_programs_and_replay() -> None:
    settings = Settings(clients=4, ops=40, scheduler="random", ttl=TTL)
    specs = generate_programs(3, clients=4, ops=40, ttl=TTL)
    kinds = {op.plugin for spec in specs for op in spec.program if op.kind == "cycle"}
    assert kinds == {True, False}
    variant = Variant("governor", ttl=TTL)
    first, second = run_seed(3, settings, variant), run_seed(3, settings, variant)
    assert first.outcome == second.outcome == "ok"
    assert first.signature == second.signature
    assert first.counters.profile() == second.counters.profile()
    assert first.counters.runner_locks > 0


def test_planted_runlock_patches_are_undone_after_the_run() -> None:
    before = (runlock.acquire, runlock.probe)
    settings = Settings(clients=4, ops=10, scheduler="random", ttl=TTL)
    for name in ("hook-ignores-runlock", "runner-lets-go"):
        run_seed(0, settings, Variant(name, ttl=TTL))
    assert (runlock.acquire, runlock.probe) == before


def test_the_plugin_word_round_trips_and_is_checked() -> None:
    op = parse_op("cycle unit pass 20 force plugin")
    assert (op.force, op.plugin) == (True, True)
    assert op.text() == "cycle unit pass 20 force plugin"
    assert parse_op("cycle unit pass 20 plugin").text() == "cycle unit pass 20 plugin"
    with pytest.raises(UsageError, match="'plugin force'"):
        parse_op("cycle unit pass 20 plugin force")
