"""The generated reference pages and shell completions, from the code.

Nothing here is hand-copied: the CLI page walks the argparse parsers
(:func:`lanes.cli.build_parser`), the settings page is the setting rows
(:func:`lanes.sections.reference_document`), the envelope page is the schema
generated from the payload types (``lanes/envelope.schema.json``), the exit-code
page is :data:`lanes.exitcodes.EXIT_TABLE` and :class:`RunnerExit`, and the
completions are what shtab makes of the same parser. ``nox -s docs`` runs
``python -m lanes._docs_reference`` before building the site;
tests/foundation/test_docs_reference.py fails while a committed file differs.

This is a development tool: it is never on the hook's path, and shtab (a docs
and test dependency, not a runtime one) is imported only to write completions.
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanes._cli_help import walk
from lanes.cli import build_parser
from lanes.exitcodes import EXIT_TABLE, ExitCode
from lanes.governor.runner.exits import RunnerExit
from lanes.sections import reference_document

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

__all__ = [
    "COMPLETION_SHELLS",
    "REGENERATE",
    "cli_document",
    "completion_script",
    "envelope_document",
    "exit_codes_document",
    "generated_files",
    "main",
    "stale_files",
]

REGENERATE = "python -m lanes._docs_reference"
COMPLETION_SHELLS = ("bash", "zsh", "fish")
_NOTICE = (
    f"Generated from the code by `{REGENERATE}` (`nox -s docs` runs it); do not edit\n"
    "by hand: tests/foundation/test_docs_reference.py fails while it differs.\n"
)


def _cell(text: object) -> str:
    # A Markdown table cell: one line, and a literal pipe must not end the cell.
    return " ".join(str(text).split()).replace("|", "\\|")


def _option_rows(parser: argparse.ArgumentParser) -> Iterator[str]:
    for action in parser._actions:  # argparse has no public list of a parser's options
        if isinstance(action, (argparse._SubParsersAction, argparse._HelpAction)):
            continue
        if action.option_strings:
            name = ", ".join(f"`{o}`" for o in action.option_strings)
            if action.nargs != 0:
                name += f" `{action.metavar or action.dest.upper()}`"
        else:
            name = f"`{action.metavar or action.dest}`"
        default = action.default
        shown = (
            "—"
            if default in (None, False, argparse.SUPPRESS) or action.nargs == 0
            else f"`{default!r}`"
        )
        choices = ", ".join(f"`{c}`" for c in action.choices) if action.choices else ""
        help_text = (action.help or "").replace("%(default)s", str(default))
        if choices:
            help_text = f"{help_text} (one of {choices})".strip()
        yield f"| {_cell(name)} | {_cell(shown)} | {_cell(help_text)} |"


def _anchor(path: str) -> str:
    return "lanes-" + path.replace(" ", "-") if path else "lanes"


def cli_document() -> str:
    """docs/reference/cli.md: every command, option, default and exit code."""
    parts = ["# Command-line reference\n", _NOTICE]
    for path, parser, _help in walk(build_parser()):
        title = f"lanes {path}".strip()
        parts.append(f"## `{title}` {{#{_anchor(path)}}}\n")
        if parser.description:
            parts.append(parser.description + "\n")
        parts.append("```text\n" + parser.format_usage().strip() + "\n```\n")
        rows = list(_option_rows(parser))
        if rows:
            parts.append(
                "| option | default | what it does |\n|---|---|---|\n" + "\n".join(rows) + "\n"
            )
        children = [
            p
            for p, _parser, _h in walk(parser, path)
            if p.count(" ") == path.count(" ") + (1 if path else 0) and p != path
        ]
        if children:
            links = ", ".join(f"[`lanes {c}`](#{_anchor(c)})" for c in children)
            parts.append(f"Subcommands: {links}.\n")
        if parser.epilog:
            parts.append("```text\n" + parser.epilog.strip() + "\n```\n")
    return "\n".join(parts)


def _type_of(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return f"[`{name}`](#{name.replace('_', '-')})"
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    if "enum" in schema:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(_type_of(s) for s in schema[key])
    kind = schema.get("type")
    if kind == "array":
        return f"array of {_type_of(schema.get('items', {}))}"
    if (
        kind == "object"
        and "additionalProperties" in schema
        and isinstance(schema["additionalProperties"], dict)
    ):
        return f"object of {_type_of(schema['additionalProperties'])}"
    if isinstance(kind, list):
        return " or ".join(f"`{k}`" for k in kind)
    return f"`{kind}`" if kind else "any JSON value"


def _fields(schema: dict[str, Any]) -> str:
    required = set(schema.get("required", ()))
    rows = [
        f"| `{name}` | {_cell(_type_of(prop))} | {'yes' if name in required else 'no'} | "
        f"{_cell(prop.get('description', ''))} |"
        for name, prop in schema.get("properties", {}).items()
    ]
    return "| field | type | required | meaning |\n|---|---|---|---|\n" + "\n".join(rows) + "\n"


_ENVELOPE_INTRO = """\
Each lane writes `envelopes/<lane>.json` on every exit path — pass, fail,
crash, Ctrl-C, SIGTERM — because an absent envelope is indistinguishable from
a lane that never ran. The schema, `lanes/envelope.schema.json` (JSON Schema
2020-12), is itself generated from the payload types in `lanes/payloads/`.
Check envelopes with `lanes envelope validate envelopes/*.json`.
"""


def envelope_document() -> str:
    """docs/reference/envelope.md: the envelope and each lane's payload, from the schema."""
    schema = json.loads(files("lanes").joinpath("envelope.schema.json").read_text(encoding="utf-8"))
    defs: dict[str, dict[str, Any]] = schema["$defs"]
    lanes = [
        rule["if"]["properties"]["lane"]["const"]
        for rule in schema.get("allOf", ())
        if "lane" in rule.get("if", {}).get("properties", {})
    ]
    parts = ["# Lane envelope reference\n", _NOTICE, _ENVELOPE_INTRO]
    parts.append(f"## The envelope {{#envelope}}\n\n{_cell(schema.get('description', ''))}\n")
    parts.append(_fields(schema))
    parts.append(
        'When `stage` is `"complete"`, `data` is the lane\'s payload: '
        + ", ".join(f"[`{lane}`](#{lane.replace('_', '-')})" for lane in lanes)
        + ".\n"
    )
    ordered = lanes + sorted(name for name in defs if name not in lanes)
    for name in ordered:
        body = defs[name]
        parts.append(f"## `{name}` {{#{name.replace('_', '-')}}}\n")
        if body.get("description"):
            parts.append(_cell(body["description"]) + "\n")
        if body.get("properties"):
            parts.append(_fields(body))
        else:
            parts.append(f"Type: {_cell(_type_of(body))}\n")
    return "\n".join(parts)


