"""``lanes envelope validate FILE...``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

__all__ = ["add_parser"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    envelope = sub.add_parser("envelope", help="check lane envelopes against the v1 schema")
    envelope_sub = envelope.add_subparsers(dest="envelope_command", metavar="ACTION", required=True)
    validate = envelope_sub.add_parser(
        "validate",
        help="exit 0 when every FILE is a valid envelope, 1 listing each problem",
    )
    validate.add_argument("files", nargs="+", type=Path, metavar="FILE")
    validate.set_defaults(handler=_validate)


def _validate(ns: argparse.Namespace) -> int:
    from lanes.envelope import read_envelope, validate_envelope
    from lanes.errors import EnvelopeError
    from lanes.exitcodes import ExitCode

    failed = False
    for path in ns.files:
        try:
            problems = [str(p) for p in validate_envelope(read_envelope(path))]
        except EnvelopeError as exc:
            problems = [f"$: {exc.message}"]
        if problems:
            failed = True
            for problem in problems:
                print(f"{path}: {problem}")
        else:
            print(f"{path}: ok")
    return ExitCode.FAIL if failed else ExitCode.OK
