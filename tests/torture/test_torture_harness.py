"""The seeded harness: determinism, contention, planted bugs, the determinism check."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.governor.context import StatePaths
from lanes.governor.state import lock
from lanes.torture.invariants import check_overlap
from lanes.torture.kernel import Decision, GovernorKernel
from lanes.torture.planted import PLANTED
from lanes.torture.program import ClientSpec, generate_programs, parse_op
from lanes.torture.scheduler import PCTScheduler, RandomScheduler, pct_bound
from lanes.torture.sweep import (
    Settings,
    Variant,
    contention_scenario,
    run_seed,
    sweep,
)
from lanes.torture.world import EPOCH, Client, World

if TYPE_CHECKING:
    from lanes.governor.state.env import Environment
    from lanes.torture.harness import RunResult

TTL = 1800
SMALL = Settings(clients=4, ops=20, scheduler="random", ttl=TTL)


def _governor() -> Variant:
    return Variant("governor", ttl=TTL)


def test_same_seed_same_signature_outcome_and_profile() -> None:
    variant = _governor()
    first = run_seed(7, SMALL, variant)
    second = run_seed(7, SMALL, variant)
    assert first.signature == second.signature
    assert first.outcome == second.outcome == "ok"
    assert first.counters.profile() == second.counters.profile()
    assert first.choices == second.choices


def test_different_seeds_take_different_paths() -> None:
    variant = _governor()
    signatures = {run_seed(seed, SMALL, variant).signature for seed in range(4)}
    assert len(signatures) == 4


@pytest.mark.parametrize("scheduler", ["random", "pct"])
def test_real_governor_keeps_every_invariant_on_a_small_sweep(scheduler: str) -> None:
    settings = Settings(clients=3, ops=20, scheduler=scheduler, ttl=TTL)
    report = sweep(settings, range(6), variant=_governor())
    assert report.failures == []
    assert report.mismatches == []
    assert report.executions == 12
    assert report.totals["acquired"] > 0


def test_two_client_scenario_drives_contention_deterministically() -> None:
    result = contention_scenario(TTL)
    assert result.outcome == "ok"
    assert result.counters.held_blocks == 1
    assert result.counters.acquired == 2
    blocked_at = next(s.step for s in result.trace if s.client == 1 and s.label.startswith("flock"))
    assert any(
        s.client == 0 and s.label == "exit run" and s.step > blocked_at for s in result.trace
    )
    assert contention_scenario(TTL).signature == result.signature


def _first_detection(name: str, scheduler: str, seeds: range) -> RunResult | None:
    variant = Variant(name, ttl=TTL)
    settings = Settings(clients=4, ops=40, scheduler=scheduler, ttl=TTL)
    for seed in seeds:
        result = run_seed(seed, settings, variant)
        if result.failed:
            return result
    return None


@pytest.mark.parametrize(
    ("bug", "invariant"),
    [
        ("no-dead-owner-check", "liveness"),
        ("no-ttl", "liveness"),
        ("check-then-create", "foreign-lock"),
        ("release-ignores-token", "foreign-lock"),
        ("no-self-reclaim", "liveness"),
        ("ledger-unlocked", "ledger"),
    ],
)
def test_each_planted_bug_is_caught_by_a_small_random_sweep(bug: str, invariant: str) -> None:
    found = _first_detection(bug, "random", range(8))
    assert found is not None, f"{bug} went undetected"
    assert found.violations[0].invariant == invariant


def test_the_planted_bug_list_matches_the_issue() -> None:
    assert set(PLANTED) == {
        "no-dead-owner-check",
        "no-ttl",
        "check-then-create",
        "release-ignores-token",
        "no-self-reclaim",
        "release-after-record",
        "ledger-unlocked",
        # A ledger written in place is seen; a broken guard never hides a holder.
        "ledger-in-place",
        "guardless-ignores-holder",
        # the kernel run lock is a second modelled layer.
        "hook-ignores-runlock",
        "runner-lets-go",
    }


def test_planted_patches_are_undone_after_the_run() -> None:
    before = (lock.acquire, lock.release, lock.owner_dead)
    for name in ("no-self-reclaim", "release-ignores-token", "no-dead-owner-check"):
        run_seed(0, SMALL, Variant(name, ttl=TTL))
    assert (lock.acquire, lock.release, lock.owner_dead) == before


class _Flaky(GovernorKernel):
    """Takes one extra step on its fifth call ever: state that outlives a run,
    which is exactly what the replay comparison exists to catch."""

    calls = 0

    def pre_tool_use(
        self, env: Environment, state_dir: str, client: Client, suite: str, *, force: bool
    ) -> Decision:
        type(self).calls += 1
        if type(self).calls == 5:
            env.read(state_dir + "/stray")
        return super().pre_tool_use(env, state_dir, client, suite, force=force)


def test_sweep_flags_a_run_that_does_not_replay() -> None:
    variant = _governor()
    variant.kernel = _Flaky(ttl=TTL)
    report = sweep(SMALL, range(2), variant=variant)
    assert [m.what for m in report.mismatches] == ["trace signature"]
    assert report.mismatches[0].seed == 0


def test_pct_is_deterministic_and_prefers_one_client() -> None:
    one = PCTScheduler(3, clients=4, steps=100)
    two = PCTScheduler(3, clients=4, steps=100)
    picks = [one.choose([0, 1, 2, 3], step) for step in range(100)]
    assert picks == [two.choose([0, 1, 2, 3], step) for step in range(100)]
    # Between change points one client runs; with depth 3 there are at most 3 phases.
    assert len({p for i, p in enumerate(picks) if i == 0 or picks[i - 1] != p}) <= 3


def test_random_scheduler_only_picks_runnable_clients() -> None:
    scheduler = RandomScheduler(1)
    assert all(scheduler.choose([1, 3], step) in (1, 3) for step in range(50))


def test_pct_bound_is_the_papers_formula() -> None:
    assert pct_bound(4, 10, depth=3) == pytest.approx(1 / (4 * 10**2))


def test_programs_are_a_function_of_the_seed() -> None:
    first = generate_programs(11, clients=3, ops=10, ttl=TTL)
    assert first == generate_programs(11, clients=3, ops=10, ttl=TTL)
    assert first != generate_programs(12, clients=3, ops=10, ttl=TTL)
    assert first[0].host == "h-local"


def _world_with_two_runners(started: tuple[float, float]) -> World:
    paths = StatePaths("state")
    world = World(0, ttl=TTL, paths=paths)
    for index, when in enumerate(started):
        client = Client(index, ClientSpec("h-local", ()))
        client.in_cs = True
        client.cs_started = when
        client.cs_token = f"tok{index}"
        world.clients.append(client)
        world.in_cs.append(client)
    return world


def test_two_unexpired_holders_inside_is_a_mutual_exclusion_violation() -> None:
    world = _world_with_two_runners((EPOCH, EPOCH + 10))
    world.now = EPOCH + 20
    check_overlap(world)
    assert [v.invariant for v in world.violations] == ["mutual-exclusion"]


def test_overlap_after_a_holders_ttl_is_counted_once_not_failed() -> None:
    world = _world_with_two_runners((EPOCH, EPOCH + TTL))
    world.now = EPOCH + TTL + 5
    check_overlap(world)
    check_overlap(world)
    assert world.violations == []
    assert world.counters.ttl_overlaps == 1


def test_the_hostile_filesystem_ends_are_drawn_and_replay() -> None:
    # Torture has operations for a guard that cannot be taken and
    # for a killed hook's leftover temp file; both round-trip as text.
    ends = {
        op.end
        for seed in range(20)
        for spec in generate_programs(seed, clients=4, ops=20, ttl=TTL)
        for op in spec.program
        if op.kind == "cycle"
    }
    assert {"no-guard", "leftover-temp"} <= ends
    for text in ("cycle unit no-guard 5", "cycle slow leftover-temp 9 force"):
        assert parse_op(text).text() == text
