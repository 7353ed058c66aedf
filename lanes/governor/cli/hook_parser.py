"""``lanes hook``'s command line, for the calls that are not the hot path.

The hook an agent runs every shell command is ``lanes hook`` or ``lanes hook
--agent codex``; :func:`lanes.cli.main` matches those without argparse
(:func:`lanes.governor.hook.plain_hook_args`). Everything else — ``--help``,
``--agent=codex``, a misspelt agent — comes here, where argparse's cost does not
matter, so ``--help`` explains the hook and an unknown agent is an error that
lists the accepted names instead of a hook that silently speaks Claude's protocol.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from lanes.governor.hook import AGENTS, run_hook

__all__ = ["add_parser", "hook_main"]

_HELP = "the agent hook: reads one hook payload on stdin, answers on stdout"
_DESCRIPTION = """\
The governor's agent hook. Claude Code and Codex CLI run it around every shell
command an agent makes (`lanes governor install` registers it): it reads the
hook payload on stdin, lets a command that runs no tests through at the cost of
about one interpreter start, and for a test run applies the test economy, the
sweep gate, the dedup and the run lock. You do not run it by hand."""
_EPILOG = """\
examples:
  lanes governor install            # registers `lanes hook` for Claude Code
  lanes governor install --codex    # also `lanes hook --agent codex` for Codex
  echo '{"tool_name": "Bash", "tool_input": {"command": "ls"}}' | lanes hook

exit codes:
  0  allow (the agent hook protocol's codes, not the lanes' table): the command runs (a nudge, if any, is on stdout as the protocol's JSON)
  2  block: the command does not run; stderr tells the agent why
  1  a bad `lanes hook` command line (unknown option or agent): reported, never blocks"""


class _HookArgumentParser(argparse.ArgumentParser):
    """Exits 1, not argparse's 2, on a bad command line: to an agent, 2 means
    "block this command", and a misconfigured hook must not block every command."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--agent",
        choices=AGENTS,
        default=AGENTS[0],
        help="whose hook protocol to speak (default: %(default)s)",
    )


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``lanes hook`` in the ``lanes`` parser: for ``lanes --help``, the reference
    pages and the completions (a real hook call never reaches argparse)."""
    hook = sub.add_parser(
        "hook",
        help=_HELP,
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _configure(hook)
    hook.set_defaults(handler=lambda ns: run_hook(["--agent", ns.agent]))


def hook_main(args: list[str]) -> int:
    """``lanes hook ARGS`` for arguments the fast path does not take."""
    parser = _HookArgumentParser(
        prog="lanes hook",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _configure(parser)
    ns = parser.parse_args(args)
    return run_hook(["--agent", ns.agent])
