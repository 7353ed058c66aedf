"""``lanes slow run|pin|propose|unpin|check``: parsers only.

The work lives in :mod:`lanes.slow.run`, :mod:`lanes.slow.edit`,
:mod:`lanes.slow.propose` and :mod:`lanes.slow.check`, imported only when that action runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lanes._cli_config import add_config_option

__all__ = ["add_parser"]


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        msg = f"expected a number of seconds, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None
    if not 0 < value < float("inf"):
        msg = f"expected seconds > 0, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    slow = sub.add_parser(
        "slow", help="slow-test ratchet: run the suite under tier budgets, edit and check pins"
    )
    actions = slow.add_subparsers(dest="slow_command", metavar="ACTION", required=True)

    run = actions.add_parser(
        "run",
        help="run pytest under the ratchet and write envelopes/slow.json "
        "(arguments after -- go to pytest)",
    )
    run.add_argument(
        "--envelope", type=Path, metavar="PATH", help="envelope path (default: envelopes/slow.json)"
    )
    run.add_argument(
        "--self-check",
        action="store_true",
        help="first run a planted project whose slow test the ratchet must fail; "
        "the lane fails if it does not",
    )
    run.add_argument(
        "--from-run",
        type=Path,
        metavar="PATH",
        help="judge the run `lanes timing --with-slow-ratchet PATH` measured (the main "
        "job's one suite run for both lanes) instead of starting pytest",
    )
    run.add_argument("pytest_args", nargs="*", metavar="PYTEST_ARG")
    run.set_defaults(handler=_run)

    pin = actions.add_parser("pin", help="allow one test past its tier budget, with a reason")
    pin.add_argument("nodeid", metavar="NODEID", help="the test's node id, as pytest prints it")
    pin.add_argument("--reason", required=True, help="why the test is slow")
    pin.add_argument(
        "--tracking", required=True, help="where speeding it up is tracked (issue URL or #123)"
    )
    pin.add_argument(
        "--ceiling",
        type=_seconds,
        metavar="SECONDS",
        help="the test's own budget (default: its last measurement — its slowest re-timing "
        "when it was re-timed — + 25%%, rounded up)",
    )
    pin.add_argument(
        "--tier",
        metavar="TIER",
        help="the test's tier (default: as last measured, else the default)",
    )
    add_config_option(pin)
    pin.set_defaults(handler=_pin)

    propose = actions.add_parser(
        "propose",
        help="propose tier budgets from the last whole-suite run: 3 x each tier's slowest "
        "test, never below 0.25 s (--write sets them in pyproject.toml)",
    )
    propose.add_argument(
        "--envelope",
        type=Path,
        metavar="PATH",
        help="the measured run's envelope (default: envelopes/slow.json)",
    )
    propose.add_argument(
        "--write", action="store_true", help="set the proposed budgets in pyproject.toml"
    )
    propose.add_argument(
        "--allow-loosen",
        action="store_true",
        help="also write a proposal above the tier's current budget (default: print it only)",
    )
    add_config_option(propose)
    propose.set_defaults(handler=_propose)

    unpin = actions.add_parser("unpin", help="remove a test's pin")
    unpin.add_argument("nodeid", metavar="NODEID")
    add_config_option(unpin)
    unpin.set_defaults(handler=_unpin)

    check = actions.add_parser(
        "check",
        help="fail on new pins without reason and tracking, and on stale pins "
        "(arguments after -- go to pytest --collect-only)",
    )
    check.add_argument(
        "--base",
        default="origin/main",
        metavar="REF",
        help="revision whose pin list is the baseline (default: origin/main)",
    )
    check.add_argument("pytest_args", nargs="*", metavar="PYTEST_ARG")
    add_config_option(check)
    check.set_defaults(handler=_check)


def _run(ns: argparse.Namespace) -> int:
    from lanes.slow.run import run_slow

    return run_slow(ns)


def _pin(ns: argparse.Namespace) -> int:
    from lanes.slow.edit import run_pin

    return run_pin(ns)


def _propose(ns: argparse.Namespace) -> int:
    from lanes.slow.propose import run_propose

    return run_propose(ns)


def _unpin(ns: argparse.Namespace) -> int:
    from lanes.slow.edit import run_unpin

    return run_unpin(ns)


def _check(ns: argparse.Namespace) -> int:
    from lanes.slow.check import run_check

    return run_check(ns)
