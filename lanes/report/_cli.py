"""``lanes report``: the parser; rendering is imported only when it runs."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lanes._cli_config import add_config_option

if TYPE_CHECKING:
    import argparse

__all__ = ["add_parser"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    report = sub.add_parser(
        "report",
        help="render every envelope into a Markdown job summary and an HTML page",
        description=(
            "Render every *.json envelope in DIR into a Markdown summary (also appended to "
            "$GITHUB_STEP_SUMMARY when set, kept under GitHub's 1 MiB limit) and a "
            "self-contained HTML page, a view per lane. Replays and self-checks are shown "
            "apart as side runs; on GitHub Actions, findings with a file become annotations. "
            "Exit 0 when at least one lane ran and every envelope that decides the verdict "
            "is a valid pass (a replay never does); 1 when any lane failed or crashed, an "
            "envelope is invalid, or no envelope was found."
        ),
    )
    report.add_argument(
        "--dir",
        type=Path,
        metavar="DIR",
        help="directory of envelopes (default: envelope_dir of [tool.lanes], 'envelopes')",
    )
    report.add_argument(
        "--out-md", type=Path, metavar="PATH", help="Markdown summary (default: DIR/summary.md)"
    )
    report.add_argument(
        "--out-html", type=Path, metavar="PATH", help="HTML page (default: DIR/index.html)"
    )
    report.add_argument(
        "--history",
        type=Path,
        metavar="DIR",
        help=(
            "earlier runs' envelopes (any depth, e.g. downloaded CI artifacts): each key "
            "figure's trend and delta since the previous run, and config/tool drift"
        ),
    )
    report.add_argument(
        "--junit",
        type=Path,
        metavar="FILE",
        help="also write JUnit XML: every lane verdict and finding as a test case",
    )
    report.add_argument(
        "--ctrf",
        type=Path,
        metavar="FILE",
        help="also write CTRF JSON (https://ctrf.io): every lane verdict and finding as a test",
    )
    report.add_argument(
        "--in-toto",
        type=Path,
        metavar="DIR|FILE.jsonl",
        help=(
            "also write one unsigned in-toto statement (test-result predicate v0.1) per lane "
            "into DIR, or all of them as JSON Lines into FILE.jsonl, for those who sign their "
            "CI evidence"
        ),
    )
    add_config_option(report)
    report.set_defaults(handler=_report)


def _report(ns: argparse.Namespace) -> int:
    from lanes.errors import StateError, UsageError
    from lanes.exitcodes import ExitCode

    directory: Path
    # The project whose tree the outputs may not leave (None: --dir names the place).
    root: Path | None = None
    if ns.dir is not None:
        directory = ns.dir
        try:
            str(directory).encode("utf-8")
        except UnicodeEncodeError:
            msg = f"--dir {str(directory)!r} is not a valid UTF-8 name"
            raise UsageError(
                msg, hint="the report names its files in UTF-8: rename the directory"
            ) from None
        if not directory.exists():
            # Never created here: a typo must not yield an empty "report" elsewhere.
            msg = f"--dir {str(directory)!r} does not exist"
            raise UsageError(msg, hint="pass the directory the lanes write their envelopes to")
    else:
        from lanes.config import load_config

        config = load_config(ns.config)
        directory = config.root / config.envelope_dir
        root = config.root
        # Resolved, not compared as text: a symlinked envelopes/ pointing
        # elsewhere would carry summary.md and index.html out.
        if not directory.resolve().is_relative_to(root.resolve()):
            msg = (
                f"envelope_dir {config.envelope_dir!r} resolves to {str(directory.resolve())!r}, "
                "outside the project"
            )
            raise UsageError(
                msg,
                hint=f"replace the symlink {str(directory)!r} with a directory, or name the "
                "place on purpose with --dir DIR",
            )
    if directory.exists() and not directory.is_dir():
        msg = f"--dir {str(directory)!r} is not a directory"
        raise UsageError(msg, hint="pass the directory the lanes write their envelopes to")

    try:
        from lanes.report._formats import github_annotations
        from lanes.report.render import build_report  # jinja2 only when rendering
    except ModuleNotFoundError as exc:
        if exc.name != "jinja2":
            raise
        msg = "`lanes report` needs jinja2, which is not installed"
        raise UsageError(
            msg, hint="install the lane dependencies: python3 -m pip install 'lanekit[lanes]'"
        ) from None

    if ns.history is not None and not ns.history.is_dir():
        msg = f"--history {str(ns.history)!r} is not a directory"
        raise UsageError(
            msg,
            hint="pass a folder of earlier runs' envelopes (e.g. downloaded CI artifacts), "
            "or drop --history",
        )
    out_md: Path = ns.out_md or directory / "summary.md"
    out_html: Path = ns.out_html or directory / "index.html"
    try:
        report = build_report(
            directory,
            out_md=out_md,
            out_html=out_html,
            history=ns.history,
            junit=ns.junit,
            ctrf=ns.ctrf,
            in_toto=ns.in_toto,
            root=root,
        )
    except StateError as exc:
        # The report could not be written: this command crashed, the user did nothing wrong.
        print(f"error: {exc.message}", file=sys.stderr)
        print(f"hint: {exc.hint}", file=sys.stderr)
        return ExitCode.CRASH
    # Plain ASCII on the terminal: a CI log with a non-UTF-8 locale must not
    # turn the report into a UnicodeEncodeError.
    for lane in report.view.lanes:
        side = f"  [{lane.side}]" if lane.side else ""
        side += "" if lane.current else "  [stale: another commit or run]"
        print(f"{lane.status:>7}  {lane.label}{side}")
    written = [
        str(path) for path in (out_md, out_html, ns.junit, ns.ctrf, ns.in_toto) if path is not None
    ]
    print(f"lanes: {report.view.title}; wrote {', '.join(written)}")
    if os.environ.get("GITHUB_ACTIONS") == "true":
        # Findings with a file become annotations on the pull request's diff.
        for line in github_annotations(report.view, root=Path.cwd()):
            print(line)
    return ExitCode.OK if report.ok else ExitCode.FAIL
