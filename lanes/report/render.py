"""Render a directory of envelopes into a Markdown job summary and an HTML page.

Envelopes carry user strings (error messages, test ids, branch names), so
neither output trusts them: the HTML environment autoescapes, and the Markdown
environment escapes every ``{{ ... }}`` through ``finalize`` unless a filter
marked its result as Markdown we wrote ourselves.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import jinja2

from lanes._atomic import write_atomic, write_atomic_under
from lanes.errors import StateError
from lanes.report._collect import collect
from lanes.report._formats import ctrf as ctrf_json
from lanes.report._formats import in_toto_jsonl, in_toto_statements, junit_xml
from lanes.report._history import load_history, utc_now
from lanes.report._view import build_view, shown_path

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from lanes.report._view import ReportView

__all__ = [
    "SUMMARY_LIMIT",
    "VALUE_LIMIT",
    "Report",
    "build_report",
    "fit_markdown",
    "markdown_escape",
    "render_html",
    "render_markdown",
]

TEMPLATES = Path(__file__).with_name("templates")
# GitHub rejects a job summary over 1 MiB (1,048,576 bytes); other steps may
# append to the same file, so ours stays well below.
SUMMARY_LIMIT = 1_000_000

# The characters GitHub-flavoured Markdown reads as syntax in the middle of a
# line (our values never start one): emphasis, code, links, strikethrough, and
# `|`, which splits a table cell even inside a code span. `<` and `&` become
# entities instead, so no raw HTML or entity can start.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


class _Markdown(str):
    """Markdown we produced ourselves; the environment's finalize leaves it alone."""

    __slots__ = ()


