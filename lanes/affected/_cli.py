"""``lanes affected``: parser only; the work is imported when the command runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from lanes._cli_config import whole_number

__all__ = ["add_parser"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "affected",
        help="which tests and checks a diff needs; who depends on a module",
        description=(
            "Without MODULE: the plan for the changes between --base and the working tree "
            "(committed, staged, unstaged and untracked), each selection with the rule behind it. "
            "With MODULE: its dependents over the static import graph and the tests a change "
            "to it would select."
        ),
    )
    parser.add_argument("module", nargs="?", metavar="MODULE", help="a dotted module or a path")
    parser.add_argument(
        "--base",
        metavar="REF",
        help="compare against REF (default: the merge base with origin/main, else HEAD)",
    )
    parser.add_argument("--json", action="store_true", help="the complete plan as JSON")
    parser.add_argument(
        "--limit",
        type=whole_number(1),
        default=10,
        metavar="N",
        help="entries shown per group in the text output (default 10; --json shows all)",
    )
    parser.add_argument(
        "--run",
        action="store_true",
        help="run the plan: each selected suite once (filtered), then the gates; writes envelopes/affected.json",
    )
    parser.add_argument(
        "--self-check",
        action="store_true",
        help="prove the selector on a generated project (a planted bug must be selected)",
    )
    parser.add_argument(
        "--recall",
        type=int,
        default=0,
        metavar="N",
        help="plant a bug in N functions of this project, one at a time, and check every failing test file was selected (N full suite runs)",
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="run the suite once with the recorder and write the map of what each test executed and read (envelopes/affected-map.json, or --map FILE)",
    )
    parser.add_argument(
        "--map",
        type=Path,
        metavar="FILE",
        help="the recorded map to narrow the plan with (default: envelopes/affected-map.json when present)",
    )
    parser.add_argument("--config", type=Path, metavar="PYPROJECT", help="pyproject.toml to use")
    parser.add_argument("--envelope", type=Path, metavar="FILE", help=argparse.SUPPRESS)
    parser.set_defaults(handler=_handle)


def _handle(ns: argparse.Namespace) -> int:
    from lanes.affected.lane import handle  # keeps `lanes --help` light

    return handle(ns)
