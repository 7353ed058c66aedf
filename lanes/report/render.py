"""Render a directory of envelopes into a Markdown job summary and an HTML page.

Envelopes carry user strings (error messages, test ids, branch names), so
neither output trusts them: the HTML environment autoescapes, and the Markdown
environment escapes every ``{{ ... }}`` through ``finalize`` unless a filter
marked its result as Markdown we wrote ourselves.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2

from lanes._atomic import write_atomic
from lanes.errors import StateError
from lanes.report._collect import collect
from lanes.report._view import build_view

if TYPE_CHECKING:
    from lanes.report._view import ReportView

__all__ = ["Report", "build_report", "markdown_escape", "render_html", "render_markdown"]

TEMPLATES = Path(__file__).with_name("templates")

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


def _finalize(value: object) -> str:
    if isinstance(value, _Markdown):
        return value
    return markdown_escape("" if value is None else str(value))


def _code(value: object) -> _Markdown:
    """An inline code span; values with backticks or pipes fall back to escaped text."""
    text = str(value)
    if re.fullmatch(r"[A-Za-z0-9:._/@+-]*", text) and text:
        return _Markdown(f"`{text}`")
    return _Markdown(markdown_escape(text))


def _environment(*, html: bool) -> jinja2.Environment:
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
    return env


def render_markdown(view: ReportView) -> str:
    return _environment(html=False).get_template("summary.md.j2").render(report=view)


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


def _write(path: Path, text: str, option: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
    except OSError as exc:
        msg = f"cannot write the report to {str(path)!r}: {exc.strerror or exc}"
        raise StateError(msg, hint=f"choose a writable location with {option} PATH") from exc


def _append_step_summary(markdown: str) -> None:
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    try:
        # Appended, not replaced: other steps of the job write to the same file.
        with Path(target).open("a", encoding="utf-8") as handle:
            handle.write(markdown)
    except OSError as exc:
        msg = f"cannot append to $GITHUB_STEP_SUMMARY {target!r}: {exc.strerror or exc}"
        raise StateError(
            msg, hint="unset GITHUB_STEP_SUMMARY outside GitHub Actions, or point it at a file"
        ) from exc


def build_report(directory: Path, *, out_md: Path, out_html: Path) -> Report:
    """Render every envelope in ``directory``; write both outputs and the step summary."""
    view = build_view(collect(directory), directory=str(directory))
    report = Report(view=view, markdown=render_markdown(view), html=render_html(view))
    _write(out_md, report.markdown, "--out-md")
    _write(out_html, report.html, "--out-html")
    _append_step_summary(report.markdown)
    return report
