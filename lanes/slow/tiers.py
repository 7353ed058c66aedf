"""Which budget tier a test belongs to: by marker, then by path glob, then the default.

Resolution order, documented in docs/how-to/slow.md:

1. a marker: the first tier (in ``[tool.lanes.slow.tiers]`` order) listing one
   of the test's markers — a marker is an explicit, per-test decision;
2. a path glob: the first tier whose ``paths`` match the test's file, relative
   to the project root;
3. ``default_tier``.

Globs use ``/`` separators: ``*`` and ``?`` stay inside one path segment,
``**`` spans segments, and a pattern without wildcards names a file or a whole
directory (``tests/integration`` matches everything under it), the way suite
``paths`` do.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Iterable

    from lanes.slow.settings import SlowConfig

__all__ = ["TierResolver", "compile_glob"]

_WILDCARDS: Final = frozenset("*?[")


def compile_glob(pattern: str) -> re.Pattern[str]:
    """A regex matching ``/``-separated relative paths against ``pattern``."""
    pattern = pattern.strip()
    while pattern.startswith("./"):
        pattern = pattern[2:]
    pattern = pattern.rstrip("/") or "."
    if not _WILDCARDS.intersection(pattern):
        # A plain path names that file or anything below that directory.
        return re.compile(re.escape(pattern) + r"(?:/.*)?\Z")
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append(r"(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(r".*")
            i += 2
        elif pattern[i] == "*":
            out.append(r"[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append(r"[^/]")
            i += 1
        elif pattern[i] == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape("["))
                i += 1
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


class TierResolver:
    """Resolve a test's tier from its marker names and its root-relative path."""

    def __init__(self, slow: SlowConfig) -> None:
        self.default = slow.default_tier
        # First declaration wins, so build the marker map in table order.
        self._by_marker: dict[str, str] = {}
        # (tier, compiled glob) pairs: plain tuples, because a record class on
        # the enabled plugin's import path costs millions of instructions to create.
        rules: list[tuple[str, re.Pattern[str]]] = []
        for tier in slow.tiers.values():
            for marker in tier.markers:
                self._by_marker.setdefault(marker, tier.name)
            rules.extend((tier.name, compile_glob(p)) for p in tier.paths)
        self._rules = tuple(rules)
        self._marker_order = tuple(self._by_marker)
        self._marker_rank = {name: rank for rank, name in enumerate(self._marker_order)}
        self.markers: frozenset[str] = frozenset(self._by_marker)
        self.has_rules = bool(self._by_marker or self._rules)

    def resolve(self, path: str, marker_names: Iterable[str]) -> str:
        """The tier of a test in ``path`` (``/``-separated) carrying ``marker_names``."""
        if self._marker_rank:
            ranks = [self._marker_rank[n] for n in marker_names if n in self._marker_rank]
            if ranks:
                return self._by_marker[self._marker_order[min(ranks)]]
        for tier, regex in self._rules:
            if regex.match(path):
                return tier
        return self.default
