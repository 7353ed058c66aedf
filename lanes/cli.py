"""The ``lanes`` command.

Two paths:
- ``lanes hook`` is the governor's agent hook, run on every shell command an
  agent makes. With the arguments ``lanes governor install`` registers it
  bypasses argparse entirely (argparse alone costs more than an interpreter
  start) and imports only ``lanes.governor.hook``; anything else (``--help``, an
  unknown agent) is parsed by ``lanes.governor.cli.hook_parser``.
- everything else goes through argparse. Each subcommand's parser lives in a
  small ``_cli`` module that imports only argparse; the work behind it is
  imported when the subcommand runs, so ``lanes --help`` never loads jinja2,
  hypothesis, mutmut or pytest.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

__all__ = ["build_parser", "main", "subcommands"]

# (subcommand, module defining `add_parser(subparsers)`), in --help order.
_SUBCOMMANDS: tuple[tuple[str, str], ...] = (
    ("affected", "lanes.affected._cli"),
    ("bench", "lanes.bench._cli"),
    ("config", "lanes._cli_config"),
    ("envelope", "lanes._cli_envelope"),
    ("fuzz", "lanes.fuzz._cli"),
    ("governor", "lanes.governor.cli.parser"),
    ("init", "lanes.init._cli"),
    ("classify", "lanes.governor.cli.classify_command"),
    ("completion", "lanes._cli_completion"),
    ("mutation", "lanes.mutation._cli"),
    ("report", "lanes.report._cli"),
    ("retry", "lanes.retry._cli"),
    ("slow", "lanes.slow._cli"),
    ("timing", "lanes.timing._cli"),
    ("torture", "lanes.torture._cli"),
)


def subcommands() -> tuple[str, ...]:
    """The subcommand names this lanekit has (`lanes init` scaffolds only lanes that exist)."""
    return tuple(name for name, _module in _SUBCOMMANDS)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["hook"]:
        from lanes.governor.hook import plain_hook_args, run_hook  # the hot path imports only this

        if plain_hook_args(args[1:]):
            return run_hook(args[1:])
        # `--help`, `--agent=codex`, a misspelt agent: rare, so argparse may cost here.
        from lanes.governor.cli.hook_parser import hook_main

        return hook_main(args[1:])
    return _main_argparse(args)


def build_parser() -> argparse.ArgumentParser:
    """The whole ``lanes`` command line: what runs, what ``--help`` says, what the
    reference pages and the shell completions are generated from."""
    import argparse  # kept off the hook's path
    import importlib

    from lanes import __version__
    from lanes._cli_help import explain

    parser = argparse.ArgumentParser(
        prog="lanes",
        description="Keep test suites honest and cheap: the agent governor and the measurement lanes.",
    )
    parser.add_argument("--version", action="version", version=f"lanes {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from lanes.governor.cli.hook_parser import add_parser as add_hook_parser

    add_hook_parser(sub)
    for _name, module in _SUBCOMMANDS:
        importlib.import_module(module).add_parser(sub)
    explain(parser)
    return parser


def _main_argparse(args: list[str]) -> int:
    from lanes.exitcodes import ExitCode

    parser = build_parser()
    ns = parser.parse_args(args)
    handler = getattr(ns, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return ExitCode.USAGE
    try:
        from lanes._platform import require_posix

        require_posix()
        return int(handler(ns))
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001  # each class maps to a status in lanes/exitcodes.py
        return _failed(ns.command, exc)


def _failed(command: str, exc: Exception | KeyboardInterrupt) -> int:
    """Report ``exc`` as its row of the exit table says and return the row's status."""
    from lanes.exitcodes import Report, exit_rule

    rule = exit_rule(exc)
    if rule.report is Report.HINT:
        # Only LanesError rows report a hint (tests/foundation/test_exit_table.py).
        print(f"error: {exc}", file=sys.stderr)
        print(f"hint: {getattr(exc, 'hint', '')}", file=sys.stderr)
    elif rule.report is Report.TRACEBACK:
        import traceback

        # The traceback stays: a crash is a lanekit bug and this is its report.
        traceback.print_exception(exc)
        print(f"error: lanes {command} crashed: {type(exc).__name__}: {exc}", file=sys.stderr)
        print(
            "hint: this is a bug in lanekit, not in your input; please report it with the traceback above",
            file=sys.stderr,
        )
    return rule.code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
