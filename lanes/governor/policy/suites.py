"""Suite resolution: which configured suites a shell command really runs.

An invocation *is* suite S when its runner is S's runner, it has no name
selector (``-k`` ...), its path selectors — normalised relative to the project
root — equal S's paths as a set, and its ``-m`` expression equals the one in
S's own command (absent = absent). Flags that select nothing (``-q``, ``-x``,
``-n 2``, ``--tb=short``) don't matter. A non-runner suite (``runner =
"command"``, e.g. ``make verify``) is the exact argv of its command after env
and wrapper stripping.

Matching is segment-anchored: it looks only at the classifier's segments and
invocations, so a quoted mention, a heredoc body or ``echo "pytest tests/unit"``
is never a suite run (that bug once recorded a PASS nobody ran).
"""

from __future__ import annotations

import os
import posixpath

from lanes.governor.classify.runners.names import COMMAND_RUNNER

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from lanes.governor.classify.model import Classification, Invocation, Segment
    from lanes.governor.settings import ConfigLike, SuiteLike

__all__ = ["SuiteMatch", "normalise_path", "resolve", "suite_selection"]


class SuiteMatch:
    """Suite ``suite`` runs in ``segment`` (``invocation`` is None for command suites)."""

    __slots__ = ("invocation", "segment", "suite")

    def __init__(self, suite: SuiteLike, segment: Segment, invocation: Invocation | None) -> None:
        self.suite = suite
        self.segment = segment
        self.invocation = invocation

    @property
    def name(self) -> str:
        return self.suite.name

    def __repr__(self) -> str:
        return f"SuiteMatch({self.suite.name!r}, {self.segment.text!r})"


def normalise_path(path: str, *, cwd: str | None = None, root: str | None = None) -> str:
    """``./tests/unit/`` -> ``tests/unit``; relative to ``root`` when run from ``cwd``."""
    if cwd is not None and root is not None:
        absolute = path if os.path.isabs(path) else os.path.join(cwd, path)
        relative = os.path.relpath(os.path.normpath(absolute), root)
        if not relative.startswith(".."):
            path = relative.replace(os.sep, "/")
    normal = posixpath.normpath(path) if path else "."
    return normal.rstrip("/") or "/"


class _SuiteShape:
    """What an invocation must look like to be a suite, derived once per suite."""

    __slots__ = ("argv", "full", "markers", "paths")

    def __init__(
        self,
        paths: frozenset[str],
        markers: str | None,
        argv: tuple[str, ...] | None,
        *,
        full: bool,
    ) -> None:
        self.paths = paths
        self.markers = markers
        self.argv = argv
        # The suite's own command runs the whole test root (`pytest tests`
        # where tests/ is the root): a full invocation of the runner is it.
        self.full = full


_shapes: dict[tuple[str, str, str], _SuiteShape] = {}


def _shape(suite: SuiteLike, root: str) -> _SuiteShape:
    key = (suite.name, suite.command, root)
    shape = _shapes.get(key)
    if shape is not None:
        return shape
    from lanes.governor.classify.classifier import classify  # only for configured suites

    # The suite's own command, read by the same classifier as the agent's
    # commands: "the -m expression in S's command" means exactly what the
    # classifier makes of it, and so does "the argv after wrapper stripping".
    parsed = classify(suite.command, root) if suite.command.strip() else None
    markers: str | None = None
    command_paths: tuple[str, ...] = ()
    full = False
    if parsed is not None:
        for inv in parsed.invocations:
            if inv.runner == suite.runner:
                markers = inv.markers
                command_paths = inv.paths
                full = inv.scope == "full"
                break
    argv = parsed.segments[0].argv if parsed is not None and parsed.segments else None
    paths = suite.paths or command_paths
    shape = _SuiteShape(frozenset(normalise_path(p) for p in paths), markers, argv, full=full)
    _shapes[key] = shape
    return shape


def suite_selection(suite: SuiteLike, root: str) -> tuple[frozenset[str], str | None, bool]:
    """What ``suite`` selects, as the hook reads it: its paths (relative to
    ``root``), its ``-m`` expression (None: none) and whether its command runs
    the whole test root. The governor's pytest plugin judges a collection
    against exactly this, so the hook and the runner cannot disagree on what
    a suite is."""
    shape = _shape(suite, root)
    return shape.paths, shape.markers, shape.full


def _is_suite(inv: Invocation, suite: SuiteLike, shape: _SuiteShape, cwd: str, root: str) -> bool:
    if inv.runner != suite.runner or inv.name_filters or inv.narrowing:
        # A run that left tests out never vouches for the whole suite.
        return False
    if inv.markers != shape.markers:
        return False
    if inv.scope == "full":
        return shape.full
    paths = frozenset(normalise_path(p, cwd=cwd, root=root) for p in inv.paths)
    return paths == shape.paths


def resolve(
    classification: Classification, config: ConfigLike, *, cwd: str | None
) -> list[SuiteMatch]:
    """Every (suite, segment) the command runs, in command order, each suite once."""
    root = str(config.root)
    here = cwd or root
    matches: list[SuiteMatch] = []
    seen: set[str] = set()
    for inv in classification.invocations:
        for suite in config.suites.values():
            if suite.runner == COMMAND_RUNNER or suite.name in seen:
                continue
            if _is_suite(inv, suite, _shape(suite, root), here, root):
                matches.append(SuiteMatch(suite, inv.segment, inv))
                seen.add(suite.name)
    command_suites = [s for s in config.suites.values() if s.runner == COMMAND_RUNNER]
    if command_suites:
        for segment in classification.segments:
            for suite in command_suites:
                shape = _shape(suite, root)
                if suite.name not in seen and shape.argv and segment.argv == shape.argv:
                    matches.append(SuiteMatch(suite, segment, None))
                    seen.add(suite.name)
    return matches
