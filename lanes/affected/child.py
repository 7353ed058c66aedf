"""The child recorder: what a Python process a test spawns executed, for the affected map.

A test that runs ``python -c "import pkg.mod; pkg.mod.f()"`` executes ``f`` in
a process the pytest recorder (:mod:`lanes.affected.recorder`) cannot trace.
Like coverage.py's ``COVERAGE_PROCESS_START``, a recording run makes every
Python process started under it record itself: the recorder puts a bootstrap
directory first on ``PYTHONPATH`` (:func:`write_bootstrap`) whose
``sitecustomize`` loads this module, as a copy named :data:`BOOTSTRAP_MODULE`,
when :data:`ENV_CHILD` names a recording. The child then notes, with the same
mechanism as the recorder (``sys.monitoring`` ``PY_START`` disabled after the
first hit per code object on 3.12+, a call-only ``settrace`` on 3.11, an audit
hook), the code it executed and the files it opened under the project root,
and writes them as it runs, a line per new fact, to
``<out>/<test>-<pid>-<random>.jsonl`` (:func:`read_record` folds the lines),
which the recorder merges into the test named by :data:`ENV_TEST` — the test
that was running when the process (or its parent) started: grandchildren
inherit the environment and record too. A record is whole when it reached
its end (at exit, in ``os._exit``, before an ``exec``) or when its process has
ended without one: a child a test kills on purpose has written everything it
executed up to the kill. A process still running when its test ends may yet
run code: its record does not count.

The record also says how many Python processes this one spawned and its
parent's pid: the recorder vouches for a test only when every such spawn, at
every level, has a recorded child (:func:`unrecorded_spawns`). What a spawn
starts is told by the program itself (:func:`classify_spawn`): ``git`` and
its kind run no project code and are ignored; a program that is not Python (a
shell, a browser, a linter binary) runs none of the project's Python code, and
the Python it starts records itself, so it needs no record, but what it reads
is unseen: its test is vouched for code, not for data files. A test that
builds its child's environment (a copy without ``PYTHONPATH``, or ``env={}``)
gets the recording carried into it (:func:`carry_recording`). An interpreter
run with ``-E``, ``-I`` or ``-S``, a launcher that clears the environment
(``sudo``, ``env -i``), a process killed before its recording started, or one
still running at its test's end leaves a spawn without a record, and the test
to the static graph, with the reason. A test that forks the pytest process
itself gets a record from the fork (:func:`record_fork`).

Stdlib only, no ``lanes`` import: the copy runs in whatever interpreter a test
starts (another virtualenv, another Python), and a child that imports nothing
of lanekit must not start to because it is recorded. Outside a recording none
of this is on any path.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # `typing` is not imported in the child: its import is not free
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import CodeType, FrameType, ModuleType
    from typing import Any, NoReturn

__all__ = [
    "BOOTSTRAP_MODULE",
    "ENV_CHILD",
    "ENV_TEST",
    "FOREIGN",
    "IGNORED",
    "PYTHON",
    "RECORD_SUFFIX",
    "ProjectCode",
    "carry_recording",
    "classify_spawn",
    "forked_to_exec",
    "free_tool_id",
    "in_environment",
    "process_ended",
    "read_record",
    "record_fork",
    "start",
    "unrecorded_spawns",
    "write_bootstrap",
]

# {"root": <project root with a trailing separator>, "out": <directory of records>,
#  "bootstrap": <the directory that makes a Python process record itself>}
# Not LANES_*: a test that scrubs lanekit's knobs from a child's environment
# (lanekit's own hook tests do) keeps the recording plumbing.
ENV_CHILD = "LANEKIT_AFFECTED_CHILD"
# The test running now (its index in the recording): set by the recorder around each test.
ENV_TEST = "LANEKIT_AFFECTED_TEST"
BOOTSTRAP_MODULE = "_lanes_affected_child"
# The lowest descriptor a record is written through (begin()).
_RECORD_FD_FLOOR = 256
# A record: JSON lines, the first the header (test, pid, ppid, the counters,
# flags and lists at their start), then one per new fact as it happens.
RECORD_SUFFIX = ".jsonl"

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

# sys.monitoring has six tool ids, and CPython names four of them (0 debugger,
# 1 coverage, 2 profiler, 5 optimizer). Of the two unnamed ones, Hypothesis
# takes 3 for its explain phase, at test time, and warns when it is taken —
# an error under `-W error`, so recording a suite with Hypothesis tests
# failed them. The recorder takes 4, or else the first free id that no known
# tool wants (3 last: then Hypothesis only loses its explanations).
TOOL_IDS = (4, 2, 0, 5, 3)

# The bootstrap's sitecustomize: start the child recorder when a recording is
# named, then run the sitecustomize this one shadows (a venv's or a distro's).
_SITECUSTOMIZE = f'''"""lanekit's affected-map recording: see lanes/affected/child.py."""
import os as _os
import sys as _sys

