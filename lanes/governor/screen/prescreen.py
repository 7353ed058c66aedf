"""The hook's pre-screen: can this payload matter to the governor at all?

``lanes hook`` runs on every shell command an agent makes, and almost none of
them are test runs. Parsing the payload (``json``), classifying it and loading
the config each cost as much as an interpreter start, so the hook first looks
at the raw bytes and exits at once when the command cannot be a test run or a
configured suite. Only ``os`` is used here (already loaded by every
interpreter): no json, re, pathlib or typing.

The screen only ever *passes payloads on*; it drops one only when it can prove
the governor would do nothing with it. A payload goes to the full path when:

- the command text mentions a runner word (:data:`RUNNER_WORDS`, matched
  case-insensitively after removing quotes and backslashes, so shell quoting
  such as ``py'test'`` or ``\\pytest`` cannot hide a runner);
- the command mentions a word of a configured non-runner suite (``make
  verify``): the gate must dedup it and auto-record must record it. Those words
  live in a per-user cache (:data:`SUITE_WORDS_FILE`), one row per
  ``pyproject.toml`` stamped with its mtime and size and refreshed by the full
  path (:mod:`lanes.governor.screen.suite_words`); every ``pyproject.toml`` from the
  payload's ``cwd`` up to ``/`` must have a fresh row, else the full path runs
  and refreshes it;
- anything is unclear: ``\\u`` escapes in the JSON, ANSI-C ``$'...'`` quoting,
  a ``command`` that is not a plain string (Codex argv lists), no ``cwd``, an
  unreadable cache.

Every event is screened the same way, PreToolUse included: the gate only acts
on test runs and configured suites, which always pass. The property test in
``tests/governor/test_hook_io.py`` checks that no command the classifier
counts is ever dropped.
"""

from __future__ import annotations

import os

from lanes.governor.state.debug import user_state_dir

__all__ = [
    "RUNNER_WORDS",
    "SUITE_WORDS_FILE",
    "pyprojects_above",
    "read_suite_words",
    "screen",
    "screen_text",
    "string_values",
    "suite_words_path",
    "walk_pyprojects",
]

# Every test run the classifier recognises names one of these: "test" covers
# pytest, py.test, unittest, gotestsum, nextest, go/dotnet/mix/swift/rake/rails
# test, npm/yarn/pnpm/bun test and test:* scripts, vitest, playwright test, mvn
# test, TEST=...; the others are the runners whose counted forms need not say
# "test": cargo t, npm t / pnpm tst ("npm" is in "pnpm"), jest, mvn verify,
# ./gradlew build, phpunit; "tox" and "lanes" are the default test_commands
# forms without "test" in them (`tox -e py311`, `lanes slow run`; a project's
# own forms reach the screen through the suite-word cache).
# tests/governor/test_hook_io.py tries every program
# of the classifier's table with every alias, so a runner added there without
# a word here fails a test, not an agent.
RUNNER_WORDS: tuple[bytes, ...] = (
    b"test",
    b"jest",
    b"npm",
    b"cargo",
    b"mvn",
    b"gradle",
    b"phpunit",
    b"tox",
    b"lanes",
)

SUITE_WORDS_FILE = "suite-words.tsv"
# A row whose words are just this passes every command: the project's config
# could not be read, so the screen cannot know what its suites look like.
EVERYTHING = b"*"

_WHITESPACE = b" \t\r\n"


# stat.S_IFMT / S_IFREG, spelled out: the screen imports nothing but os and sys.
_FILE_TYPE_BITS = 0o170000
_REGULAR_FILE = 0o100000


def suite_words_path() -> str:
    return os.path.join(user_state_dir(), SUITE_WORDS_FILE)


def string_values(raw: bytes, key: bytes) -> list[bytes] | None:
    """The still-escaped values of every JSON object key ``key`` (``b'"cwd"'``).

    None when a value is not a plain string. A key can only appear unescaped
    as a key or a string value; inside another string its quotes are escaped
    (``\\"cwd\\"``), so it never matches. A string value equal to the key is
    followed by ``,``/``}``/``]`` and is skipped.
    """
    values: list[bytes] = []
    size = len(raw)
    start = 0
    while True:
        at = raw.find(key, start)
        if at < 0:
            return values
        pos = at + len(key)
        while pos < size and raw[pos] in _WHITESPACE:
            pos += 1
        if pos >= size or raw[pos] != 0x3A:  # ':'
            start = at + 1
            continue
        pos += 1
        while pos < size and raw[pos] in _WHITESPACE:
            pos += 1
        if pos >= size or raw[pos] != 0x22:  # '"': a list, number or null
            return None
        end = pos + 1
        while True:
            end = raw.find(b'"', end)
            if end < 0:
                return None
            slashes = 0
            while raw[end - 1 - slashes] == 0x5C:  # '\\'
                slashes += 1
            if slashes % 2 == 0:
                break
            end += 1
        values.append(raw[pos + 1 : end])
        start = end + 1


