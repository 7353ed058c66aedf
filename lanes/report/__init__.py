"""``lanes report``: every envelope of a run, rendered for review.

Importing this package imports nothing else: the CLI registers the subcommand
through :mod:`lanes.report._cli`, and jinja2 loads only with
:mod:`lanes.report.render`.
"""

from __future__ import annotations

__all__: list[str] = []
