"""Shell-command hazards: the vocabulary the classifier's properties and the
fuzz lane draw from.

Two kinds of strategy live here:

- *hazards* — text that breaks naive shell handling: quotes of every kind,
  escapes, backslash-newlines, heredocs, comments, operators, subshells and
  groups, ``bash -c`` nesting, command substitutions, inline env, wrappers,
  unicode and control characters, very long and deeply nested input
  (:func:`shell_commands` mixes them all);
- *building blocks with a known answer* — simple commands whose scope is known
  by construction (:func:`runner_commands`, :func:`non_test_commands`), the
  prefixes that must not change a scope (:data:`SCOPE_PRESERVING_PREFIXES`)
  and the ways to embed text as pure data (:func:`as_data`).

This module is imported by tests and lanes only, never by the governor.
"""

from __future__ import annotations

from typing import Final

from hypothesis import strategies as st

__all__ = [
    "ENV_PREFIXES",
    "OPERATORS",
    "RUNNER_EXAMPLES",
    "SCOPE_PRESERVING_PREFIXES",
    "WRAPPERS",
    "as_data",
    "compound_commands",
    "go_commands",
    "hostile_words",
    "non_test_commands",
    "pytest_commands",
    "quote",
    "runner_commands",
    "shell_commands",
    "simple_commands",
    "sweep_bypass_commands",
]

# --------------------------------------------------------------- known answers

# (command, scope): one or more examples of every row of the runner table.
RUNNER_EXAMPLES: Final[tuple[tuple[str, str], ...]] = (
    ("pytest", "full"),
    ("pytest -q -x", "full"),
    ("python -m pytest tests", "full"),
    ("pytest tests/test_a.py", "filtered"),
    ("pytest tests/a.py::TestA::test_b", "filtered"),
    ("pytest -k smoke", "filtered"),
    ("python -m unittest", "full"),
    ("python3 -m unittest tests.test_a", "filtered"),
    ("python -m unittest discover -s tests/unit", "filtered"),
    ("go test ./...", "full"),
    ("go test -race ./...", "full"),
    ("go test ./pkg/...", "filtered"),
    ("go test -run TestA ./...", "filtered"),
    ("cargo test", "full"),
    ("cargo test parser", "filtered"),
    ("cargo test -p core", "filtered"),
    ("npm test", "full"),
    ("npm run test:unit", "full"),
    ("npm test -- src/a.test.js", "filtered"),
    ("npm test -w api", "filtered"),
    ("yarn test", "full"),
    ("yarn workspace web test", "filtered"),
    ("pnpm test", "full"),
    ("pnpm --filter web test", "filtered"),
    ("bun test", "full"),
    ("bun test src/a.test.ts", "filtered"),
    ("npx jest", "full"),
    ("npx jest -t renders", "filtered"),
    ("npx vitest run", "full"),
    ("npx vitest run src/a.test.ts", "filtered"),
    ("npx playwright test", "full"),
    ("npx playwright test -g login", "filtered"),
    ("dotnet test", "full"),
    ("dotnet test App.sln", "full"),
    ("dotnet test --filter Category=Unit", "filtered"),
    ("mvn test", "full"),
    ("mvn -B verify", "full"),
    ("mvn test -Dtest=FooTest", "filtered"),
    ("./gradlew test", "full"),
    ("./gradlew build", "full"),
    ("./gradlew :core:test", "filtered"),
    ("mix test", "full"),
    ("mix test test/a_test.exs:12", "filtered"),
    ("vendor/bin/phpunit", "full"),
    ("vendor/bin/phpunit --filter testA", "filtered"),
    ("bundle exec rake test", "full"),
    ("bin/rails test test/models/a_test.rb", "filtered"),
    ("swift test", "full"),
    ("swift test --filter ATests", "filtered"),
)

