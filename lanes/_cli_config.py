"""``lanes config show``, and the small pieces every subcommand's parser shares."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["add_config_option", "add_parser", "whole_number"]


def whole_number(minimum: int, what: str = "a whole number") -> Callable[[str], int]:
    """An argparse ``type`` accepting integers ``>= minimum``; the error names the value."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            msg = f"expected {what} >= {minimum}, got {text!r}"
            raise argparse.ArgumentTypeError(msg)
        return value

    return parse


def add_config_option(parser: argparse.ArgumentParser) -> None:
    """The ``--config PATH`` option every config-reading subcommand shares."""
    parser.add_argument(
        "--config",
        type=Path,
        metavar="PATH",
        help="pyproject.toml to read [tool.lanes] from (default: nearest one upward)",
    )


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    config = sub.add_parser("config", help="inspect the resolved [tool.lanes] configuration")
    config_sub = config.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    show = config_sub.add_parser("show", help="print the resolved configuration as JSON")
    add_config_option(show)
    show.set_defaults(handler=_show)


def _show(ns: argparse.Namespace) -> int:
    import json

    from lanes.config import load_config

    config = load_config(ns.config)
    print(json.dumps(config.to_dict(), indent=2, sort_keys=True))
    return 0
