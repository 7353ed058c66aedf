"""Shrink a failing run to the shortest schedule that still fails the same way.

The size of a schedule is (number of scheduler choices until the violation,
number of operations in the programs), compared in that order. Starting from
the failing run (its choices end at the violation; ops it never started are
dropped), the shrinker repeats until nothing helps or the budget is spent:

1. drop chunks of each client's operations — its whole program, halves,
   quarters ... single ops, last chunk first — together with the choices made
   while that client ran them, so everyone else's choices stay aligned;
2. drop chunks of choices the same way (the replay scheduler falls back to the
   lowest runnable client where a choice is missing or impossible).

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


class _Best:
    """The smallest failing schedule so far, with each choice's (client, op)."""

    def __init__(self, schedule: Schedule, result: RunResult) -> None:
        clients = tuple(
            ClientSpec(spec.host, spec.program[: result.ops_started[i]])
            for i, spec in enumerate(schedule.clients)
        )
        self.schedule = replace(schedule, clients=clients, choices=tuple(result.choices))
        self.owners = [(step[1], step[4]) for step in result.steps_taken]

    def without_ops(self, index: int, start: int, stop: int) -> Schedule:
        """Drop client ``index``'s ops ``start:stop`` *and the choices made while
        it ran them*, so the choices of everything else stay aligned."""
        spec = self.schedule.clients[index]
        clients = list(self.schedule.clients)
        clients[index] = ClientSpec(spec.host, spec.program[:start] + spec.program[stop:])
        choices = tuple(
            choice
            for choice, (client, op) in zip(self.schedule.choices, self.owners, strict=True)
            if client != index or not start <= op < stop
        )
        return replace(self.schedule, clients=tuple(clients), choices=choices)


def shrink(schedule: Schedule, result: RunResult, replay: Replay, *, budget: int = 400) -> Schedule:
    """The smallest schedule found that still violates ``schedule.invariant``."""
    best = _Best(schedule, result)
    attempts = 0

    def attempt(candidate: Schedule) -> bool:
        nonlocal best, attempts
        if attempts >= budget:
            return False
        attempts += 1
        outcome = replay(candidate)
        if not outcome.violations or outcome.violations[0].invariant != schedule.invariant:
            return False
        trimmed = _Best(candidate, outcome)
        if _size(trimmed.schedule) >= _size(best.schedule):
            return False
        best = trimmed
        return True

    improved = True
    while improved and attempts < budget:
        improved = False
        # Operations: each client's program in chunks (whole program first,
        # then halves, quarters ... single ops), last chunk first.
        for index in range(len(best.schedule.clients)):
            chunk = len(best.schedule.clients[index].program)
            while chunk >= 1 and attempts < budget:
                start = len(best.schedule.clients[index].program) - chunk
                while start >= 0 and attempts < budget:
                    improved |= attempt(best.without_ops(index, start, start + chunk))
                    start = min(start, len(best.schedule.clients[index].program)) - chunk
                chunk //= 2
        # Choices: the same, over the whole list.
        chunk = max(1, len(best.schedule.choices) // 2)
        while chunk >= 1 and attempts < budget:
            start = len(best.schedule.choices) - chunk
            while start >= 0 and attempts < budget:
                choices = best.schedule.choices[:start] + best.schedule.choices[start + chunk :]
                improved |= attempt(replace(best.schedule, choices=choices))
                start = min(start, len(best.schedule.choices)) - chunk
            chunk //= 2
    return best.schedule