_NON_TEST_EXAMPLES: Final = (
    "ls -la",
    "git status",
    "git commit -m 'run pytest'",
    "echo pytest",
    "grep -r pytest .",
    "pip install pytest",
    "which pytest",
    "pytest --version",
    "pytest --collect-only -q",
    "go test -c ./pkg",
    "go vet ./...",
    "cargo test --no-run",
    "cargo build",
    "npm install",
    "npm run build",
    "npx jest --listTests",
    "npx vitest list",
    "npx playwright test --list",
    "dotnet test --list-tests",
    "mvn -DskipTests install",
    "./gradlew build -x test",
    "make verify",
    "ruff check .",
    "cat README.md",
)

# Prefixes that must never change a command's scope (the property).
SCOPE_PRESERVING_PREFIXES: Final = ("timeout 60 ", "uv run ", "env A=1 ", "cd x && ")

WRAPPERS: Final = (
    "timeout 60 ",
    "timeout -s KILL 5m ",
    "uv run ",
    "uv run --frozen --with pytest-cov ",
    "env A=1 ",
    "env -u HOME ",
    "time ",
    "nice -n 10 ",
    "ionice -c 3 ",
    "xvfb-run -a ",
    "sudo -E ",
    "command ",
    "exec ",
    "stdbuf -oL ",
    "taskset -c 0 ",
    "poetry run ",
    "pdm run ",
    "pipenv run ",
    "rye run ",
    "conda run -n ci ",
    "nohup ",
)

ENV_PREFIXES: Final = (
    "",
    "A=1 ",
    "LANES_TEST_FORCE=1 ",
    "CI=true NODE_ENV=test ",
    "X='a b' ",
    'Y="$HOME/x" ',
    "EMPTY= ",
)

OPERATORS: Final = (";", " && ", " || ", " | ", " & ", "\n", " |& ", " ;\n")

_HAZARD_CHARACTERS: Final = (
    "\x00\x01\x07\x08\x0b\x0c\x1b\x7f\u2028\u2029\ufeff\u202e\u0301\ud800\udfff"
    "\U0001f600\t\r\n \\'\"`$#&|;()<>{}[]*?!~=%^"
)