_EXIT_INTRO = """\
Every `lanes` subcommand ends in one of these statuses; a verdict decides 0 or
1, everything else is one row of the exit table in `lanes/exitcodes.py`, looked
up from the exception and whether the command's work had begun. A usage or
configuration error is printed as `error:` and `hint:` lines, never a
traceback; a crash prints the traceback and says it is a lanekit bug.
"""


def exit_codes_document() -> str:
    """docs/reference/exit-codes.md: the exit table, the codes, the runner plugin's codes."""
    parts = ["# Exit codes\n", _NOTICE, _EXIT_INTRO, "## The codes\n"]
    parts.append(
        "| code | name |\n|---|---|\n"
        + "\n".join(f"| {int(c)} | `{c.name}` |" for c in ExitCode)
        + "\n"
    )
    parts.append(
        "## The exit table\n\nRows are checked in order; the first that matches the exception wins.\n"
    )
    rows = [
        f"| `{r.exception}` | {r.phase.value if r.phase else 'any'} | {int(r.code)} | {r.report.value} | {_cell(r.meaning)} |"
        for r in EXIT_TABLE
    ]
    parts.append(
        "| exception | phase | exit | report | meaning |\n|---|---|---|---|---|\n"
        + "\n".join(rows)
        + "\n"
    )
    parts.append(
        "argparse rejects a bad command line itself, with exit 2, before any work.\n\n"
        "## `lanes hook`\n\n`lanes hook` follows the agent hook protocol instead: 0 lets the "
        "command run, 2 blocks it; a bad `lanes hook` command line exits 1 so that it never "
        "blocks an agent's every command.\n\n"
        "## pytest runs the governor's plugin stops\n\n"
        "pytest's own statuses are 0 to 5; a run the governor's pytest plugin stops before its "
        "first test exits with one of these (`lanes/governor/runner/exits.py`). No test ran "
        "and nothing is recorded in the ledger.\n"
    )
    parts.append(
        "| exit | name |\n|---|---|\n"
        + "\n".join(f"| {int(c)} | `{c.name}` |" for c in RunnerExit)
        + "\n"
    )
    return "\n".join(parts)


def completion_script(shell: str) -> str:
    """What shtab generates for ``shell`` from the ``lanes`` parser now."""
    import shtab  # noqa: PLC0415  # a docs/test dependency, not a runtime one: only the generator needs it

    return str(shtab.complete(build_parser(), shell=shell))


def generated_files() -> dict[str, Callable[[], str]]:
    """Repository path -> the function that renders it."""
    pages: dict[str, Callable[[], str]] = {
        "docs/reference/cli.md": cli_document,
        "docs/reference/settings.md": reference_document,
        "docs/reference/envelope.md": envelope_document,
        "docs/reference/exit-codes.md": exit_codes_document,
    }
    for shell in COMPLETION_SHELLS:
        pages[f"lanes/completions/lanes.{shell}"] = partial(completion_script, shell)
    return pages


def stale_files(root: Path) -> list[str]:
    """The generated files under ``root`` that differ from what the code renders now."""
    stale = []
    for rel, render in generated_files().items():
        path = root / rel
        if not path.is_file() or path.read_text(encoding="utf-8") != render():
            stale.append(rel)
    return stale


def main(argv: list[str] | None = None) -> int:
    """Write every stale generated file; with ``--check``, only list them and exit 1.

    ``--root DIR`` (default: this checkout) is the repository to check or write.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    root = (
        Path(args[args.index("--root") + 1])
        if "--root" in args
        else Path(__file__).resolve().parents[1]
    )
    stale = stale_files(root)
    renders = generated_files()
    for rel in stale:
        if check:
            print(f"stale: {rel} differs from the code", file=sys.stderr)
            continue
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(renders[rel](), encoding="utf-8")
        print(f"wrote: {rel}", file=sys.stderr)
    if check and stale:
        print(f"hint: regenerate with `{REGENERATE}` and commit the result", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
