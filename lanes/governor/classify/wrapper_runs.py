"""Whether a tox or nox command runs tests (a held-out corpus of real CI commands keeps it honest).

- ``tox --version``, ``tox -av``, ``tox -l``, ``tox --help``, ``tox list``
  and their kin only print: not test runs, even though ``tox`` is a
  ``test_commands`` form. So do ``nox --list``, ``nox -l`` and ``nox --help``.
- ``nox -s <session>`` (``--session``, ``--sessions``, ``-e``) is a test run
  when the session runs tests: declared in ``test_commands`` (the classifier's
  forms), or found in the project's ``noxfile.py`` — a ``@nox.session``
  function that calls ``session.run`` with pytest or unittest, directly or
  through a helper of the noxfile. A bare ``nox`` runs the default sessions
  (``nox.options.sessions``, else all of them).

The noxfile is read with :mod:`ast` (never executed), once per file version
per process, and only for a command whose program is ``nox``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    import ast

__all__ = ["nox_runs_tests", "only_informs"]

_TOX_INFO_LONG = frozenset(
    ("--version", "--help", "--help-ini", "--listenvs", "--listenvs-all", "--showconfig")
)
_TOX_INFO_LETTERS = frozenset("alh")
# tox 4's subcommands that print: list, config, depends, quickstart (and aliases).
_TOX_INFO_COMMANDS = frozenset(("list", "l", "config", "c", "depends", "de", "quickstart", "q"))
_NOX_INFO = frozenset(("--list", "-l", "--list-sessions", "--help", "-h", "--version"))
_NOX_SESSION_OPTIONS = frozenset(("-s", "--session", "--sessions", "-e"))
_TEST_PROGRAMS = frozenset(("pytest", "py.test", "unittest"))


def only_informs(program: str, argv: list[str]) -> bool:
    """Whether ``program argv[1:]`` (tox or nox) only prints information."""
    args = argv[1:]
    if "--" in args:
        args = args[: args.index("--")]
    if program == "nox":
        return any(arg in _NOX_INFO for arg in args)
    if program != "tox":
        return False
    for arg in args:
        if arg in _TOX_INFO_LONG:
            return True
        if arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
            letters = set(arg[1:])
            # A cluster of flags only (`-av`, `-lv`): a value-taking short
            # option (`-e py311`) never clusters with these.
            if letters & _TOX_INFO_LETTERS and letters <= _TOX_INFO_LETTERS | {"v", "q"}:
                return True
    positionals = [arg for arg in args if not arg.startswith("-")]
    return bool(positionals) and positionals[0] in _TOX_INFO_COMMANDS and args[0] == positionals[0]


def _selected_sessions(argv: list[str]) -> tuple[list[str], str | None]:
    """(sessions named with -s/--session/-e, the -f/--noxfile given)."""
    sessions: list[str] = []
    noxfile: str | None = None
    taking = False
    args = argv[1:]
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            break
        name, eq, value = arg.partition("=")
        if name in _NOX_SESSION_OPTIONS:
            taking = True
            if eq:
                sessions.append(value)
            continue
        if name in ("-f", "--noxfile"):
            taking = False
            if eq:
                noxfile = value
            elif index < len(args):
                noxfile = args[index]
                index += 1
            continue
        if arg.startswith("-"):
            taking = False
            continue
        if taking:
            sessions.append(arg)
    return sessions, noxfile


def _same_session(selected: str, session: str) -> bool:
    # `tests-3.12` and `tests(python='3.12')` are parametrisations of `tests`.
    return selected == session or (selected.startswith(session) and selected[len(session)] in "-(")


def nox_runs_tests(argv: list[str], root: str | None, *, forms_hit: bool) -> bool:
    """Whether this ``nox`` command runs a session that runs tests.
    ``forms_hit``: it already matched a ``test_commands`` form."""
    if forms_hit:
        return True
    sessions, noxfile = _selected_sessions(argv)
    if root is None and noxfile is None:
        return False
    path = noxfile if noxfile is not None else "noxfile.py"
    if root is not None and not os.path.isabs(path):
        path = os.path.join(root, path)
    found = _noxfile_sessions(path)
    if found is None:
        return False
    testing, defaults = found
    if not sessions:
        sessions = list(defaults)
    return any(_same_session(s, t) for s in sessions for t in testing)


_cache: dict[str, tuple[tuple[int, int], tuple[frozenset[str], tuple[str, ...]]]] = {}


def _noxfile_sessions(path: str) -> tuple[frozenset[str], tuple[str, ...]] | None:
    """(sessions that run tests, default sessions) of the noxfile at ``path``;
    None when it cannot be read or parsed."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    stamp = (stat.st_mtime_ns, stat.st_size)
    cached = _cache.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    if stat.st_size > 1024 * 1024:
        return None  # not a noxfile anyone writes by hand
    try:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    result = _read_noxfile(source)
    if result is not None:
        _cache[path] = (stamp, result)
    return result


def _read_noxfile(source: str) -> tuple[frozenset[str], tuple[str, ...]] | None:
    import ast  # only for a nox command

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}

    def runs_tests(function: ast.FunctionDef, seen: set[str]) -> bool:
        for node in ast.walk(function):
            if not isinstance(node, ast.Call):
                continue
            callee = node.func
            if isinstance(callee, ast.Attribute) and callee.attr in ("run", "run_install"):
                words = [
                    arg.value
                    for arg in node.args
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                ]
                if any(word.split()[:1] and word.split()[0] in _TEST_PROGRAMS for word in words):
                    return True
                if any(w == "-m" for w in words) and any(w in _TEST_PROGRAMS for w in words):
                    return True
            name = callee.id if isinstance(callee, ast.Name) else None
            if name in functions and name not in seen:
                seen.add(name)
                if runs_tests(functions[name], seen):
                    return True
        return False

    sessions: list[str] = []
    testing: set[str] = set()
    for function in functions.values():
        name = _session_name(function)
        if name is None:
            continue
        sessions.append(name)
        if runs_tests(function, {function.name}):
            testing.add(name)
    defaults = _default_sessions(tree)
    return frozenset(testing), tuple(sessions if defaults is None else defaults)


def _session_name(function: ast.FunctionDef) -> str | None:
    """The nox session ``function`` defines (its ``name=`` or its own name),
    None when it is no session."""
    import ast

    for decorator in function.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        target = call.func if call is not None else decorator
        spelled = (
            target.attr
            if isinstance(target, ast.Attribute)
            else target.id
            if isinstance(target, ast.Name)
            else ""
        )
        if spelled != "session":
            continue
        if call is not None:
            for keyword in call.keywords:
                if (
                    keyword.arg == "name"
                    and isinstance(keyword.value, ast.Constant)
                    and isinstance(keyword.value.value, str)
                ):
                    return keyword.value.value
        return function.name
    return None


def _default_sessions(tree: ast.Module) -> list[str] | None:
    """``nox.options.sessions = [...]`` of the noxfile, if it sets it literally."""
    import ast

    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if (
                isinstance(target, ast.Attribute)
                and target.attr == "sessions"
                and isinstance(node.value, ast.List | ast.Tuple)
            ):
                return [
                    element.value
                    for element in node.value.elts
                    if isinstance(element, ast.Constant) and isinstance(element.value, str)
                ]
    return None