def quote(word: str) -> str:
    """``word`` as one shell word: single-quoted unless it is plain."""
    if word and all(ch.isalnum() or ch in "-_./:=@%+," for ch in word) and word.isascii():
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def _double_quoted(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
    return '"' + escaped.replace("`", "\\`") + '"'


def hostile_words(*, max_size: int = 20) -> st.SearchStrategy[str]:
    """Short words dense in shell metacharacters, unicode and control characters."""
    return st.text(
        st.one_of(st.sampled_from(_HAZARD_CHARACTERS), st.characters()), max_size=max_size
    )


def runner_commands() -> st.SearchStrategy[tuple[str, str]]:
    """``(command, scope)`` of one simple command that runs tests."""
    return st.one_of(st.sampled_from(RUNNER_EXAMPLES), pytest_commands(), go_commands())


def non_test_commands() -> st.SearchStrategy[str]:
    """Simple commands that run no test (look-ups, installs, listings, data)."""
    return st.sampled_from(_NON_TEST_EXAMPLES)


def simple_commands() -> st.SearchStrategy[tuple[str, str]]:
    """``(command, scope)`` of any simple command with a known scope."""
    return st.one_of(runner_commands(), non_test_commands().map(lambda c: (c, "none")))


# Values that look like paths on purpose: a value-taking option must never
# let its value pass for a selector.
_PATHISH_VALUES: Final = (
    "tests/test_a.py",
    "tests/unit",
    "src/pkg",
    "out.xml",
    "reports/junit.xml",
    "10",
    "auto",
    "loadscope",
    "no:randomly",
    "term-missing",
    "a b",
    "x::y",
)
_PYTEST_VALUE_OPTIONS: Final = (
    "-n",
    "--durations",
    "--cov-report",
    "-p",
    "-c",
    "--timeout",
    "--dist",
    "-o",
    "--junitxml",
    "-W",
    "--basetemp",
    "--tb",
    "-r",
    "--maxfail",
    "--rootdir",
    "--ignore",
    "--deselect",
    "-m",
    "--reruns",
    "--randomly-seed",
)
_PYTEST_FLAGS: Final = ("-x", "-q", "-v", "-s", "-vv", "--ff", "--strict-markers", "-ra")
_PYTEST_SELECTORS: Final = (
    "tests/test_a.py",
    "tests/unit",
    "./tests/unit/",
    "tests/a.py::TestA::test_b",
    "-k smoke",
    "-k 'a and not b'",
    "-ksmoke",
    "--lf",
)
_PYTEST_PROGRAMS: Final = ("pytest", "py.test", "python -m pytest", "python3 -m pytest")


@st.composite
def pytest_commands(draw: st.DrawFn) -> tuple[str, str]:
    """A pytest command of value options, flags and maybe selectors, with its scope."""
    parts = [draw(st.sampled_from(_PYTEST_PROGRAMS))]
    for _ in range(draw(st.integers(0, 4))):
        option = draw(st.sampled_from(_PYTEST_VALUE_OPTIONS))
        value = quote(draw(st.sampled_from(_PATHISH_VALUES)))
        joined = option.startswith("--") and draw(st.booleans())
        parts.append(f"{option}={value}" if joined else f"{option} {value}")
    parts.extend(draw(st.lists(st.sampled_from(_PYTEST_FLAGS), max_size=3)))
    selectors = draw(st.lists(st.sampled_from(_PYTEST_SELECTORS), max_size=2))
    whole_root = draw(st.booleans())
    if whole_root:
        parts.append("tests")  # the whole test root: it swallows path selectors
    parts.extend(selectors)
    command = " ".join([parts[0], *draw(st.permutations(parts[1:]))])
    names = [s for s in selectors if s.startswith("-")]
    paths = [s for s in selectors if not s.startswith("-")]
    filtered = bool(names) or (bool(paths) and not whole_root)
    return command, "filtered" if filtered else "full"


_GO_VALUE_OPTIONS: Final = (
    "-timeout 5m",
    "-count=1",
    "-count 1",
    "-p 4",
    "-coverprofile cover.out",
    "-coverprofile=./pkg/cover.out",
    "-covermode atomic",
    "-tags integration",
    "-parallel 8",
    "-C ./pkg",
)


@st.composite
def go_commands(draw: st.DrawFn) -> tuple[str, str]:
    """A ``go test`` command with value options, packages and maybe ``-run``."""
    parts = ["go", "test"]
    parts.extend(draw(st.lists(st.sampled_from(_GO_VALUE_OPTIONS), max_size=3)))
    parts.extend(draw(st.lists(st.sampled_from(("-v", "-race", "-short", "-json")), max_size=2)))
    filtered = False
    if draw(st.booleans()):
        parts.append("-run TestA")
        filtered = True
    package = draw(st.sampled_from(("./...", "", "./pkg/...", "./internal/x")))
    if package:
        parts.append(package)
        filtered = filtered or package != "./..."
    return " ".join(parts), "filtered" if filtered else "full"


# ------------------------------------------------------------------ data forms


@st.composite
def as_data(draw: st.DrawFn, text: str) -> str:
    """A command in which ``text`` appears only as data: quoted, a heredoc
    body, a comment, an assignment or a ``grep`` pattern."""
    form = draw(st.integers(0, 8))
    if form == 0:
        return f"echo {quote(text)}"
    if form == 1:
        return f"printf '%s\\n' {_double_quoted(text)}"
    if form == 2:
        return f"git commit -m {quote(text)}"
    if form == 3:
        return f"grep -rn -- {quote(text)} ."
    if form == 4:
        return f"note={quote(text)}"
    if form == 5:
        comment = text.replace("\n", " ").replace("\r", " ")
        return f"ls # {comment}\n:"  # a comment ends its line; `:` ends the form
    delimiter = "LANES_EOF"
    strip_tabs = form == 6
    quoted_delimiter = draw(st.sampled_from((delimiter, f"'{delimiter}'", f'"{delimiter}"')))
    lines = [
        line
        for line in text.replace("\r", "").split("\n")
        if (line.lstrip("\t") if strip_tabs else line) != delimiter
    ]
    body = "\n".join(lines)
    operator = "<<-" if strip_tabs else "<<"
    consumer = draw(st.sampled_from(("cat", "cat > notes.txt", "tee out.txt", "python -")))
    return f"{consumer} {operator}{quoted_delimiter}\n{body}\n{delimiter}\nls"


# --------------------------------------------------------------------- hazards


def _compound(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Well-formed compound commands around ``children``."""
    return st.one_of(
        st.tuples(children, st.sampled_from(OPERATORS), children).map("".join),
        children.map(lambda c: f"( {c} )"),
        children.map(lambda c: f"{{ {c}; }}"),
        children.map(lambda c: f"if {c}; then {c}; elif {c}; then :; else {c}; fi"),
        children.map(lambda c: f"for f in a b; do {c}; done"),
        children.map(lambda c: f"for ((i = 0; i < 3; i++)); do {c}; done"),
        children.map(lambda c: f"while {c}; do {c}; done"),
        children.map(lambda c: f"until {c}; do break; done"),
        children.map(lambda c: f"case $x in\n  a|b) {c} ;;\n  (c) {c};;\n  *) :\nesac"),
        children.map(lambda c: f"case $x in a) {c};; esac"),
        children.map(lambda c: f"f() {{ {c}; }}"),
        children.map(lambda c: f"function g {{ {c}; }}"),
        children.map(lambda c: f"! {c}"),
        children.map(lambda c: f"time {c}"),
        children.map(lambda c: f"x=$({c})"),
        children.map(lambda c: f"{c} 2>&1 | tee log.txt"),
        # The delimiter line must stand alone; `:` gives what follows a command.
        children.map(lambda c: f"{c} <<'EOF'\nany text\nEOF\n:"),
        children.map(lambda c: f"bash -c {quote(c)}"),
        children.flatmap(as_data),
    )


def compound_commands() -> st.SearchStrategy[str]:
    """Well-formed shell: simple commands nested in every compound construct."""
    leaves = simple_commands().map(lambda pair: pair[0])
    return st.recursive(leaves, _compound, max_leaves=6)


def _pieces() -> st.SearchStrategy[str]:
    return st.one_of(
        simple_commands().map(lambda pair: pair[0]),
        hostile_words(),
        st.sampled_from(WRAPPERS).flatmap(
            lambda wrapper: runner_commands().map(lambda pair: wrapper + pair[0])
        ),
        st.sampled_from(ENV_PREFIXES).flatmap(
            lambda env: simple_commands().map(lambda pair: env + pair[0])
        ),
        st.sampled_from(("'", '"', "`", "$(", "${", "<<", "<<-", "\\", "\\\n", "#", "$'")),
        st.text(max_size=30),
    )


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(children, st.sampled_from(OPERATORS), children).map("".join),
        children.map(lambda c: f"( {c} )"),
        children.map(lambda c: f"{{ {c}; }}"),
        children.map(lambda c: f"bash -c {quote(c)}"),
        children.map(lambda c: f"sh -c {_double_quoted(c)}"),
        children.map(lambda c: f"echo $({c})"),
        children.map(lambda c: f"if {c}; then {c}; fi"),
        children.map(lambda c: f"for f in a b; do {c}; done"),
        children.map(lambda c: f"{c} 2>&1 | tee log.txt"),
        children.flatmap(as_data),
    )


def _repeated(pair: tuple[str, int]) -> str:
    """``text`` repeated ``count`` times, capped near 20,000 characters."""
    text, count = pair
    return text * min(count, 20_000 // max(1, len(text)))


def shell_commands() -> st.SearchStrategy[str]:
    """Any shell text: every hazard above, nested, plus very long and deeply
    nested input. The classifier must answer all of it without raising."""
    nested = st.recursive(_pieces(), _combine, max_leaves=8)
    deep = st.tuples(st.sampled_from(("(", "$(", "bash -c '", "{ ", "`", '"')), st.integers(1, 400))
    return st.one_of(
        nested,
        deep.map(lambda pair: pair[0] * pair[1] + "pytest"),
        st.tuples(nested, st.integers(50, 2_000)).map(_repeated),
        st.text(),
    )


# ------------------------------------------------------ full sweeps in disguise

_IDENTIFIERS = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda word: word not in ("and", "or", "not")
)


@st.composite
def _roundabout_root(draw: st.DrawFn) -> str:
    """``tests`` written the long way round: ``./tests/x/..//``, ``tests/../tests``."""
    path = "tests"
    for _ in range(draw(st.integers(1, 4))):
        step = draw(st.sampled_from(("down-up", "dot", "slash", "via-parent", "prefix")))
        if step == "down-up":
            path += "/" + draw(_IDENTIFIERS) + "/.."
        elif step == "dot":
            path += "/."
        elif step == "slash":
            path += "//"
        elif step == "via-parent":
            path = path + "/../tests"
        else:
            path = "./" + path
    return path + draw(st.sampled_from(("", "/")))


def _nested_bash(depth: int) -> str:
    command = "pytest"
    for _ in range(depth):
        command = "bash -c " + quote(command)
    return command


@st.composite
def _computed_runner(draw: st.DrawFn) -> str:
    """A runner name the shell builds at run time."""
    var = draw(_IDENTIFIERS).upper() or "P"
    return draw(
        st.sampled_from(
            (
                f"{var}=pytest; ${var}",
                f"{var}=pytest; ${{{var}}} -q",
                f"export {var}=pytest; ${var}",
                "A=py; B=test; $A$B",
                "$(echo pytest)",
                "`echo pytest`",
                '"$(which pytest)"',
                "$(command -v pytest) -q",
                f"${var}",
                f'"${var}" -m pytest',
                f'bash -c "${var}"',
                f'eval "${var}"',
            )
        )
    )


@st.composite
def sweep_bypass_commands(draw: st.DrawFn) -> str:
    """Commands that run pytest in full while looking like something else:
    paths written the long way round, an empty ``-k``, an
    argument file nobody can read, nesting past what the classifier follows,
    runner names built at run time, and padding that pushes the command past
    the classifier's budgets. The full-sweep gate must
    block every one of them (the fuzz lane's ``sweep-gate`` target)."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        command = "pytest " + draw(_roundabout_root())
    elif kind == 1:
        # The one -k the hook reads as selecting everything; `-k 'not x'`
        # is a filter to the hook, and the pytest plugin judges what it leaves.
        command = "pytest -k " + draw(st.sampled_from(("''", '""', "' '")))
    elif kind == 2:
        command = "pytest @" + draw(_IDENTIFIERS) + "-unreadable.txt"
    elif kind == 3:
        depth = draw(st.integers(1, 30))
        command = "echo " + "$(" * depth + "pytest" + ")" * depth
    elif kind == 4:
        command = _nested_bash(draw(st.integers(1, 14)))
    else:
        command = draw(_computed_runner())
    command = draw(st.sampled_from(("", *SCOPE_PRESERVING_PREFIXES, "nice -n 19 "))) + command
    padding = draw(st.sampled_from((0, 0, 0, 2_000, 40_000)))
    if padding:
        # Past the token budget or the lexing cap: judged by its text alone.
        command += "; " + "echo x && " * (padding // 10)
    return command