def markdown_escape(text: str) -> str:
    """``text`` shown literally in GitHub Markdown, on one line (safe in a table cell)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return " ".join(text.splitlines())


# One value shown in the job summary, at most: a branch name, a message or a
# test id this long is already unreadable in a table cell, and one envelope's
# megabyte-long value must not push every other lane out of the 1 MiB summary.
# index.html shows values whole.
VALUE_LIMIT = 500


def _bounded(text: str) -> str:
    if len(text) <= VALUE_LIMIT:
        return text
    return f"{text[: VALUE_LIMIT - 1]}… ({len(text):,} characters; index.html has all)"


def _finalize(value: object) -> str:
    if isinstance(value, _Markdown):
        return value
    return markdown_escape(_bounded("" if value is None else str(value)))


def _code(value: object) -> _Markdown:
    """An inline code span; values with backticks or pipes fall back to escaped text."""
    text = _bounded(str(value))
    if re.fullmatch(r"[A-Za-z0-9:._/@+-]*", text) and text:
        return _Markdown(f"`{text}`")
    return _Markdown(markdown_escape(text))


def _codeblock(lines: Sequence[object]) -> _Markdown:
    """A fenced code block; the fence is longer than any backtick run inside it."""
    body = "\n".join(" ".join(str(line).splitlines()) for line in lines)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return _Markdown(f"{fence}sh\n{body}\n{fence}")


@functools.cache
def _environment(*, html: bool) -> jinja2.Environment:
    # One per output kind: templates compile once (a truncated summary renders
    # each lane's section on its own).
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        # HTML: jinja2's autoescape. Markdown: HTML autoescape would leave `|`
        # and `*` alone, so _finalize escapes for Markdown instead.
        # StrictUndefined either way so a template typo fails the tests loudly.
        autoescape=html,  # noqa: S701  # Markdown output is escaped by _finalize
        finalize=None if html else _finalize,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["code"] = _code
    env.filters["codeblock"] = _codeblock
    # A macro's output is template text plus values finalize already escaped:
    # mark it as ours so it is not escaped twice.
    env.filters["markdown"] = _Markdown
    return env


Part = Literal["all", "overview", "sections"]


def render_markdown(view: ReportView, *, part: Part = "all") -> str:
    """The job summary, or one part of it: the overview (title, tables, notes) or the lane sections."""
    return _environment(html=False).get_template("summary.md.j2").render(report=view, part=part)


_SEVERITY = {"invalid": 0, "error": 1, "fail": 2, "pass": 3}


def fit_markdown(view: ReportView, limit: int = SUMMARY_LIMIT) -> str:
    """The job summary in at most ``limit`` bytes of UTF-8, whatever the envelopes hold.

    Full when it fits. Otherwise the overview, then as many lane sections as
    fit — failed, crashed and invalid lanes first, since they are what the
    reader came for — and a **Truncated:** line naming what was left out; an
    overview too big on its own is cut at a line. Every cut points at index.html.
    """
    full = render_markdown(view)
    size = len(full.encode())
    if size <= limit:
        return full
    overview = render_markdown(view, part="overview")
    note_room = 600  # the truncation line, names of left-out lanes capped below
    used = len(overview.encode()) + note_room
    kept: list[str] = []
    left_out: list[str] = []
    for lane in sorted(view.lanes, key=lambda lane: _SEVERITY.get(lane.status, 3)):
        section = render_markdown(replace(view, lanes=(lane,)), part="sections")
        if used + len(section.encode()) <= limit:
            kept.append(section)
            used += len(section.encode())
        else:
            left_out.append(lane.label)
    if used <= limit:
        shown = [label if len(label) <= 40 else label[:39] + "…" for label in left_out[:8]]
        more = f" and {len(left_out) - 8} more" if len(left_out) > 8 else ""
        named = ", ".join(shown) + more
        note = (
            f"\n\n> **Truncated:** the full summary is {size:,} bytes, over GitHub's job-summary "
            f"limit; {len(left_out)} lane section(s) were left out ({markdown_escape(named)}). "
            "index.html (in the envelopes artifact) has everything.\n"
        )
        return overview + "".join(kept) + note
    cut_note = (
        "\n\n> **Truncated:** the summary was cut to stay under GitHub's job-summary limit "
        f"({limit:,} bytes); index.html (in the envelopes artifact) has everything.\n"
    )
    budget = limit - len(cut_note.encode())
    lines: list[str] = []
    taken = 0
    for line in overview.splitlines(keepends=True):
        if taken + len(line.encode()) > budget:
            break
        lines.append(line)
        taken += len(line.encode())
    return "".join(lines) + cut_note


def render_html(view: ReportView) -> str:
    return _environment(html=True).get_template("index.html.j2").render(report=view)


@dataclass(frozen=True)
class Report:
    """What :func:`build_report` rendered and where it went."""

    view: ReportView
    markdown: str
    html: str

    @property
    def ok(self) -> bool:
        """True when at least one lane ran and every envelope is a valid pass."""
        return self.view.ok


def _write(path: Path, text: str, option: str, root: Path | None) -> None:
    """Write one output; under ``root`` (the project) without following a link down the tree."""
    try:
        if root is not None and path.absolute().is_relative_to(root.absolute()):
            write_atomic_under(root, path, text)
        else:
            # Named by the user outside the project: written where it points.
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, text)
    except OSError as exc:
        msg = f"cannot write the report to {str(path)!r}: {exc.strerror or exc}"
        raise StateError(msg, hint=f"choose a writable location with {option} PATH") from exc


def _append_step_summary(markdown: str) -> None:
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    hint = "unset GITHUB_STEP_SUMMARY outside GitHub Actions, or point it at a regular file"
    # Appended, not replaced: other steps of the job write to the same file.
    # O_NONBLOCK and a regular-file check on the descriptor: a FIFO there
    # would otherwise block the report forever.
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(target, flags, 0o644)
    except OSError as exc:
        msg = f"cannot append to $GITHUB_STEP_SUMMARY {target!r}: {exc.strerror or exc}"
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads
            msg = f"$GITHUB_STEP_SUMMARY {target!r} is not a regular file (a FIFO)"
        raise StateError(msg, hint=hint) from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            msg = f"$GITHUB_STEP_SUMMARY {target!r} is not a regular file"
            raise StateError(msg, hint=hint)
        # Unbuffered: a buffered handle kept a short summary until it closed,
        # and a full disk then surfaced as a traceback from the close.
        data = markdown.encode("utf-8")
        try:
            while data:
                data = data[os.write(fd, data) :]
        except OSError as exc:
            msg = f"cannot append to $GITHUB_STEP_SUMMARY {target!r}: {exc.strerror or exc}"
            raise StateError(msg, hint=hint) from exc
    finally:
        os.close(fd)


def build_report(
    directory: Path,
    *,
    out_md: Path,
    out_html: Path,
    history: Path | None = None,
    junit: Path | None = None,
    ctrf: Path | None = None,
    in_toto: Path | None = None,
    now: datetime | None = None,
    root: Path | None = None,
) -> Report:
    """Render every envelope in ``directory``; write the outputs and the step summary.

    ``history`` is a folder of earlier runs' envelopes (trends, deltas, drift);
    ``junit`` and ``ctrf`` are extra outputs for CI test reporters; ``in_toto``
    a folder for one unsigned in-toto test-result statement per lane, or a
    ``.jsonl`` file holding them all, one per line. Outputs inside ``root``
    (the project) are written without following a symlinked directory.
    """
    started = utc_now()
    entries = collect(directory)
    past = None
    if history is not None:
        own = frozenset(
            str(entry.envelope["run_id"]) for entry in entries if entry.envelope is not None
        )
        past = load_history(history, exclude_runs=own)
    if past is not None:
        past = replace(past, directory=shown_path(history))
    view = build_view(entries, directory=shown_path(directory), history=past, now=now or started)
    report = Report(view=view, markdown=fit_markdown(view), html=render_html(view))
    _write(out_md, report.markdown, "--out-md", root)
    _write(out_html, report.html, "--out-html", root)
    if junit is not None:
        _write(junit, junit_xml(view), "--junit", root)
    if ctrf is not None:
        stop = utc_now()
        _write(
            ctrf,
            ctrf_json(
                view,
                start_ms=int(started.timestamp() * 1000),
                stop_ms=int(stop.timestamp() * 1000),
            ),
            "--ctrf",
            root,
        )
    if in_toto is not None and in_toto.suffix == ".jsonl":
        _write(in_toto, in_toto_jsonl(view, directory), "--in-toto", root)
    elif in_toto is not None:
        for name, statement in in_toto_statements(view, directory).items():
            _write(in_toto / name, statement, "--in-toto", root)
    _append_step_summary(report.markdown)
    return report
