"""``lanes completion SHELL``: print the shell completion script lanekit ships.

The scripts in ``lanes/completions/`` are generated ahead of time by shtab
(``python -m lanes._docs_reference``), so printing one imports nothing but
argparse and the package data; shtab is not a runtime dependency.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

__all__ = ["SHELLS", "add_parser"]

SHELLS = ("bash", "zsh", "fish")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    completion = sub.add_parser(
        "completion",
        help="print the shell completion script for bash, zsh or fish",
        description="Print the completion script for SHELL on stdout; "
        "save it where your shell loads completions (see the examples).",
    )
    completion.add_argument("shell", metavar="SHELL", choices=SHELLS, help="bash, zsh or fish")
    completion.set_defaults(handler=_print)


def _print(ns: argparse.Namespace) -> int:
    from importlib.resources import files

    sys.stdout.write(
        files("lanes").joinpath("completions", f"lanes.{ns.shell}").read_text(encoding="utf-8")
    )
    return 0