def screen_text(command: bytes) -> bytes:
    """The command as the screen compares it: lower case, and JSON escapes,
    shell quotes and backslashes removed so quoting cannot split a word.

    A backslash-newline inside a word joins it in the shell (``pyt\\<NL>est``);
    in JSON that is the four bytes ``\\\\\\n``, removed first.
    """
    text = command.replace(b"\\\\\\n", b"").replace(b"\\\\\\r\\n", b"").lower()
    return text.replace(b"\\", b"").replace(b'"', b"").replace(b"'", b"")


def walk_pyprojects(start: str, *, first: bool = False) -> tuple[list[tuple[str, str]], bool]:
    """THE walk up for ``pyproject.toml``: ``(found, complete)``.

    ``found`` holds ``(path, stamp)`` of every regular file named
    ``pyproject.toml`` from ``start`` up to ``/`` (only the nearest with
    ``first``), nearest first; the stamp is ``"<mtime_ns>:<size>"``.
    ``complete`` is False when a directory on the way could not be examined.
    The screen, the gate's settings cache and :func:`lanes.config.find_pyproject`
    all walk with this function, so they always agree on which file governs.
    Only ``os``: it runs on the screen's path.
    """
    found: list[tuple[str, str]] = []
    complete = True
    directory = os.path.abspath(start)
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        try:
            info = os.stat(candidate)
        except (FileNotFoundError, NotADirectoryError):
            pass
        except OSError:
            complete = False
        else:
            # A regular file (stat.S_ISREG without importing stat): a directory
            # or a FIFO named pyproject.toml is not a config.
            if info.st_mode & 0o170000 == 0o100000:
                found.append((candidate, f"{info.st_mtime_ns}:{info.st_size}"))
                if first:
                    return found, complete
        parent = os.path.dirname(directory)
        if parent == directory:
            return found, complete
        directory = parent


def pyprojects_above(cwd: str) -> list[tuple[str, str]] | None:
    """``(path, stamp)`` of every ``pyproject.toml`` from ``cwd`` up to ``/``.

    None when ``cwd`` is not absolute or a directory cannot be examined (then
    nobody can tell which config applies).
    """
    if not cwd.startswith("/"):
        return None
    found, complete = walk_pyprojects(cwd)
    return found if complete else None


def read_suite_words() -> dict[str, tuple[str, list[bytes]]] | None:
    """The cache: pyproject path -> (stamp, words). None when unreadable."""
    try:
        # O_NONBLOCK: a FIFO planted here would otherwise hang every command.
        fd = os.open(suite_words_path(), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return {}
    except OSError:
        return None
    try:
        if os.fstat(fd).st_mode & _FILE_TYPE_BITS != _REGULAR_FILE:
            return None  # a FIFO, device or directory: not our cache
        data = os.read(fd, 1 << 20)
    except OSError:
        return None
    finally:
        os.close(fd)
    rows: dict[str, tuple[str, list[bytes]]] = {}
    for line in data.split(b"\n"):
        fields = line.split(b"\t")
        if len(fields) != 3:
            continue
        try:
            path = fields[0].decode()
            stamp = fields[1].decode()
        except UnicodeDecodeError:
            continue
        rows[path] = (stamp, fields[2].split())
    return rows


def screen(raw: bytes) -> str | None:
    """Why ``raw`` cannot matter to the governor, or None when the full path
    must see it."""
    if b"\\u" in raw:
        return None  # a \\uXXXX escape could spell any word
    commands = string_values(raw, b'"command"')
    if not commands:
        return None
    joined = b"\n".join(commands)
    if b"$'" in joined:
        return None  # ANSI-C quoting: $'\\x70ytest' is pytest to the shell
    text = screen_text(joined)
    for word in RUNNER_WORDS:
        if word in text:
            return None
    cwds = string_values(raw, b'"cwd"')
    if not cwds or b"\\" in cwds[0]:
        return None
    try:
        cwd = cwds[0].decode()
    except UnicodeDecodeError:
        return None
    configs = pyprojects_above(cwd)
    if configs is None:
        return None
    if not configs:
        return "no runner word, no pyproject.toml"
    rows = read_suite_words()
    if rows is None:
        return None
    for path, stamp in configs:
        row = rows.get(path)
        if row is None or row[0] != stamp:
            return None  # unknown or changed config: the full path refreshes it
        for word in row[1]:
            if word == EVERYTHING or word in text:
                return None
    return "no runner word, no configured suite word"
