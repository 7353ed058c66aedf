"""Who moves next: the torture lane's schedulers.

A scheduler is asked once per step which of the runnable clients goes next.
It is the *only* source of ordering in a simulated run, so its choices plus
the seed's client programs determine everything that happens.

- :class:`RandomScheduler`: a uniform choice among the runnable clients.
- :class:`PCTScheduler`: probabilistic concurrency testing (Burckhardt,
  Kothari, Musuvathi, Nagarakatte, ASPLOS 2010). Clients get distinct random
  priorities; the highest-priority runnable client always runs; at ``d - 1``
  change points drawn uniformly from ``[1, k]`` the running client's priority
  drops below every initial one. For a bug of depth ``d`` among ``n`` clients
  and ``k`` steps it finds the bug with probability at least
  ``1 / (n * k ** (d - 1))`` per run (:func:`pct_bound`).
- :class:`ReplayScheduler`: follows a recorded list of choices (a schedule
  file); where the list runs out or names a client that cannot move, it takes
  the lowest-numbered runnable client, so every list replays to *some* run.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Final, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "PCT_DEPTH",
    "PCTScheduler",
    "RandomScheduler",
    "ReplayScheduler",
    "Scheduler",
    "make_scheduler",
    "pct_bound",
]

# Depth 3 covers the lock's classic races: two ordering constraints between
# two clients (read-then-break against read-then-break, check-then-act).
PCT_DEPTH: Final = 3


class Scheduler(Protocol):
    def choose(self, runnable: Sequence[int], step: int) -> int:
        """One of ``runnable`` (never empty, ascending client ids)."""
        ...


class RandomScheduler:
    def __init__(self, seed: int) -> None:
        # A string seed keeps this stream independent of the programs' stream
        # (which is seeded with the bare integer).
        self._rng = random.Random(f"sched:{seed}")

    def choose(self, runnable: Sequence[int], step: int) -> int:
        del step
        if len(runnable) == 1:
            return runnable[0]
        # int(random() * n) rather than randrange(n): half the cost, and the
        # bias over at most a few dozen clients is far below 2**-40.
        return runnable[int(self._rng.random() * len(runnable))]


class PCTScheduler:
    def __init__(self, seed: int, *, clients: int, steps: int, depth: int = PCT_DEPTH) -> None:
        rng = random.Random(f"pct:{seed}")
        # Initial priorities depth .. depth + n - 1 (higher runs first); change
        # point i lowers the running client to priority depth - 1 - i, below
        # every initial priority and every earlier change.
        ranks = list(range(depth, depth + clients))
        rng.shuffle(ranks)
        self._priority = dict(enumerate(ranks))
        points = rng.sample(range(1, max(steps, depth) + 1), depth - 1)
        self._changes = {step: depth - 1 - i for i, step in enumerate(sorted(points))}

    def choose(self, runnable: Sequence[int], step: int) -> int:
        best = max(runnable, key=self._rank)
        lowered = self._changes.get(step)
        if lowered is not None:
            self._priority[best] = lowered
            best = max(runnable, key=self._rank)
        return best

    def _rank(self, client: int) -> int:
        # Clients added after the start (the end-of-run probe) rank lowest.
        return self._priority.get(client, -1)


class ReplayScheduler:
    def __init__(self, choices: Sequence[int]) -> None:
        self._choices = tuple(choices)

    def choose(self, runnable: Sequence[int], step: int) -> int:
        if step < len(self._choices) and self._choices[step] in runnable:
            return self._choices[step]
        return runnable[0]


def make_scheduler(name: str, seed: int, *, clients: int, steps: int) -> Scheduler:
    """The named scheduler for one seed; ``steps`` is PCT's estimate of ``k``."""
    if name == "pct":
        return PCTScheduler(seed, clients=clients, steps=steps)
    return RandomScheduler(seed)


def pct_bound(clients: int, steps: int, depth: int = PCT_DEPTH) -> float:
    """PCT's guaranteed per-run probability of hitting a depth-``depth`` bug."""
    return 1.0 / (clients * float(steps) ** (depth - 1))
