"""What every runner rule shares: the option scanner, path normalisation and
the match a rule returns.

The scanner's one job is to never take an option's value for a selector:
``pytest --durations 10 -n 4`` has no positional argument. Options it does not
know are treated by the rule "an unrecognised flag never demotes a run to
filtered": the word after an unknown ``--long`` option is taken as its value
unless it looks like a path.
"""

from __future__ import annotations

import posixpath

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Generator, Iterator

__all__ = [
    "DASHDASH",
    "Call",
    "Delegate",
    "Match",
    "OptionSpec",
    "looks_like_path",
    "normalise_path",
    "scan",
    "words",
]

DASHDASH = "--"
_PATHISH_SUFFIXES = (
    ".py", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".exs", ".ex",
    ".php", ".rb", ".go", ".rs", ".cs", ".csproj", ".fsproj", ".vbproj", ".sln", ".slnx",
    ".java", ".kt", ".swift", ".vue", ".svelte", ".feature",
)  # fmt: skip


def words(text: str) -> frozenset[str]:
    """An option table written as whitespace-separated words."""
    return frozenset(text.split())


class Call:
    """One command as a runner rule sees it, wrappers already stripped.

    ``dynamic[i]`` says ``argv[i]`` holds an expansion (``$TESTS``,
    ``$(git ls-files)``) whose value is unknown until run time: such a word is
    never counted as a selector (an unknown never demotes a run to filtered).
    """

    __slots__ = ("argv", "dynamic", "env", "root")

    def __init__(
        self, argv: list[str], dynamic: list[bool], env: dict[str, str], root: str | None
    ) -> None:
        self.argv = argv
        self.dynamic = dynamic
        self.env = env
        self.root = root


class Match:
    """A test run recognised by a runner rule.

    ``selectors`` are the words as written that made it filtered; ``paths``
    and ``names`` sort them into path-like and name-like selectors (each
    selector lands in exactly one of them, so a match is filtered exactly when
    one of them is non-empty). ``narrowing`` holds what leaves tests out
    without making the run filtered (``--deselect``, ``--ignore``, a ``-k``
    that selects everything): such a run is still a sweep to the gate, but
    never vouches for a whole suite in the ledger.
    """

    __slots__ = ("markers", "names", "narrowing", "paths", "runner", "selectors")

    def __init__(self, runner: str) -> None:
        self.runner = runner
        self.selectors: list[str] = []
        self.paths: list[str] = []
        self.names: list[str] = []
        self.narrowing: list[str] = []
        self.markers: str | None = None

    def path(self, written: list[str], path: str) -> None:
        self.selectors.extend(written)
        self.paths.append(path)

    def name(self, written: list[str], name: str) -> None:
        self.selectors.extend(written)
        self.names.append(name)


class Delegate:
    """The command hands over to another program (``yarn jest`` -> ``jest``).

    The new command is ``argv[start:]`` with ``argv[start]`` replaced by
    ``program`` (when given) and ``insert`` placed after it
    (``gotestsum -- -race ./...`` -> ``go test -race ./...``); ``selectors``
    already narrow the run (``pnpm --filter web exec vitest``).
    """

    __slots__ = ("insert", "program", "selectors", "start")

    def __init__(
        self,
        start: int,
        program: str | None,
        selectors: list[str],
        *,
        insert: tuple[str, ...] = (),
    ) -> None:
        self.start = start
        self.program = program
        self.selectors = selectors
        self.insert = insert


class OptionSpec:
    """One runner's options.

    ``values``: options whose value may be the next word (``--durations 10``);
    ``optional``: options whose value is the next word only when it is not an
    option (argparse ``nargs='?'``, like pytest-cov's ``--cov [SOURCE]``);
    ``flags``: known boolean options, so the word after them is positional;
    ``short_values``: single letters whose value may be glued on (``-n4``,
    ``-kfoo``); ``clusters``: whether ``-xvs`` means ``-x -v -s``;
    ``arrays``: options that take every following non-option word (yargs
    arrays, ``jest --projects a b``); ``single_dash_long``: ``-run X`` is one
    option (Go), not a cluster.
    """

    __slots__ = (
        "arrays",
        "clusters",
        "flags",
        "optional",
        "short_values",
        "single_dash_long",
        "values",
    )

    def __init__(
        self,
        values: frozenset[str],
        *,
        flags: frozenset[str] = frozenset(),
        optional: frozenset[str] = frozenset(),
        short_values: str = "",
        clusters: bool = True,
        single_dash_long: bool = False,
        arrays: frozenset[str] = frozenset(),
    ) -> None:
        self.arrays = arrays
        self.values = values
        self.flags = flags
        self.optional = optional
        self.short_values = short_values
        self.clusters = clusters
        self.single_dash_long = single_dash_long


