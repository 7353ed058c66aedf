"""``lanes classify``: show how the governor classifies shell commands.

lanes classify 'uv run pytest tests/unit -q'     human-readable
lanes classify --json 'go test ./...'            the JSON contract
lanes classify --jsonl < commands.jsonl          one JSON string per line in,
                                                 one JSON result per line out
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterable
    from typing import TextIO

    from lanes.governor.classify.model import Classification

__all__ = ["add_parser", "classify_lines"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "classify",
        help="show which test runs a shell command makes (full, filtered or none)",
        description=(
            "Classify a shell command as the governor does. Quote the command: "
            "lanes classify 'pytest tests/unit -q'."
        ),
    )
    parser.add_argument("command", nargs="?", metavar="COMMAND", help="the shell command text")
    parser.add_argument(
        "--root",
        metavar="DIR",
        help="project root whose pytest testpaths define the whole suite (default: cwd)",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the JSON result")
    output.add_argument(
        "--jsonl",
        action="store_true",
        help="read one JSON string (a command) per stdin line; write one JSON result per line",
    )
    parser.set_defaults(handler=_run)


def _run(ns: argparse.Namespace) -> int:
    import os

    from lanes.errors import UsageError

    root = os.path.abspath(
        ns.root if ns.root is not None else os.curdir
    )  # a str is all classify needs
    if ns.jsonl:
        if ns.command is not None:
            msg = f"--jsonl reads commands from stdin, but a COMMAND was given too: {ns.command!r}"
            raise UsageError(msg, hint="drop COMMAND, or drop --jsonl to classify just it")
        # Bytes in, decoded per line: one undecodable line must not end the stream.
        lines = (raw.decode("utf-8", "replace") for raw in sys.stdin.buffer)
        bad = classify_lines(lines, sys.stdout, root)
        if bad:
            msg = f"{bad} input line(s) were not JSON strings (their result lines hold an error)"
            raise UsageError(msg, hint='write each command as a JSON string: "pytest -q"')
        return 0
    if ns.command is None:
        msg = "no COMMAND given"
        raise UsageError(msg, hint="lanes classify 'pytest tests -q', or --jsonl to read stdin")
    from lanes.governor.classify.classifier import classify

    result = classify(ns.command, root, test_commands(root))
    if ns.json:
        import json

        print(json.dumps(result.to_dict()))
    else:
        print(_human(result))
    return 0


def classify_lines(lines: Iterable[str], out: TextIO, root: str | None) -> int:
    """Classify each JSON-string line into one JSON result line; returns the bad-line count.

    Each result is flushed as it is written, so a caller can use one process
    as a request/response pipe.
    """
    import json

    from lanes.governor.classify.classifier import classify

    forms = test_commands(root)
    bad = 0
    for number, line in enumerate(lines, start=1):
        try:
            command = json.loads(line)
        except ValueError as exc:
            command = exc
        if isinstance(command, str):
            result: dict[str, object] = classify(command, root, forms).to_dict()
        else:
            bad += 1
            got = "invalid JSON" if isinstance(command, ValueError) else type(command).__name__
            result = {"error": f"line {number}: expected a JSON string, got {got}: {line[:80]!r}"}
        out.write(json.dumps(result) + "\n")
        out.flush()
    return bad


def test_commands(root: str | None) -> tuple[str, ...]:
    """The project's ``[tool.lanes.governor] test_commands`` (the hook's own
    view of the config), so ``lanes classify`` answers as the hook does; the
    defaults when the config cannot be read."""
    from lanes.governor.classify.runners.names import DEFAULT_TEST_COMMANDS
    from lanes.governor.config_cache import gate_config

    try:
        return tuple(gate_config(root or ".").governor.test_commands)
    except Exception:  # noqa: BLE001  # a broken config: classify as the hook would, with defaults
        return DEFAULT_TEST_COMMANDS


def _human(result: Classification) -> str:
    lines: list[str] = [result.scope]
    for invocation in result.invocations:
        lines.append(f"  {invocation.runner} ({invocation.scope}): {invocation.segment.text}")
        if invocation.selectors:
            lines.append(f"    selectors: {' '.join(invocation.selectors)}")
        if invocation.markers is not None:
            lines.append(f"    markers: {invocation.markers}")
        if invocation.env:
            pairs = " ".join(f"{name}={value}" for name, value in invocation.env.items())
            lines.append(f"    env: {pairs}")
    lines.extend(
        f"  possibly {invocation.runner} ({invocation.scope}): {invocation.segment.text}"
        " (its program is computed at run time)"
        for invocation in result.possible
    )
    if result.opaque is not None:
        lines.append(f"  not read through: {result.opaque}")
    return "\n".join(lines)
