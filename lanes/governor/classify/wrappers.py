"""Command wrappers: what runs ``pytest`` in ``timeout 60 uv run -m pytest``.

:func:`unwrap` looks at one argv and, when its first word is a wrapper it
knows, says where the wrapped command starts. The caller loops until nothing
is left to strip. Each wrapper's value-taking options are listed so that a
value (``timeout -s KILL``, ``uv run --with pytest-cov``) is never taken for
the wrapped command.
"""

from __future__ import annotations

from lanes.governor.classify.runners.argscan import words

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: typing is off the hook's path
if TYPE_CHECKING:
    from collections.abc import Callable

    _Unwrapper = Callable[[list[str]], "Unwrapped | Script | None"]

__all__ = [
    "CONTAINER_PROGRAMS",
    "SHELLS",
    "Script",
    "Unwrapped",
    "basename",
    "skip_options",
    "unwrap",
]

_EXECUTABLE_SUFFIXES = (".exe", ".cmd", ".bat", ".js", ".mjs", ".cjs")


class Unwrapped:
    """The wrapped command starts at ``argv[start]``.

    ``program`` replaces that word when the wrapper names the program
    indirectly (``python -m pytest`` -> ``pytest``, ``hatch run test:pytest``);
    ``env`` holds assignments the wrapper sets (``env A=1 ...``);
    ``guessed`` is the index of an expansion the wrapper skipped as (by all
    odds) more assignments, which could instead be the program
    (``env A=1 $(command -v pytest)``): the full-sweep gate tries it as one.
    """

    __slots__ = ("env", "guessed", "program", "start")

    def __init__(
        self,
        start: int,
        program: str | None = None,
        env: dict[str, str] | None = None,
        *,
        guessed: int | None = None,
    ) -> None:
        self.start = start
        self.program = program
        self.env = env
        self.guessed = guessed


