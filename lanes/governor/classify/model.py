"""The classifier's result types, shared by the economy, the gate and the ledger.

Plain ``__slots__`` classes rather than dataclasses: ``dataclasses`` (with
``inspect`` and ``re`` behind it) costs milliseconds to import, and this module
is loaded on every hook call that looks like a test run.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

    Scope: TypeAlias = Literal["none", "filtered", "full"]

__all__ = ["Classification", "Invocation", "Scope", "Segment"]


class Segment:
    """One simple command of the shell text, after env and wrapper stripping.

    ``argv`` is what actually runs (``LANES_TEST_FORCE=1 uv run pytest -q`` ->
    ``("pytest", "-q")``); ``env`` holds the inline ``VAR=value`` prefixes.
    Quoted strings, heredoc bodies and comments never become segments.
    """

    __slots__ = ("argv", "env", "text")

    def __init__(self, argv: tuple[str, ...], env: dict[str, str], text: str) -> None:
        self.argv = argv
        self.env = env
        self.text = text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Segment):
            return NotImplemented
        return (self.argv, self.env, self.text) == (other.argv, other.env, other.text)

    __hash__ = None  # type: ignore[assignment]  # mutable env dict: unhashable like a dict

    def __repr__(self) -> str:
        return f"Segment(argv={self.argv!r}, env={self.env!r}, text={self.text!r})"


class Invocation:
    """One segment that runs tests.

    ``selectors`` are the arguments that made it filtered (empty when full);
    ``paths`` the normalised path/node-id selectors among them; ``name_filters``
    the name selectors (``-k``, ``-run``, ``-t`` ...); ``markers`` pytest's
    ``-m`` expression, if any; ``narrowing`` the options that leave tests out
    without selecting any (``--deselect``, ``--ignore``, ``-k ''``): the run
    is still a sweep, but never vouches for a whole suite.
    """

    __slots__ = (
        "markers",
        "name_filters",
        "narrowing",
        "paths",
        "runner",
        "scope",
        "segment",
        "selectors",
    )

    def __init__(
        self,
        runner: str,
        scope: Literal["filtered", "full"],
        selectors: tuple[str, ...],
        segment: Segment,
        *,
        paths: tuple[str, ...] = (),
        name_filters: tuple[str, ...] = (),
        markers: str | None = None,
        narrowing: tuple[str, ...] = (),
    ) -> None:
        self.runner = runner
        self.scope = scope
        self.selectors = selectors
        self.segment = segment
        self.paths = paths
        self.name_filters = name_filters
        self.markers = markers
        self.narrowing = narrowing

    @property
    def env(self) -> dict[str, str]:
        return self.segment.env

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Invocation):
            return NotImplemented
        return self.to_dict() == other.to_dict() and self.segment == other.segment

    __hash__ = None  # type: ignore[assignment]  # see Segment

    def __repr__(self) -> str:
        return f"Invocation({self.to_dict()!r})"

    def to_dict(self) -> dict[str, object]:
        """The contract shape of one invocation in ``lanes classify --json``."""
        return {
            "runner": self.runner,
            "scope": self.scope,
            "selectors": list(self.selectors),
            "segment": self.segment.text,
            "env": dict(self.segment.env),
        }


class Classification:
    """What a whole shell command does, test-wise.

    ``opaque`` says why part of the command could not be looked into (too
    long, nested too deep, a fault of the classifier), else ``None``;
    ``possible`` holds the runs a program name computed at run time could
    make (``$runner -q``). Neither counts as a test run for the economy or
    the ledger; the full-sweep gate treats both as a possible sweep.
    """

    __slots__ = ("invocations", "opaque", "possible", "segments")

    def __init__(
        self,
        invocations: tuple[Invocation, ...],
        segments: tuple[Segment, ...],
        *,
        opaque: str | None = None,
        possible: tuple[Invocation, ...] = (),
    ) -> None:
        self.invocations = invocations
        self.segments = segments
        self.opaque = opaque
        self.possible = possible

    @property
    def scope(self) -> Scope:
        if not self.invocations:
            return "none"
        if any(inv.scope == "full" for inv in self.invocations):
            return "full"
        return "filtered"

    def to_dict(self) -> dict[str, object]:
        """The contract shape of ``lanes classify --json``."""
        return {
            "scope": self.scope,
            "invocations": [inv.to_dict() for inv in self.invocations],
        }

    def __repr__(self) -> str:
        return f"Classification({self.to_dict()!r})"
