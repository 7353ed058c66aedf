"""``lanes retry run|check``: parsers only (the work is in :mod:`lanes.retry.lane`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lanes._cli_config import add_config_option

if TYPE_CHECKING:
    import argparse

__all__ = ["add_parser"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    retry = sub.add_parser(
        "retry", help="contention retry: one re-run of listed-file timeouts only; check the list"
    )
    actions = retry.add_subparsers(dest="retry_command", metavar="ACTION", required=True)
    run = actions.add_parser(
        "run",
        help="run pytest; retry the failed tests once if every failure is a pytest-timeout "
        "timeout in a file listed in baselines/contention-retry.json (arguments after -- go to pytest)",
    )
    run.add_argument(
        "--envelope",
        type=Path,
        metavar="PATH",
        help="envelope path (default: envelopes/retry.json)",
    )
    run.add_argument(
        "--self-check",
        action="store_true",
        help="first prove the policy on planted suites (needs pytest-timeout)",
    )
    run.add_argument("pytest_args", nargs="*", metavar="PYTEST_ARG")
    run.set_defaults(handler=_run)
    check = actions.add_parser(
        "check",
        help="fail on entries past review_by, without reason or tracking, or naming a missing file",
    )
    add_config_option(check)
    check.set_defaults(handler=_check)


def _run(ns: argparse.Namespace) -> int:
    from lanes.retry.lane import run_retry

    return run_retry(ns)


def _check(ns: argparse.Namespace) -> int:
    from lanes.retry.lane import run_check

    return run_check(ns)
