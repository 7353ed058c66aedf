"""``lanes governor install|status|record|unlock``: parsers only.

The work lives in the modules named in each handler and is imported only when
that subcommand runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanes._cli_config import add_config_option

if TYPE_CHECKING:
    import argparse

__all__ = ["add_parser"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    governor = sub.add_parser("governor", help="install and inspect the agent governor")
    actions = governor.add_subparsers(dest="governor_command", metavar="ACTION", required=True)

    install = actions.add_parser(
        "install",
        help="register `lanes hook` in .claude/settings.json, or by absolute path in "
        ".claude/settings.local.json (and .codex/hooks.json with --codex)",
    )
    install.add_argument("--codex", action="store_true", help="also register for Codex CLI")
    install.add_argument(
        "--root", metavar="DIR", help="project root (default: git top level, else cwd)"
    )
    install.add_argument(
        "--absolute",
        action="store_true",
        help="register the absolute path of this installation's `lanes` in the personal "
        ".claude/settings.local.json (for agents whose PATH lacks the virtualenv)",
    )
    install.set_defaults(handler=_install)

    status = actions.add_parser(
        "status", help="tree state, suite freshness, the run lock and this session's counters"
    )
    status.add_argument("--json", action="store_true", help="machine-readable output")
    status.add_argument("--session", metavar="ID", help="agent session id for the counters")
    add_config_option(status)
    status.set_defaults(handler=_status)

    record = actions.add_parser(
        "record", help="record a suite's result by hand (make targets, humans)"
    )
    record.add_argument("suite", metavar="SUITE")
    record.add_argument("outcome", choices=("pass", "fail"))
    add_config_option(record)
    record.set_defaults(handler=_record)

    unlock = actions.add_parser("unlock", help="remove the run lock")
    unlock.add_argument(
        "--force", action="store_true", help="also remove a live owner's lock (audited)"
    )
    add_config_option(unlock)
    unlock.set_defaults(handler=_unlock)


def _install(ns: argparse.Namespace) -> int:
    from lanes.governor.cli.install import run_install

    return run_install(ns)


def _status(ns: argparse.Namespace) -> int:
    from lanes.governor.cli.status import run_status

    return run_status(ns)


def _record(ns: argparse.Namespace) -> int:
    from lanes.governor.cli.status import run_record

    return run_record(ns)


def _unlock(ns: argparse.Namespace) -> int:
    from lanes.governor.cli.status import run_unlock

    return run_unlock(ns)
