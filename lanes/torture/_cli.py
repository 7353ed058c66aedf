"""``lanes torture``: the parser; the lane is imported only when it runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lanes._cli_config import add_config_option

if TYPE_CHECKING:
    import argparse

__all__ = ["add_parser"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    torture = sub.add_parser(
        "torture",
        help="seeded, replayable concurrency torture of the run lock and ledger",
        description=(
            "Drive simulated agents through the governor's real run-lock and ledger code "
            "under a deterministic scheduler. Defaults come from [tool.lanes.torture]. "
            "Every seed runs twice and must replay identically; a failure prints its seed, "
            "a replay command and a shrunk schedule file."
        ),
    )
    which = torture.add_mutually_exclusive_group()
    which.add_argument("--seed", type=int, metavar="N", help="replay exactly one seed")
    which.add_argument(
        "--schedule", type=Path, metavar="FILE", help="replay a (shrunk) schedule file"
    )
    torture.add_argument("--runs", type=int, metavar="N", help="seeds in the sweep")
    torture.add_argument("--seed-start", type=int, metavar="S", help="first seed of the sweep")
    torture.add_argument("--clients", type=int, metavar="N", help="simulated agents per run")
    torture.add_argument("--ops", type=int, metavar="N", help="operations per agent")
    torture.add_argument("--scheduler", choices=("random", "pct"), help="scheduling strategy")
    torture.add_argument(
        "--self-check",
        action="store_true",
        help="also sweep every planted bug under both schedulers; each must be caught by one",
    )
    torture.add_argument(
        "--self-check-runs",
        type=int,
        default=32,
        metavar="N",
        help="seeds per planted bug and scheduler (default 32)",
    )
    torture.add_argument(
        "--real", action="store_true", help="also run the real-process guard (not seeded)"
    )
    torture.add_argument(
        "--procs", type=int, default=8, metavar="N", help="real guard processes (default 8)"
    )
    torture.add_argument(
        "--iterations",
        type=int,
        default=200,
        metavar="N",
        help="critical sections per real guard process (default 200)",
    )
    torture.add_argument(
        "--agents",
        type=int,
        default=0,
        metavar="N",
        help="also run N agents finishing tasks through the real hook in a real repository "
        "(one simulation per seed of --agent-seeds; 0 = off)",
    )
    torture.add_argument(
        "--tasks",
        type=int,
        default=6,
        metavar="N",
        help="tasks per agent in the --agents simulation (default 6)",
    )
    torture.add_argument(
        "--agent-seeds",
        type=int,
        default=2,
        metavar="N",
        help="simulations (seeds from --seed-start) in the --agents mode (default 2)",
    )
    torture.add_argument(
        "--envelope",
        type=Path,
        metavar="PATH",
        help="envelope path (default envelopes/torture.json)",
    )
    add_config_option(torture)
    torture.set_defaults(handler=_torture)


def _torture(ns: argparse.Namespace) -> int:
    from lanes.torture.lane import run_lane  # greenlet only when it runs

    return run_lane(ns)
