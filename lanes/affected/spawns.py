"""What a spawn starts, told by the program: ignored, a program that is not Python, or Python.

The recorder (:mod:`lanes.affected.recorder`) and the child recorder
(:mod:`lanes.affected.child`) see every spawn as an audit event
(``subprocess.Popen``, ``os.exec*``, ``os.posix_spawn``, ``os.spawn*``,
``os.system``, ``os.fork``). :func:`classify_spawn` resolves the program as
the spawn will find it and reads its first bytes: ``git`` and a program that
is not there are ignored; a native program that is neither an interpreter nor
one of :data:`LAUNCHERS` runs none of the project's Python code and starts no
Python; anything else must leave a record of what it ran.
:func:`carry_recording` puts the recording into an environment a test builds
for its child. Stdlib only, no ``lanes`` import: the child recorder's
bootstrap copies this module into the processes a recorded test starts.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # `typing` is not imported in the child: its import is not free
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "FOREIGN",
    "FOREIGN_PROGRAMS",
    "IGNORED",
    "LAUNCHERS",
    "PYTHON",
    "SPAWN_EVENTS",
    "carry_recording",
    "classify_spawn",
]

SPAWN_EVENTS = frozenset(
    {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork"}
)
# Programs that run none of the project's Python code and start no program that
# could: a test (or a child) that only starts these is still vouched for. On
# lanekit most of the tests that spawned a process spawned git and nothing else;
# every pytest-xdist worker runs `uname -p` (platform.processor()), and the
# lock's owner walk runs `ps`. Shells, `env`, `xargs`, `nox` and the like are
# not here: they start other programs.
FOREIGN_PROGRAMS = frozenset(
    {"git", "uname", "ps", "hostname", "id", "whoami", "nproc", "getconf", "ldconfig", "locale"}
)

# Programs that start other programs: a shell, a build tool, a wrapper, a
# language runtime. The Python they start records itself when it inherits the
# recording, but not when they start it in an environment they cleared (sudo,
# env -i) or with -I: the recording cannot tell, so such a spawn needs a record
# it will not leave, and its test stays unvouched. Any other native program
# (chromium, zizmor, cat) is taken to start no Python: the one premise.
LAUNCHERS = frozenset(
    {
        *("sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox"),
        *("env", "sudo", "su", "doas", "pkexec", "runuser", "setpriv", "ssh", "systemd-run"),
        *("nice", "ionice", "nohup", "setsid", "timeout", "time", "stdbuf", "taskset", "chrt"),
        *("xargs", "find", "parallel", "watch", "script", "unbuffer", "expect", "flock"),
        *("make", "gmake", "cmake", "ninja", "just", "task", "bazel", "meson"),
        *("strace", "ltrace", "valgrind", "gdb", "perf", "unshare", "chroot", "bwrap"),
        *("uv", "uvx", "pipx", "pdm", "poetry", "hatch", "rye", "pixi", "conda", "mamba"),
        *("node", "npm", "npx", "yarn", "pnpm", "bun", "deno", "cargo", "go", "java"),
        *("perl", "ruby", "php", "lua", "tclsh", "docker", "podman", "flatpak", "firejail"),
    }
)
# Interpreter options under which the recording cannot follow: -E and -I
# ignore PYTHONPATH, -S skips sitecustomize.
_UNFOLLOWED_OPTIONS = frozenset("EIS")
# Spawn kinds (classify_spawn): runs no project code and reads no project file
# the test depends on (git); a program that is not Python; Python (or a
# program that can only be assumed to run it), which must leave a record.
IGNORED, FOREIGN, PYTHON = "ignored", "foreign", "python"
_kinds: dict[str, bool | None] = {}


def _is_python(path: str) -> bool | None:
    """Whether the executable at ``path`` is a Python interpreter or a Python
    script (a console script's shebang, pip's ``/bin/sh`` trampoline names
    python too); False for a native binary that is not an interpreter; None
    for another interpreter's script (what it runs is unseen) or a file that
    cannot be read."""
    if path in _kinds:
        return _kinds[path]
    real = os.path.realpath(path)
    verdict: bool | None
    if os.path.basename(real).startswith(("python", "pypy")):
        verdict = True
    else:
        try:
            with open(real, "rb") as handle:
                head = handle.read(512)
        except OSError:
            head = b""
        if head.startswith(b"\x7fELF"):
            verdict = False  # a native program that is not an interpreter
        elif head.startswith(b"#!") and b"python" in head:
            verdict = True
        else:
            verdict = None
    _kinds[path] = verdict
    return verdict


def _resolve(program: str, cwd: object, env: object) -> str | None:
    """The file ``program`` names, as the spawn will find it: a path (relative
    to the child's working directory), else the first match on ``PATH`` (the
    child's, when it gets an environment of its own); None when there is none,
    and the spawn will fail before anything runs."""
    if os.sep in program:
        base = os.fsdecode(cwd) if isinstance(cwd, (str, bytes, os.PathLike)) else os.getcwd()
        found = os.path.join(base, program)
        return found if os.path.exists(found) else None
    path = env.get("PATH") if isinstance(env, dict) else os.environ.get("PATH")
    for directory in (path or os.defpath).split(os.pathsep):
        candidate = os.path.join(directory or ".", program)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _spawned(event: str, args: tuple[Any, ...]) -> tuple[object, object, object, object] | None:
    """(program, argv, working directory, environment) of a spawn audit event; None for a fork."""
    if event == "subprocess.Popen" and len(args) >= 4:
        return args[0], args[1], args[2], args[3]
    if event in ("os.exec", "os.posix_spawn") and len(args) >= 3:
        return args[0], args[1], None, args[2]
    if event == "os.spawn" and len(args) >= 4:
        return args[1], args[2], None, args[3]
    if event == "os.system" and args:
        # A shell runs the command; its first word is what the shell starts.
        command = os.fsdecode(args[0]) if isinstance(args[0], (str, bytes)) else ""
        words = command.split()
        if words and os.path.basename(words[0]) in FOREIGN_PROGRAMS:
            return words[0], words, None, None
        return "/bin/sh", ["/bin/sh", "-c", command], None, None
    return None


def _interpreter_options(words: list[str]) -> set[str]:
    """The one-letter options given to an interpreter, up to its script, -c or -m."""
    options: set[str] = set()
    takes_argument = False
    for word in words:
        if takes_argument:
            takes_argument = False
            continue
        if not word.startswith("-") or word in ("-", "--") or word.startswith("--"):
            break
        for position, letter in enumerate(word[1:], 1):
            if letter in "cm":
                return options  # the rest is the program's
            if letter in "XW":
                # -X opt / -Xopt, -W arg / -Warg: the argument is not options.
                takes_argument = position == len(word) - 1
                break
            options.add(letter)
    return options


def classify_spawn(event: str, args: tuple[Any, ...]) -> tuple[str, str, object]:
    """What a spawn audit event starts: (:data:`IGNORED`, :data:`FOREIGN` or
    :data:`PYTHON`, a short name for messages, the environment it is given:
    None when it inherits this process's).

    A native program that is not an interpreter, nor one of
    :data:`LAUNCHERS`, runs none of the project's Python code and starts no
    Python: it needs no record. What it reads is unseen: its test is vouched
    for the project's code, not for its data files
    (:mod:`lanes.affected.testmap`). A fork, a launcher, another
    interpreter's script, an interpreter run with ``-E``, ``-I`` or ``-S``,
    and anything that cannot be read is counted as Python: it must leave a
    record, and where it cannot, its test stays unvouched.
    """
    spawned = _spawned(event, args)
    if spawned is None:
        return PYTHON, "a fork" if event == "os.fork" else event, None
    program, argv, cwd, env = spawned
    if isinstance(program, (bytes, os.PathLike)):
        program = os.fsdecode(program)
    if not isinstance(program, str) or not program:
        return PYTHON, "an unknown program", env
    name = os.path.basename(program)
    if name in FOREIGN_PROGRAMS:
        return IGNORED, name, env
    words = (
        [os.fsdecode(a) if isinstance(a, (bytes, os.PathLike)) else str(a) for a in argv]
        if isinstance(argv, (list, tuple))
        else []
    )
    resolved = _resolve(program, cwd, env) if name not in LAUNCHERS else program
    if resolved is None:
        return IGNORED, f"{name} (not found: it cannot start)", env
    # By its name or by what it is (sh -> busybox, a copy of bash under another name is not seen).
    if name in LAUNCHERS or os.path.basename(os.path.realpath(resolved)) in LAUNCHERS:
        return PYTHON, f"{name} (it starts programs)", env
    verdict = _is_python(resolved)
    if verdict is False:
        return FOREIGN, name, env
    if verdict is None:
        return PYTHON, name, env
    unfollowed = sorted(_interpreter_options(words[1:]) & _UNFOLLOWED_OPTIONS)
    return PYTHON, name + "".join(f" -{c}" for c in unfollowed), env


def carry_recording(env: object, variables: dict[str, str], bootstrap: str) -> None:
    """Put the recording (its ``variables`` and the ``bootstrap`` directory
    first on ``PYTHONPATH``) into ``env``, an environment a test (or its
    child) built for a process it starts: copied from ``os.environ`` minus
    ``PYTHONPATH``, or a few variables only. Without it that process would
    record nothing and leave its test unvouched. Changed in place, before
    the spawn reads it (the audit event comes first); only a plain ``dict``
    of ``str``."""
    if type(env) is not dict or not bootstrap or any(type(key) is not str for key in env):
        return
    env.update(variables)
    path = env.get("PYTHONPATH") or ""
    if bootstrap not in path.split(os.pathsep):
        env["PYTHONPATH"] = bootstrap + os.pathsep + path if path else bootstrap