def looks_like_path(word: str) -> bool:
    """Whether a word after an unknown option is more likely a path than its value."""
    return (
        "/" in word
        or "::" in word
        or "\\" in word
        or word in (".", "..")
        or word.lower().endswith(_PATHISH_SUFFIXES)
    )


def normalise_path(word: str) -> str:
    """``./tests/`` -> ``tests``; ``./tests/a.py::T::t`` keeps its ``::`` part.

    ``..`` is resolved lexically (``tests/unit/..`` -> ``tests``,
    ``tests/../tests`` -> ``tests``): a path written the long way round is
    the same selector.
    """
    path, sep, node = word.partition("::")
    path = posixpath.normpath(path) if path else "."
    if path.startswith("//"):
        path = "/" + path.lstrip("/")  # POSIX keeps a leading `//`; the kernel does not
    return path + sep + node


def scan(
    argv: list[str], start: int, spec: OptionSpec
) -> Iterator[tuple[str | None, str, int, int]]:
    """Yield ``(option, value, index, end)`` per option and ``(None, word, index,
    index + 1)`` per positional. ``--`` is yielded as ``(DASHDASH, "", index,
    index + 1)``; every word after it is positional. A caller whose runner
    passes the words after ``--`` on to another program stops there.

    ``argv[index:end]`` is the item as written; a value joined to its option
    (``--x=1``, ``-n4``) is returned split.
    """
    i = start
    n = len(argv)
    while i < n:
        arg = argv[i]
        if arg == DASHDASH:
            yield DASHDASH, "", i, i + 1
            for j in range(i + 1, n):
                yield None, argv[j], j, j + 1
            return
        if len(arg) < 2 or arg[0] != "-" or _is_negative_number(arg):
            yield None, arg, i, i + 1
            i += 1
            continue
        nxt = argv[i + 1] if i + 1 < n else None
        if arg.startswith("--") or spec.single_dash_long:
            name, eq, value = arg.partition("=")
            if eq:
                yield name, value, i, i + 1
                i += 1
            elif name in spec.arrays:
                # yargs-style array options take every following non-option word.
                j = i + 1
                while j < n and not argv[j].startswith("-"):
                    j += 1
                yield name, " ".join(argv[i + 1 : j]), i, j
                i = j
            elif nxt is not None and _takes_next(spec, name, nxt):
                yield name, nxt, i, i + 2
                i += 2
            else:
                yield name, "", i, i + 1
                i += 1
            continue
        # A short option, possibly a cluster (-xvs) or with its value glued (-n4).
        end = yield from _scan_short(argv, i, spec)
        i = end


def _scan_short(
    argv: list[str], i: int, spec: OptionSpec
) -> Generator[tuple[str | None, str, int, int], None, int]:
    """Yield the options of the short-option word ``argv[i]``; return the next index."""
    arg = argv[i]
    n = len(argv)
    nxt = argv[i + 1] if i + 1 < n else ""
    if arg in spec.values:
        yield arg, nxt, i, min(n, i + 2)
        return i + 2
    if not spec.clusters:
        yield arg, "", i, i + 1
        return i + 1
    for j in range(1, len(arg)):
        letter = arg[j]
        if letter in spec.short_values:
            rest = arg[j + 1 :]
            if rest:
                yield "-" + letter, rest.removeprefix("="), i, i + 1
                return i + 1
            yield "-" + letter, nxt, i, min(n, i + 2)
            return i + 2
        yield "-" + letter, "", i, i + 1
    return i + 1


def _takes_next(spec: OptionSpec, name: str, nxt: str) -> bool:
    """Whether the long option ``name`` takes the next word ``nxt`` as its value."""
    if name in spec.values:
        return True
    if nxt.startswith("-"):
        return False
    if name in spec.optional:
        return True
    # An option we do not know: its next word is its value unless it looks like
    # a path. Guessed only for runners whose boolean flags we list, and only for
    # `--long` options (single-dash options are almost always flags).
    return (
        bool(spec.flags)
        and name not in spec.flags
        and name.startswith("--")
        and not looks_like_path(nxt)
    )


def _is_negative_number(arg: str) -> bool:
    return arg[1:].replace(".", "", 1).isdigit()
