"""``lanes fuzz``: argparse only; the lane is imported when the command runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanes._cli_config import add_config_option, whole_number

if TYPE_CHECKING:
    import argparse

__all__ = ["add_parser"]


def add_parser(sub: Any) -> None:  # noqa: ANN401  # argparse's private _SubParsersAction type
    fuzz = sub.add_parser(
        "fuzz",
        help="fuzz every parser target; rejections must be typed errors with a hint, no case may hang",
        description=(
            "Feed Hypothesis-generated hostile input to every parser target through a watchdog "
            "process. Failures are shrunk and saved under envelopes/fuzz/ with repro and promote "
            "commands. Exit 0 pass, 1 failures found, 2 usage/config error, 3 the lane crashed."
        ),
    )
    add_config_option(fuzz)
    fuzz.add_argument(
        "--iterations",
        type=whole_number(1),
        metavar="N",
        help="cases per target (default: [tool.lanes.fuzz] iterations, 2000)",
    )
    fuzz.add_argument(
        "--seed",
        type=whole_number(0),
        metavar="S",
        help="Hypothesis seed (default: [tool.lanes.fuzz] seed, 1)",
    )
    fuzz.add_argument(
        "--target",
        action="append",
        default=[],
        metavar="NAME",
        help="fuzz only this target (repeatable; default: every [tool.lanes.fuzz.targets] entry)",
    )
    fuzz.add_argument(
        "--input-file", type=Path, metavar="FILE", help="replay one saved case from envelopes/fuzz/"
    )
    fuzz.add_argument(
        "--append-corpus",
        action="store_true",
        help="with --input-file: pin the case in baselines/fuzz-regressions.json (the unit suite replays it)",
    )
    fuzz.add_argument(
        "--builtin",
        action="store_true",
        help="also fuzz lanekit's own parsers (the default only in lanekit's repository)",
    )
    fuzz.add_argument(
        "--self-check",
        action="store_true",
        help="run the broken-on-purpose targets; pass only if every one is caught",
    )
    fuzz.set_defaults(handler=_handle)


def _handle(ns: argparse.Namespace) -> int:
    from lanes.config import load_config
    from lanes.fuzz.lane import FuzzOptions, run_fuzz  # imports hypothesis
    from lanes.lane import crash_status

    options = FuzzOptions(
        iterations=ns.iterations,
        seed=ns.seed,
        targets=tuple(ns.target),
        input_file=ns.input_file,
        append_corpus=ns.append_corpus,
        self_check=ns.self_check,
        builtin=ns.builtin,
    )
    options.check()
    config = load_config(ns.config)
    # Each fuzz mode writes its own envelope (run_fuzz), so the lane keeps its
    # entry point; a crash is reported the way every lane reports one.
    try:
        return run_fuzz(options, config)
    except Exception as exc:  # noqa: BLE001  # a harness crash: envelope already says stage "error"
        return crash_status("fuzz", exc)
