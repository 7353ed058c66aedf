"""What every ``lanes ... --help`` says beyond its options: a description, examples
and the exit codes.

:func:`explain` walks the finished parser tree once, so each subcommand's own
module keeps only its options and help strings, and a command without examples
here is caught by a test rather than shipped with a bare ``--help``. The exit
codes are rendered from :data:`lanes.exitcodes.EXIT_TABLE`, never restated.
"""

from __future__ import annotations

import argparse
import textwrap
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["EXAMPLES", "exit_codes_text", "explain", "walk"]

# Command path (words after `lanes`) -> example command lines, each with its why.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "": (
        "lanes init                       # adopt lanekit in this project",
        "lanes slow run                   # the suite under the slow-test ratchet",
        "lanes report                     # envelopes/summary.md and envelopes/index.html",
    ),
    "affected": (
        "lanes affected                   # the tests and checks this branch's diff needs",
        "lanes affected --run             # ... and run them once",
        "lanes affected mypkg.parser      # who depends on a module before you touch it",
    ),
    "bench": (
        "lanes bench                      # every benchmark: envelopes/bench.json",
        "lanes bench --only hook-latency  # one benchmark",
        "lanes bench --gating-only        # only those whose goal can fail the lane (the main job)",
    ),
    "classify": (
        "lanes classify 'pytest tests -x' # is this command a test run, of which suite?",
        "lanes classify --json 'tox -e py311'",
    ),
    "completion": (
        "lanes completion bash > ~/.local/share/bash-completion/completions/lanes",
        'lanes completion zsh > "${fpath[1]}/_lanes"',
        "lanes completion fish > ~/.config/fish/completions/lanes.fish",
    ),
    "config": ("lanes config show                # what lanekit understood of [tool.lanes]",),
    "config show": (
        "lanes config show",
        "lanes config show --config other/pyproject.toml",
    ),
    "envelope": ("lanes envelope validate envelopes/*.json",),
    "envelope validate": ("lanes envelope validate envelopes/*.json",),
    "fuzz": (
        "lanes fuzz                       # every declared target: envelopes/fuzz.json",
        "lanes fuzz --self-check          # the lane must catch its planted bugs",
    ),
    "slow pin": (
        "lanes slow pin tests/test_x.py::test_big --reason 'parses 50 MB' --tracking '#42'",
    ),
    "slow unpin": ("lanes slow unpin tests/test_x.py::test_big",),
    "slow propose": (
        "lanes slow propose               # tier budgets from the last nox -s slow run",
        "lanes slow propose --write       # set them in pyproject.toml",
    ),
    "slow check": (
        "lanes slow check                 # pins without reason or tracking, stale pins",
    ),
    "governor": (
        "lanes governor install --codex   # the hook for Claude Code and Codex",
        "lanes governor status            # tree state, suite freshness, the run lock",
    ),
    "governor install": (
        "lanes governor install           # .claude/settings.json",
        "lanes governor install --absolute  # .claude/settings.local.json, by path",
        "lanes governor install --codex   # also .codex/hooks.json",
    ),
    "governor status": ("lanes governor status --json",),
    "governor record": ("lanes governor record unit pass  # a suite you ran by hand passed",),
    "governor unlock": ("lanes governor unlock            # remove a dead owner's run lock",),
    "init": (
        "lanes init --dry-run             # what it would write, as a diff",
        "lanes init                       # write it",
    ),
    "mutation": (
        "lanes mutation --self-check      # the lane must catch its planted survivors",
        "lanes mutation run --shard 1/4   # one shard of the sweep",
        "lanes mutation plan --output plan  # generate and map once for every shard",
        "lanes mutation run --plan plan --module lock --shard 2/2  # one shard, from the plan",
    ),
    "report": (
        "lanes report                     # envelopes/summary.md and envelopes/index.html",
        "lanes report --junit out.xml --ctrf out.json",
    ),
    "retry": (
        "lanes retry run                  # the suite, one retry for a listed contention",
        "lanes retry run --self-check",
    ),
    "slow": (
        "lanes slow run                   # the suite under the slow-test ratchet",
        "lanes slow run -- tests/unit -k parser",
        "lanes slow propose --write       # budgets sized from that run",
        "lanes slow pin tests/test_x.py::test_big --reason 'parses 50 MB' --tracking '#42'",
    ),
    "timing": (
        "lanes timing                     # each suite's cost, the xdist verdict, the Δ",
        "lanes timing --record            # write baselines/timing.json",
    ),
    "torture": (
        "lanes torture                    # the seeded sweep over the run lock and ledger",
        "lanes torture --seed 1234        # replay one seed",
    ),
}


def walk(
    parser: argparse.ArgumentParser, path: str = ""
) -> Iterator[tuple[str, argparse.ArgumentParser, str]]:
    """Every parser under ``parser``: (command path, parser, its one-line help)."""
    yield path, parser, ""
    for action in parser._actions:  # argparse has no public walk of its subparsers
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, child in action.choices.items():
                child_path = f"{path} {name}".strip()
                for sub_path, sub_parser, sub_help in walk(child, child_path):
                    yield sub_path, sub_parser, sub_help or helps.get(name, "")


def exit_codes_text() -> str:
    """The exit codes every lanes command shares, from the exit table."""
    from lanes.exitcodes import EXIT_TABLE, ExitCode

    rows = [
        (int(ExitCode.OK), "pass: the lane ran and passed, or the command did what was asked"),
        (int(ExitCode.FAIL), "fail: the lane ran and its verdict is fail"),
    ]
    rows += [(int(rule.code), rule.meaning) for rule in EXIT_TABLE]
    rows.append((int(ExitCode.USAGE), "argparse rejected the command line: nothing ran"))
    lines = [f"  {code:<3} {meaning}" for code, meaning in sorted(rows, key=lambda r: r[0])]
    return "exit codes:\n" + "\n".join(lines)


def _fill(text: str) -> str:
    # RawDescriptionHelpFormatter keeps the epilog's layout, so the description is
    # wrapped here, paragraph by paragraph, as the default formatter would.
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n")]
    return "\n\n".join(textwrap.fill(p, width=79) for p in paragraphs if p)


def explain(parser: argparse.ArgumentParser) -> None:
    """Give every parser in the tree a description, examples and the exit codes."""
    codes = exit_codes_text()
    for path, sub, help_text in walk(parser):
        if sub.epilog is not None:  # `lanes hook` states its own (the agent protocol's) codes
            continue
        description = sub.description or help_text
        sub.description = _fill(description) if description else None
        examples = EXAMPLES.get(path) or EXAMPLES.get(path.rsplit(" ", 1)[0], ())
        lines = [f"  {line}" for line in examples]
        sub.epilog = ("examples:\n" + "\n".join(lines) + "\n\n" if lines else "") + codes
        sub.formatter_class = argparse.RawDescriptionHelpFormatter