class Script:
    """The wrapper runs shell text (``bash -c '...'``, ``eval ...``)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def basename(word: str) -> str:
    """``./node_modules/.bin/jest`` -> ``jest``; ``gradlew.bat`` -> ``gradlew``."""
    name = word.rpartition("/")[2]
    if "\\" in name:
        name = name.rpartition("\\")[2]
    if "." not in name:
        return name
    lower = name.lower()
    for suffix in _EXECUTABLE_SUFFIXES:
        if lower.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def skip_options(argv: list[str], i: int, values: frozenset[str], *, short_values: str = "") -> int:
    """Index of the first non-option word at or after ``i`` (past a ``--``).

    ``values`` are the options (``-s``, ``--signal``) that take the next word
    as their value unless written ``--signal=KILL``; ``short_values`` are the
    single letters that may be clustered with their value (``-n10``).
    """
    n = len(argv)
    while i < n:
        arg = argv[i]
        if arg == "--":
            return i + 1
        if len(arg) < 2 or arg[0] != "-":
            return i
        if "=" in arg and arg.startswith("--"):
            i += 1
        elif arg in values:
            i += 2
        elif arg[1] != "-" and arg[1] in short_values:
            i += 1 if len(arg) > 2 else 2
        else:
            i += 1
    return i


def _is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and name.isidentifier() and name.isascii()


def _assignments(argv: list[str], i: int) -> tuple[int, dict[str, str]]:
    env: dict[str, str] = {}
    while i < len(argv) and _is_assignment(argv[i]):
        name, _, value = argv[i].partition("=")
        env[name] = value
        i += 1
    return i, env


def _after(argv: list[str], i: int) -> Unwrapped | None:
    return Unwrapped(i) if i < len(argv) else None


# ------------------------------------------------------------------ per wrapper

_ENV_VALUES = frozenset(("-u", "--unset", "-C", "--chdir", "-P", "-S", "--split-string"))
_TIME_VALUES = frozenset(("-o", "--output", "-f", "--format"))
_NICE_VALUES = frozenset(("-n", "--adjustment"))
_IONICE_VALUES = frozenset(("-c", "--class", "-n", "--classdata"))
_TIMEOUT_VALUES = frozenset(("-s", "--signal", "-k", "--kill-after"))
_XVFB_VALUES = words(
    """
    -n --server-num -s --server-args -e --error-file -f --auth-file -p --xauth-protocol -w
    --wait
    """
)
_SUDO_VALUES = words(
    """
    -u --user -g --group -C --close-from -D --chdir -h --host -p --prompt -r --role -t
    --type -T --command-timeout -U --other-user -R --chroot
    """
)
_SUDO_NO_COMMAND = frozenset(("-e", "--edit", "-l", "--list", "-v", "--validate", "-K", "-V"))
_STDBUF_VALUES = frozenset(("-i", "--input", "-o", "--output", "-e", "--error"))
_UV_VALUES = words(
    """
    --directory --project --config-file --cache-dir --color -p --python --with
    --with-editable --with-requirements --package --extra --no-extra --group --only-group
    --no-group --env-file --index --default-index -i --index-url --extra-index-url -f
    --find-links --index-strategy --keyring-provider --resolution --prerelease
    --exclude-newer --link-mode -P --upgrade-package --reinstall-package --refresh-package
    --no-build-package --no-binary-package -C --config-setting --python-platform --from
    --allow-insecure-host --fork-strategy --no-sources-package -w
    """
)
_XARGS_VALUES = words(
    """
    -I -L -n -P -s -d -E -a --max-args --max-lines --max-procs --max-chars --delimiter
    --eof --arg-file --process-slot-var
    """
)
_PIPX_RUN_VALUES = words("--spec --python --pip-args --index-url --backend")
_POETRY_VALUES = frozenset(("-C", "--directory", "-P", "--project"))
_PDM_VALUES = frozenset(("-p", "--project", "--venv", "-c", "--config"))
_HATCH_VALUES = frozenset(
    ("-e", "--env", "-p", "--project", "--data-dir", "--cache-dir", "--config")
)
_HATCH_TEST_VALUES = frozenset(("-py", "--python", "-i", "--include", "-x", "--exclude"))
_CONDA_VALUES = frozenset(("-n", "--name", "-p", "--prefix", "--cwd"))
_NPX_VALUES = frozenset(
    ("-p", "--package", "--cache", "--registry", "-w", "--workspace", "--userconfig", "--prefix")
)
_COVERAGE_VALUES = words(
    """
    --rcfile --source --omit --include --concurrency --context --data-file --debug
    --save-signal
    """
)
_PYTHON_VALUES = frozenset(("-W", "-X", "--check-hash-based-pycs"))
_PYTHON_FLAGS = frozenset("bBdEhiIOPqRsSuvx")
_PHP_VALUES = frozenset(("-d", "-c", "-z"))
_NODE_VALUES = frozenset(
    (
        "-r",
        "--require",
        "--import",
        "--loader",
        "--experimental-loader",
        "-C",
        "--conditions",
        "--title",
        "--inspect-port",
    )
)
_NODE_NO_SCRIPT = frozenset(
    (
        "-e",
        "--eval",
        "-p",
        "--print",
        "--test",
        "-c",
        "--check",
        "-i",
        "--interactive",
        "-v",
        "--version",
        "-h",
        "--help",
    )
)
_SHELL_VALUES = frozenset(("-o", "+o", "--rcfile", "--init-file", "-O", "+O"))
SHELLS = frozenset(("bash", "sh", "zsh", "dash", "ksh", "ash", "mksh"))
_PYTHONS = frozenset(("python", "python3", "python2", "pypy", "pypy3", "py"))
# Programs that run a command in a container (lanes.governor.classify.containers).
CONTAINER_PROGRAMS = frozenset(
    ("docker", "podman", "nerdctl", "docker-compose", "podman-compose", "kubectl", "oc")
)
_CAFFEINATE_VALUES = frozenset(("-t", "-w"))


def _unwrap_env(argv: list[str]) -> Unwrapped | Script | None:
    i = 1
    n = len(argv)
    while i < n:
        arg = argv[i]
        if arg in ("-S", "--split-string") and i + 1 < n:
            # `env -S 'pytest -q'`: the string is split into words; run it as text.
            return Script(" ".join([argv[i + 1], *(_quote(a) for a in argv[i + 2 :])]))
        if arg.startswith("--split-string="):
            return Script(" ".join([arg.partition("=")[2], *(_quote(a) for a in argv[i + 1 :])]))
        if arg == "--":
            i += 1
            break
        if arg[:1] != "-":  # a lone `-` is POSIX for -i
            break
        i += 2 if arg in _ENV_VALUES else 1
    i, env = _assignments(argv, i)
    # `env $(cat .env | xargs) npm test`: an expansion before the command is
    # (by all odds) more assignments, not the program.
    guessed = i if i + 1 < n and argv[i].startswith("$") else None
    while i + 1 < n and argv[i].startswith("$"):
        i += 1
        i, more = _assignments(argv, i)
        env.update(more)
    return Unwrapped(i, env=env, guessed=guessed) if i < n else None


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def _unwrap_timeout(argv: list[str]) -> Unwrapped | None:
    i = skip_options(argv, 1, _TIMEOUT_VALUES, short_values="sk")
    return _after(argv, i + 1)  # past the DURATION


def _unwrap_sudo(argv: list[str]) -> Unwrapped | None:
    if any(arg in _SUDO_NO_COMMAND for arg in argv[1:2]):
        return None
    i = skip_options(argv, 1, _SUDO_VALUES, short_values="ugCDhprtTUR")
    i, env = _assignments(argv, i)
    return Unwrapped(i, env=env) if i < len(argv) else None


def _unwrap_command(argv: list[str]) -> Unwrapped | None:
    i = 1
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "--":
        if "v" in argv[i] or "V" in argv[i]:
            return None  # `command -v pytest` looks a program up; it runs nothing
        i += 1
    if i < len(argv) and argv[i] == "--":
        i += 1
    return _after(argv, i)


def _unwrap_ionice(argv: list[str]) -> Unwrapped | None:
    for arg in argv[1:]:
        if arg in ("-p", "--pid", "-P", "--pgid", "-u", "--uid"):
            return None  # re-prioritises running processes
        if not arg.startswith("-"):
            break
    return _after(argv, skip_options(argv, 1, _IONICE_VALUES, short_values="cn"))


def _unwrap_taskset(argv: list[str]) -> Unwrapped | None:
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        if argv[i] in ("-p", "--pid"):
            return None
        i += 1
    return _after(argv, i + 1)  # past the mask / cpu list


def _unwrap_uv(argv: list[str]) -> Unwrapped | None:
    i = skip_options(argv, 1, _UV_VALUES, short_values="pifPCw")
    if i < len(argv) and argv[i] == "run":
        return _run_options(argv, i + 1)
    if i + 1 < len(argv) and argv[i] == "tool" and argv[i + 1] == "run":
        return _run_options(argv, i + 2, tool=True)
    return None


def _unwrap_uvx(argv: list[str]) -> Unwrapped | None:
    return _run_options(argv, 1, tool=True)


def _unwrap_pipx(argv: list[str]) -> Unwrapped | None:
    """``pipx run [--spec X] pytest ...``: like ``uvx``."""
    if len(argv) < 2 or argv[1] != "run":
        return None
    i = skip_options(argv, 2, _PIPX_RUN_VALUES)
    return Unwrapped(i, program=_strip_version(argv[i])) if i < len(argv) else None


def _run_options(argv: list[str], i: int, *, tool: bool = False) -> Unwrapped | None:
    n = len(argv)
    while i < n:
        arg = argv[i]
        if arg in ("-m", "--module") and i + 1 < n:
            return Unwrapped(i + 1, program=argv[i + 1])
        if arg == "--":
            i += 1
            break
        if len(arg) < 2 or arg[0] != "-":
            break
        if "=" in arg and arg.startswith("--"):
            i += 1
        elif arg in _UV_VALUES:
            i += 2
        else:
            i += 1
    if i >= n:
        return None
    program = _strip_version(argv[i]) if tool else None
    return Unwrapped(i, program=program)


def _strip_version(program: str) -> str:
    """``pytest@8.3`` / ``@playwright/test@1.4`` -> the name without the version."""
    at = program.rfind("@")
    return program[:at] if at > 0 else program


def _unwrap_subcommand(
    argv: list[str], subcommands: tuple[str, ...], values: frozenset[str]
) -> Unwrapped | None:
    """``poetry run X``, ``bundle exec X``: global options, the verb, then X."""
    i = skip_options(argv, 1, values)
    if i < len(argv) and argv[i] in subcommands:
        return _after(argv, skip_options(argv, i + 1, values))
    return None


def _unwrap_hatch(argv: list[str]) -> Unwrapped | None:
    i = skip_options(argv, 1, _HATCH_VALUES, short_values="ep")
    if i >= len(argv):
        return None
    if argv[i] == "test":
        # `hatch test` is hatch's pytest front end; its own options come first.
        j = skip_options(argv, i + 1, _HATCH_TEST_VALUES)
        if "--show" in argv[i + 1 : j]:
            return None
        # Keep everything after the hatch options for pytest by pointing at the
        # verb itself and renaming it.
        rest = j - 1
        return Unwrapped(rest, program="pytest")
    if argv[i] != "run":
        return None
    i = skip_options(argv, i + 1, _HATCH_VALUES)
    if i >= len(argv):
        return None
    env, colon, program = argv[i].partition(":")
    if colon and env and "/" not in env and program:
        return Unwrapped(i, program=program)
    return Unwrapped(i)


def _unwrap_conda(argv: list[str]) -> Unwrapped | None:
    i = skip_options(argv, 1, _CONDA_VALUES)
    if i < len(argv) and argv[i] == "run":
        return _after(argv, skip_options(argv, i + 1, _CONDA_VALUES, short_values="np"))
    return None


def _unwrap_npx(argv: list[str]) -> Unwrapped | Script | None:
    i = 1
    n = len(argv)
    while i < n:
        arg = argv[i]
        if arg in ("-c", "--call") and i + 1 < n:
            return Script(argv[i + 1])
        if arg == "--":
            i += 1
            break
        if len(arg) < 2 or arg[0] != "-":
            break
        i += 2 if arg in _NPX_VALUES else 1
    if i >= n:
        return None
    return Unwrapped(i, program=_strip_version(argv[i]))


def _unwrap_coverage(argv: list[str]) -> Unwrapped | None:
    if len(argv) < 2 or argv[1] != "run":
        return None
    i = 2
    n = len(argv)
    while i < n:
        arg = argv[i]
        if arg in ("-m", "--module") and i + 1 < n:
            return Unwrapped(i + 1, program=argv[i + 1])
        if len(arg) < 2 or arg[0] != "-":
            break
        i += 2 if arg in _COVERAGE_VALUES else 1
    return _after(argv, i)


def _unwrap_python(argv: list[str]) -> Unwrapped | None:
    i = 1
    n = len(argv)
    while i < n:
        arg = argv[i]
        if arg == "-m" and i + 1 < n:
            return Unwrapped(i + 1, program=argv[i + 1])
        if arg.startswith("-m") and len(arg) > 2:
            return Unwrapped(i, program=arg[2:])  # `-mpytest`
        if arg in ("-", "-c") or arg.startswith("-c"):
            return None  # code from stdin or a string: not looked into
        if len(arg) < 2 or arg[0] != "-":
            break
        if arg in _PYTHON_VALUES:
            i += 2
        elif arg[1] in "WX" or arg.startswith("--") or arg[1].isdigit():
            i += 1  # `-Wd`, `-Xdev`, `--check-hash-based-pycs=...`, `py -3.12`
        elif all(ch in _PYTHON_FLAGS for ch in arg[1:]):
            i += 1
        else:
            return None
    return _after(argv, i)  # `python path/to/script.py ...`: the script runs


def _unwrap_interpreter(values: frozenset[str], no_script: frozenset[str]) -> _Unwrapper:
    def unwrap(argv: list[str]) -> Unwrapped | None:
        i = 1
        while i < len(argv) and argv[i].startswith("-") and argv[i] != "--":
            if argv[i] in no_script or argv[i].split("=", 1)[0] in no_script:
                return None
            i += 2 if argv[i] in values else 1
        if i < len(argv) and argv[i] == "--":
            i += 1
        return _after(argv, i)

    return unwrap


def _unwrap_shell(argv: list[str]) -> Script | None:
    i = 1
    n = len(argv)
    has_c = False
    while i < n:
        arg = argv[i]
        if arg in ("--", "-"):
            i += 1
            break
        if len(arg) < 2 or arg[0] not in "-+":
            break
        if arg in _SHELL_VALUES:
            i += 2
            continue
        if arg[1] != "-":
            has_c = has_c or "c" in arg[1:]
            if "o" in arg[1:] or "O" in arg[1:]:
                i += 1  # `-euo pipefail`: the option's name is the next word
        i += 1
    if has_c and i < n:
        return Script(argv[i])
    return None


def _unwrap_eval(argv: list[str]) -> Script | None:
    return Script(" ".join(argv[1:])) if len(argv) > 1 else None


def _simple(values: frozenset[str] = frozenset(), short_values: str = "") -> _Unwrapper:
    def unwrap(argv: list[str]) -> Unwrapped | None:
        return _after(argv, skip_options(argv, 1, values, short_values=short_values))

    return unwrap


_TABLE: dict[str, _Unwrapper] = {
    "env": _unwrap_env,
    "time": _simple(_TIME_VALUES, "of"),
    "nice": _simple(_NICE_VALUES, "n"),
    "ionice": _unwrap_ionice,
    "timeout": _unwrap_timeout,
    "gtimeout": _unwrap_timeout,
    "xvfb-run": _simple(_XVFB_VALUES, "nsefpw"),
    "sudo": _unwrap_sudo,
    "doas": _simple(frozenset(("-u", "-C")), "uC"),
    "command": _unwrap_command,
    "builtin": _simple(),
    "exec": _simple(frozenset(("-a",)), "a"),
    "nohup": _simple(),
    # `git diff --name-only | xargs pytest`: the appended arguments are unknown,
    # and an unknown never makes a run filtered (as with `pytest $FILES`).
    "xargs": _simple(_XARGS_VALUES, "ILnPsdEa"),
    "chronic": _simple(),
    "unbuffer": _simple(),
    "caffeinate": _simple(_CAFFEINATE_VALUES, "tw"),
    "stdbuf": _simple(_STDBUF_VALUES, "ioe"),
    "taskset": _unwrap_taskset,
    "uv": _unwrap_uv,
    "uvx": _unwrap_uvx,
    "pipx": _unwrap_pipx,
    "poetry": lambda argv: _unwrap_subcommand(argv, ("run",), _POETRY_VALUES),
    "pdm": lambda argv: _unwrap_subcommand(argv, ("run",), _PDM_VALUES),
    "pipenv": lambda argv: _unwrap_subcommand(argv, ("run",), frozenset()),
    "rye": lambda argv: _unwrap_subcommand(argv, ("run",), frozenset()),
    "hatch": _unwrap_hatch,
    "conda": _unwrap_conda,
    "mamba": _unwrap_conda,
    "micromamba": _unwrap_conda,
    "bundle": lambda argv: _unwrap_subcommand(argv, ("exec",), frozenset(("--gemfile",))),
    "npx": _unwrap_npx,
    "bunx": _unwrap_npx,
    "coverage": _unwrap_coverage,
    "php": _unwrap_interpreter(_PHP_VALUES, frozenset(("-r", "-v", "-h", "-i", "-m", "-l"))),
    "node": _unwrap_interpreter(_NODE_VALUES, _NODE_NO_SCRIPT),
    "eval": _unwrap_eval,
}


def unwrap(argv: list[str]) -> Unwrapped | Script | None:
    """Where the command wrapped by ``argv[0]`` starts, or ``None``."""
    name = basename(argv[0])
    handler = _TABLE.get(name)
    if handler is not None:
        return handler(argv)
    if name in SHELLS:
        return _unwrap_shell(argv)
    if name in CONTAINER_PROGRAMS:
        from lanes.governor.classify.containers import unwrap_container  # rare: load on use

        return unwrap_container(argv, name)
    if name in _PYTHONS or _is_versioned_python(name):
        return _unwrap_python(argv)
    return None


def _is_versioned_python(name: str) -> bool:
    """``python3.12``, ``pypy3.10``, ``python3.13t``."""
    for prefix in ("python", "pypy"):
        if name.startswith(prefix):
            rest = name[len(prefix) :].rstrip("tdm")
            return bool(rest) and rest.replace(".", "").isdigit()
    return False
