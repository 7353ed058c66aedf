"""``lanes timing``: the parser only; the lane is imported when it runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from lanes._cli_config import add_config_option, whole_number

__all__ = ["add_parser"]


def _percent(text: str) -> float:
    try:
        value = float(text.strip().removesuffix("%"))
    except ValueError:
        msg = f"expected a percentage such as 30 or 30%, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None
    if not 0 < value < float("inf"):
        msg = f"expected a percentage > 0, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    timing = sub.add_parser(
        "timing",
        help="what each suite costs (collected, wall, CPU, peak memory, offenders, xdist "
        "verdict) and how that moved against baselines/timing.json",
    )
    timing.add_argument(
        "--suite",
        action="append",
        metavar="NAME",
        help="measure this suite only (repeatable; default: every configured suite)",
    )
    timing.add_argument(
        "--repeat",
        type=whole_number(1),
        metavar="N",
        help="runs per arm (default: [tool.lanes.timing] repeat, else chosen from the first "
        "run's cost: as many as fit 40 s of runs, 1 to 3; the envelope says why)",
    )
    timing.add_argument(
        "--workers",
        type=whole_number(0, "a worker count (0 = no xdist comparison)"),
        metavar="N",
        help="the -n of the xdist comparison (default: the CPU count; 0 skips it)",
    )
    timing.add_argument(
        "--record",
        action="store_true",
        help="write the measured figures to the baseline for review (default "
        "baselines/timing.json)",
    )
    timing.add_argument(
        "--max-regression",
        type=_percent,
        metavar="PCT",
        help="fail when median CPU time grew by more than PCT%% over the baseline and "
        "beyond the spread (default: [tool.lanes.timing] max_regression, else never)",
    )
    timing.add_argument(
        "--max-wall-regression",
        type=_percent,
        metavar="PCT",
        help="opt-in: fail when median wall clock grew by more than PCT%% over the baseline "
        "and beyond the spread: catches a test that newly sleeps or waits, which CPU time "
        "misses (default: [tool.lanes.timing] max_wall_regression, else never)",
    )
    timing.add_argument(
        "--self-check",
        action="store_true",
        help="first prove the lane flags a planted regression (3x CPU, 2x memory, one "
        "test fewer); the lane fails if it does not",
    )
    timing.add_argument(
        "--with-slow-ratchet",
        type=Path,
        metavar="PATH",
        help="one run shared with the slow-test ratchet (the main job's profile): the suite "
        "once, -n WORKERS (0: serial), the ratchet enabled and its result written to PATH "
        "for `lanes slow run --from-run PATH`; compared with the baseline's arm recorded "
        "the same way; no repeat, no serial vs xdist comparison",
    )
    timing.add_argument(
        "--envelope",
        type=Path,
        metavar="PATH",
        help="envelope path (default: envelopes/timing.json)",
    )
    add_config_option(timing)
    timing.set_defaults(handler=_run)


def _run(ns: argparse.Namespace) -> int:
    from lanes.lane import drive  # the lane's imports wait until it runs
    from lanes.timing.lane import TimingLane

    return drive(TimingLane(), ns)
