"""Shrink a failing run to the shortest schedule that still fails the same way.

The size of a schedule is (number of scheduler choices until the violation,
number of operations in the programs), compared in that order. Starting from
the failing run (its choices end at the violation; ops it never started are
dropped), the shrinker repeats until nothing helps or the budget is spent:

1. drop each client's operations one at a time, last first;
2. drop chunks of choices — halves, quarters, ... single choices (the replay
   scheduler falls back to the lowest runnable client where a choice is
   missing or impossible).

A candidate is kept only when its replay violates the *same* invariant and is
smaller; the kept schedule's choices are those its replay actually made, so
the result always replays exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from lanes.torture.harness import RunResult
from lanes.torture.program import ClientSpec
from lanes.torture.schedule import Schedule

__all__ = ["shrink"]

Replay = Callable[[Schedule], RunResult]


def _size(schedule: Schedule) -> tuple[int, int]:
    return (len(schedule.choices), schedule.ops)


def _trimmed(schedule: Schedule, result: RunResult) -> Schedule:
    """The schedule as the run actually used it."""
    clients = tuple(
        ClientSpec(spec.host, spec.program[: result.ops_started[i]])
        for i, spec in enumerate(schedule.clients)
    )
    return replace(schedule, clients=clients, choices=tuple(result.choices))


def shrink(schedule: Schedule, result: RunResult, replay: Replay, *, budget: int = 300) -> Schedule:
    """The smallest schedule found that still violates ``schedule.invariant``."""
    best = _trimmed(schedule, result)
    attempts = 0

    def attempt(candidate: Schedule) -> bool:
        nonlocal best, attempts
        if attempts >= budget:
            return False
        attempts += 1
        outcome = replay(candidate)
        if not outcome.violations or outcome.violations[0].invariant != schedule.invariant:
            return False
        trimmed = _trimmed(candidate, outcome)
        if _size(trimmed) >= _size(best):
            return False
        best = trimmed
        return True

    improved = True
    while improved and attempts < budget:
        improved = False
        for index in range(len(best.clients)):
            position = len(best.clients[index].program) - 1
            while position >= 0 and attempts < budget:
                spec = best.clients[index]
                if position < len(spec.program):
                    program = spec.program[:position] + spec.program[position + 1 :]
                    clients = list(best.clients)
                    clients[index] = ClientSpec(spec.host, program)
                    improved |= attempt(replace(best, clients=tuple(clients)))
                position -= 1
        chunk = max(1, len(best.choices) // 2)
        while chunk >= 1 and attempts < budget:
            start = len(best.choices) - chunk
            while start >= 0 and attempts < budget:
                choices = best.choices[:start] + best.choices[start + chunk :]
                improved |= attempt(replace(best, choices=choices))
                start -= chunk
            chunk //= 2
    return best