if _os.environ.get({ENV_CHILD!r}):
    try:
        import {BOOTSTRAP_MODULE}
        {BOOTSTRAP_MODULE}.start()
    except Exception:  # a child that cannot record stays unrecorded: its test unvouched
        pass

_here = _os.path.dirname(_os.path.abspath(__file__))
_saved = list(_sys.path)
_me = _sys.modules.pop("sitecustomize")
_sys.path[:] = [p for p in _sys.path if _os.path.abspath(p or ".") != _here]
try:
    import sitecustomize  # the next one on the path, if any
except ModuleNotFoundError as _missing:
    if _missing.name != "sitecustomize":
        raise
finally:
    _sys.path[:] = _saved
    # The import system takes this name back from sys.modules when this file ends.
    _sys.modules.setdefault("sitecustomize", _me)
'''


# Where installers put third-party code (pip; Debian's python3-* packages).
PACKAGE_DIRS = frozenset({"site-packages", "dist-packages"})


def in_environment(parts: list[str], is_venv: Callable[[str], bool]) -> bool:
    """A file (``parts``: its path below the project root, split) inside an
    installed environment: below a ``site-packages``/``dist-packages``
    directory, or below a virtualenv's (``is_venv``: the directory, relative
    to the root with a trailing "/", holds ``pyvenv.cfg``). Not the project's
    code, though under its root: ``.nox/``, ``.tox/``, ``.venv/``, ``venv/``."""
    directory = ""
    for part in parts[:-1]:
        if part in PACKAGE_DIRS:
            return True
        directory += part + "/"
        if is_venv(directory):
            return True
    return False


class ProjectCode:
    """Whether a file (an absolute path, like ``co_filename``) is the project's
    own code: under ``root`` and not inside an installed environment.

    A virtualenv inside the project (``.nox/tests``) holds every dependency's
    code under the root: counted as the project's, it bloated the map and, on
    3.12+, armed ``sys.monitoring`` on every site-packages function a test
    called. Excluded: this interpreter's prefixes and site-packages when they
    lie under the root, and :func:`in_environment`. The verdict is cached per
    file, so the per-event cost is one dict lookup.
    """

    def __init__(self, root: str) -> None:
        import site  # already imported at start-up (unless -S): free

        self.root = root.rstrip(os.sep) + os.sep
        places = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
        if hasattr(site, "getsitepackages"):  # a virtualenv's old site.py lacks it
            places.update(site.getsitepackages())
        places.add(site.getusersitepackages() or "")
        self.environments = tuple(
            directory
            for place in places
            if place
            and (directory := os.path.abspath(place).rstrip(os.sep) + os.sep).startswith(self.root)
            and directory != self.root
        )
        self.verdicts: dict[str, bool] = {}
        self.venvs: dict[str, bool] = {}

    def __call__(self, filename: str) -> bool:
        verdict = self.verdicts.get(filename)
        if verdict is None:
            verdict = self.verdicts[filename] = (
                filename.startswith(self.root)
                and not filename.startswith(self.environments)
                and not in_environment(filename[len(self.root) :].split(os.sep), self.is_venv)
            )
        return verdict

    def is_venv(self, directory: str) -> bool:
        known = self.venvs.get(directory)
        if known is None:
            path = os.path.join(self.root, directory, "pyvenv.cfg")
            known = self.venvs[directory] = os.path.isfile(path)
        return known


def write_bootstrap(directory: str) -> str:
    """Write the bootstrap directory (a ``sitecustomize`` and this module's copy) into ``directory``."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "sitecustomize.py"), "w", encoding="utf-8") as out:
        out.write(_SITECUSTOMIZE)
    with open(__file__, encoding="utf-8") as source:
        text = source.read()
    with open(os.path.join(directory, BOOTSTRAP_MODULE + ".py"), "w", encoding="utf-8") as out:
        out.write(text)
    return directory


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


def carry_recording(env: object, setting: str, test: str, bootstrap: str) -> None:
    """Put the recording into ``env``, an environment a test (or its child)
    built for a process it starts: copied from ``os.environ`` minus
    ``PYTHONPATH``, or a few variables only. Without it that process would
    record nothing and leave its test unvouched. Changed in place, before
    the spawn reads it (the audit event comes first); only a plain ``dict``
    of ``str``."""
    if type(env) is not dict or not bootstrap or any(type(key) is not str for key in env):
        return
    env[ENV_CHILD] = setting
    env[ENV_TEST] = test
    path = env.get("PYTHONPATH") or ""
    if bootstrap not in path.split(os.pathsep):
        env["PYTHONPATH"] = bootstrap + os.pathsep + path if path else bootstrap


def free_tool_id(monitoring: ModuleType) -> int:
    """The first ``sys.monitoring`` tool id of :data:`TOOL_IDS` no tool holds, or -1."""
    for tool_id in TOOL_IDS:
        if monitoring.get_tool(tool_id) is None:
            return int(tool_id)
    return -1


def unrecorded_spawns(root_pid: int, root_spawned: int, records: list[dict[str, Any]]) -> int:
    """How many project-code spawns of one test have no recorded process behind them.

    ``records`` are the child records of the test. A process's spawns are
    matched by the distinct pids whose recorded parent it is (an ``exec``
    keeps the pid: the image it became is the same child); a process that
    ended by ``exec`` of a program that left no record of the same pid counts
    as one more.
    """
    spawned: dict[int, int] = {root_pid: root_spawned}
    children: dict[int, set[int]] = {}
    images: dict[int, int] = {}
    execs: dict[int, int] = {}
    for record in records:
        pid, ppid = int(record["pid"]), int(record["ppid"])
        spawned[pid] = spawned.get(pid, 0) + int(record["spawned"])
        images[pid] = images.get(pid, 0) + 1
        execs[pid] = execs.get(pid, 0) + (1 if record["exec"] else 0)
        if ppid != pid:
            children.setdefault(ppid, set()).add(pid)
    missing = sum(max(0, n - len(children.get(pid, ()))) for pid, n in spawned.items())
    return missing + sum(1 for pid, n in execs.items() if n >= images[pid])


class _ChildRecorder:
    """The recorder of one process: what it executed and opened under the root, what it spawned.

    The record is written as the process runs, one line per new fact
    (:data:`RECORD_SUFFIX`), so a process killed at any point leaves what it
    executed up to the kill: ``PY_START`` fires before a function's body runs,
    an ``open`` or a spawn's audit event before it happens, and the line is
    written then. One ``os.write`` per line on a file opened ``O_APPEND``:
    a kill can tear only the last line, whose event had not happened yet.
    """

    def __init__(
        self, root: str, out: str, test: str, ppid: int, *, setting: str, bootstrap: str
    ) -> None:
        self.root = root
        self.project = ProjectCode(root)
        self.out = out
        self.test = test
        # Code already written (3.11: every call event comes here; on 3.12
        # a code object fires once, but a fork inherits the parent's set).
        self.code: set[CodeType] = set()
        self.opened: set[str] = set()
        # Names of the programs it started, written once each: Python ones
        # (each must leave a record) and the others (they read files the
        # recording cannot see).
        self.started: set[str] = set()
        self.foreign: set[str] = set()
        # What a process this one starts in an environment of its own needs to record itself.
        self.setting, self.bootstrap = setting, bootstrap
        self.pid = os.getpid()
        self.ppid = ppid
        self.exec = False
        self.fd = -1
        self.path = ""
        self.dumps: Callable[..., str] = repr  # json.dumps once begin() has run
        # 3.11: set while this recorder installs its own trace function.
        self.tracing = False
        self.retraced = False

    def begin(self) -> None:
        """Open this process's record and write its header."""
        import json  # imported by start() already: a dict lookup

        self.dumps = json.dumps
        # An exec'd image keeps the pid: a random part keeps its record apart.
        name = f"{self.test}-{self.pid}-{os.urandom(4).hex()}{RECORD_SUFFIX}"
        self.path = os.path.join(self.out, name)
        self.opened.add(self.path)  # the record itself is nothing the process read
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC
        fd = os.open(self.path, flags | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            import fcntl  # a small C module

            # Far above the descriptors the process opens: one that closes
            # every descriptor (a daemon) and opens a file gets a low number,
            # never this one, so no line lands in the process's own file (a
            # write to the closed descriptor fails: the record goes).
            high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _RECORD_FD_FLOOR)
        except (ImportError, OSError):
            high = fd  # no fcntl (Windows), or fewer descriptors allowed
        if high != fd:
            os.close(fd)
        self.fd = high
        self.line(
            {
                "test": self.test,
                "pid": self.pid,
                "ppid": self.ppid,
                "spawned": 0,
                "started": [],
                "foreign": [],
                "exec": False,
                "code": [],
                "opened": [],
            }
        )

    def line(self, fields: dict[str, Any]) -> None:
        """Append one line: every counter adds, every flag ors, every list extends (:func:`read_record`)."""
        fd = self.fd
        if fd < 0:
            return
        data = (self.dumps(fields, separators=(",", ":")) + "\n").encode()
        try:
            written = os.write(fd, data)
        except OSError:
            written = -1
        if written != len(data):
            # A short write (a full disk) leaves a line that later ones would
            # follow: the record is no longer whole, so it goes (or the
            # recording's directory is gone already). Unrecorded: unvouched.
            self.close()
            try:  # noqa: SIM105  # contextlib is not imported in the child
                os.unlink(self.path)
            except OSError:
                pass

    def close(self) -> None:
        fd, self.fd = self.fd, -1
        if fd >= 0:
            try:  # noqa: SIM105  # contextlib is not imported in the child
                os.close(fd)
            except OSError:
                pass

    def count(self, name: str, n: int = 1) -> None:
        """Add ``n`` to the record's counter ``name`` (a new name starts at 0)."""
        self.line({name: n})

    def trace_calls(self) -> None:
        """3.11: trace this process's calls (call events only) into this record."""
        import threading  # 3.11 only

        self.tracing = True
        try:
            threading.settrace(self.trace)  # returns None: no line events
            sys.settrace(self.trace)  # returns None: no line events
        finally:
            self.tracing = False

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "sys.settrace":
            # 3.12+ records through sys.monitoring: another trace function hides nothing.
            if sys.version_info >= (3, 12) or self.tracing or self.retraced:
                return
            if not self.thread_start(sys._getframe(0).f_back):
                # Someone else's trace function (a debugger, coverage): from
                # here on calls may go unseen, so only a record that reaches
                # its end with this recorder's function back in place is whole.
                self.retraced = True
                self.line({"retraced": True})
        elif event == "open":
            path = args[0]
            if isinstance(path, str) and not path.endswith((".py", ".pyc")):
                self.note_open(path)
        elif event in SPAWN_EVENTS:
            kind, name, env = classify_spawn(event, args)
            if kind == IGNORED:
                return
            carry_recording(env, self.setting, self.test, self.bootstrap)
            if kind == FOREIGN:
                self.note_name(self.foreign, "foreign", name)
            if event == "os.exec":
                # The image is replaced: its record ends here. A Python image
                # writes its own under the same pid (the exec flag asks for it).
                self.exec = True
                self.line({"exec": True} if kind == PYTHON else {"end": True})
            elif kind == PYTHON:
                self.count("spawned")
                self.note_name(self.started, "started", name)

    def note_name(self, names: set[str], field: str, name: str) -> None:
        if name not in names:
            names.add(name)
            self.line({field: [name]})

    def thread_start(self, caller: FrameType | None) -> bool:
        """Whether ``sys.settrace`` (called from ``caller``) is a new thread
        installing this recorder's function (``threading.settrace``: the
        thread's bootstrap calls it)."""
        return (
            caller is not None
            and caller.f_code.co_name == "_bootstrap_inner"
            and caller.f_globals.get("_trace_hook") == self.trace
        )

    def note_open(self, path: str) -> None:
        # Absolute now: the process may change its directory later.
        absolute = os.path.abspath(path)
        if absolute not in self.opened:
            self.opened.add(absolute)
            if self.project(absolute):
                self.line({"opened": [os.path.relpath(absolute, self.root)]})

    def note_code(self, code: CodeType) -> None:
        self.code.add(code)
        filename = code.co_filename
        if self.project(filename):
            first = 0 if code.co_name == "<module>" else code.co_firstlineno
            self.line({"code": [[filename[len(self.root) :], first]]})

    def monitor(self, code: CodeType, offset: int) -> object:
        if code not in self.code:
            self.note_code(code)
        return sys.monitoring.DISABLE  # type: ignore[attr-defined]  # Python >= 3.12 only

    def trace(self, frame: FrameType, event: str, arg: object) -> None:
        code = frame.f_code  # no local trace function: call events only
        if code not in self.code:
            self.note_code(code)

    def forked(self) -> None:
        # A fork (multiprocessing, a daemon) is a new process of its parent:
        # its own record, its own spawns; what it inherited ran in the parent,
        # whose record has it (the sets of what was written stay: the parent wrote them).
        parent, self.pid = self.pid, os.getpid()
        self.close()  # the parent's record: never the child's to write
        if forked_to_exec(sys._getframe(0).f_back):
            return  # the image it execs records itself, if it is Python
        self.ppid, self.exec = parent, False
        try:  # noqa: SIM105  # contextlib is not imported in the child
            self.begin()
        except OSError:
            pass  # the recording is over: unrecorded, its test unvouched

    def finish(self) -> None:
        """The process ends (atexit, ``os._exit``): its record is whole."""
        if self.exec:
            return  # ended at the exec
        if sys.version_info < (3, 12) and sys.gettrace() != self.trace:
            # Someone replaced the trace function (a debugger, coverage, a
            # nested recording): what ran after is unseen. No end, so the
            # test stays unvouched rather than vouched for half a process.
            return
        self.line({"end": True})


def forked_to_exec(caller: FrameType | None) -> bool:
    """Whether an at-fork child handler runs in ``subprocess``'s fork (a
    ``preexec_fn`` makes it call them): that child execs a program next, and
    a record of it would stand for the program, which may be no Python. ``caller``:
    the frame that forked (None: a fork from C code with no Python frame)."""
    return (
        caller is not None
        and caller.f_code.co_name == "_execute_child"
        and caller.f_globals.get("__name__") == "subprocess"
    )


def process_ended(pid: int) -> bool:
    """Whether process ``pid`` has ended: gone, or a zombie nobody reaped yet.

    A process that has ended writes nothing more, so its record is final.
    Reuse of the pid by another process can only make an ended process look
    alive (its record then counts as cut short: unvouched), never the reverse:
    a live process holds its pid. Without ``/proc`` (macOS) a zombie looks
    alive.
    """
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # another user's process holds the pid now: cannot tell
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return False
    # The state follows the command name's closing parenthesis (the name may hold one).
    state = stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3]
    return state in (b"Z", b"X")


def read_record(path: str) -> dict[str, Any] | None:
    """The record at ``path`` folded into one dict, or None when it is not whole.

    Whole: it reached its end (a normal exit, ``os._exit``) or its ``exec``,
    or its process has ended (killed) and what it wrote up to then is all it
    ran: unless its trace function was replaced (``retraced``, 3.11), when
    calls after that went unseen. A record whose process still runs may yet run
    code: None, as if absent. A torn last line (no newline: the write the kill
    interrupted, before its event happened) is skipped; any other bad line
    makes the record unreadable (None).
    """
    import json  # the reader side: the recorder's process

    name = os.path.basename(path)
    parts = name.split("-")
    pid = int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else 0
    # Before reading: a process found ended has written everything it will.
    ended = process_ended(pid)
    try:
        with open(path, "rb") as handle:
            lines = handle.read().split(b"\n")
    except OSError:
        return None
    lines.pop()  # after the last newline: nothing, or a torn line
    try:
        record = json.loads(lines[0]) if lines else None
        if not isinstance(record, dict) or record.get("pid") != pid:
            return None
        for line in lines[1:]:
            fields = json.loads(line)
            for key, value in fields.items():
                _fold(record, key, value)
    except (ValueError, TypeError, AttributeError):
        return None
    if record.get("end") or record.get("exec") or (ended and not record.get("retraced")):
        return record
    return None


def _fold(record: dict[str, Any], key: str, value: object) -> None:
    """One line's field into the record: lists extend, flags or, counters add."""
    if isinstance(value, list):
        have = record.setdefault(key, [])
        have.extend(value)
    elif isinstance(value, bool):
        record[key] = bool(record.get(key)) or value
    elif isinstance(value, int):
        record[key] = int(record.get(key, 0)) + value
    else:
        msg = f"record field {key!r}: {value!r} is no list, flag or counter"
        raise TypeError(msg)


_recorder: _ChildRecorder | None = None


def start() -> None:
    """Record this process for the test :data:`ENV_TEST` names (the bootstrap calls this)."""
    if _recorder is not None:
        return
    import json  # only a recorded child reads its settings

    setting = os.environ[ENV_CHILD]
    settings = json.loads(setting)
    test = os.environ.get(ENV_TEST, "")
    if not test:
        return  # started outside any test (collection, a session fixture): nobody to credit
    bootstrap = str(settings.get("bootstrap", ""))
    # The parent's pid, read at start-up while the process that spawned this one is alive.
    recorder = _ChildRecorder(
        str(settings["root"]),
        str(settings["out"]),
        test,
        os.getppid(),
        setting=setting,
        bootstrap=bootstrap,
    )
    if sys.version_info >= (3, 12):
        monitoring = sys.monitoring  # type: ignore[attr-defined]  # >= 3.12
        tool_id = free_tool_id(monitoring)
        if tool_id < 0:
            return  # every tool id is taken: no record, the test stays unvouched
    try:
        recorder.begin()
    except OSError:
        return  # the recording is over (its directory is gone): nobody to credit
    if sys.version_info >= (3, 12):
        monitoring.use_tool_id(tool_id, "lanes-affected-child")
        monitoring.register_callback(tool_id, monitoring.events.PY_START, recorder.monitor)
        monitoring.set_events(tool_id, monitoring.events.PY_START)
    else:
        recorder.trace_calls()
    _install(recorder)


def record_fork(
    root: str, out: str, test: str, ppid: int, *, setting: str, bootstrap: str
) -> _ChildRecorder | None:
    """Record a fork of the recording pytest process (``ppid``) for ``test``;
    None if it cannot. The caller routes the code events to the recorder it
    returns (its ``monitor``, or on 3.11 its ``trace_calls()``); the audit events, the process's
    end and its own forks are wired here."""
    recorder = _ChildRecorder(root, out, test, ppid, setting=setting, bootstrap=bootstrap)
    try:
        recorder.begin()
    except OSError:
        return None
    _install(recorder)
    return recorder


def _install(recorder: _ChildRecorder) -> None:
    global _recorder  # one recorder per process
    _recorder = recorder
    sys.addaudithook(recorder.audit)
    os.register_at_fork(after_in_child=recorder.forked)
    import atexit  # a builtin module: free

    atexit.register(_finish)
    # os._exit skips atexit (multiprocessing's children, forked servers end so).
    os._exit = _exit_after_writing(os._exit)  # type: ignore[assignment]  # same signature


def _finish() -> None:
    if _recorder is not None:
        _recorder.finish()


def _exit_after_writing(exit_now: Callable[[int], NoReturn]) -> Callable[[int], NoReturn]:
    def _exit(status: int) -> NoReturn:
        _finish()
        exit_now(status)

    return _exit
