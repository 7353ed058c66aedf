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
and at exit (also before an ``exec`` and in ``os._exit``) writes them to
``<out>/<test>-<pid>-<random>.json``, which the recorder merges into the test named
by :data:`ENV_TEST` — the test that was running when the process (or its
parent) started: grandchildren inherit the environment and record too.

The record also says how many processes this one spawned that may run
project code (git excepted), and its parent's pid: the recorder vouches for a
test only when every such spawn, at every level, has a recorded child
(:func:`unrecorded_spawns`). A child started with a scrubbed environment, a
non-Python program, or a process killed before it wrote leaves a spawn without
a record, and the test to the static graph, with the reason.

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
    "ProjectCode",
    "free_tool_id",
    "in_environment",
    "runs_project_code",
    "start",
    "unrecorded_spawns",
    "write_bootstrap",
]

# {"root": <project root with a trailing separator>, "out": <directory of records>}
# Not LANES_*: a test that scrubs lanekit's knobs from a child's environment
# (lanekit's own hook tests do) keeps the recording plumbing.
ENV_CHILD = "LANEKIT_AFFECTED_CHILD"
# The test running now (its index in the recording): set by the recorder around each test.
ENV_TEST = "LANEKIT_AFFECTED_TEST"
BOOTSTRAP_MODULE = "_lanes_affected_child"

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


def runs_project_code(event: str, args: tuple[Any, ...]) -> bool:
    """Whether a spawn event may run Python code the recorder cannot see."""
    first = args[0] if args else None
    if event == "os.system" and isinstance(first, (str, bytes)):
        first = first.split()[0] if first.split() else first
    if isinstance(first, bytes):
        first = os.fsdecode(first)
    if isinstance(first, (str, os.PathLike)):
        return os.path.basename(os.fspath(first)) not in FOREIGN_PROGRAMS
    return True


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
    """The recorder of one process: what it executed and opened under the root, what it spawned."""

    def __init__(self, root: str, out: str, test: str) -> None:
        self.root = root
        self.project = ProjectCode(root)
        self.out = out
        self.test = test
        self.code: set[CodeType] = set()
        self.opened: set[str] = set()
        self.spawned = 0
        self.pid = os.getpid()
        # Read at start-up, while the process that spawned this one is alive.
        self.ppid = os.getppid()
        self.exec = False

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            path = args[0]
            if isinstance(path, str) and not path.endswith((".py", ".pyc")):
                self.opened.add(path)
        elif event in SPAWN_EVENTS and runs_project_code(event, args):
            if event == "os.exec":
                # The image is replaced: write now, or what ran before is lost.
                self.exec = True
                try:  # noqa: SIM105  # contextlib is not imported in the child
                    self.write()
                except OSError:
                    pass  # the recording is over: see _finish
            else:
                self.spawned += 1

    def monitor(self, code: CodeType, offset: int) -> object:
        self.code.add(code)
        return sys.monitoring.DISABLE  # type: ignore[attr-defined]  # Python >= 3.12 only

    def trace(self, frame: FrameType, event: str, arg: object) -> None:
        self.code.add(frame.f_code)  # no local trace function: call events only

    def forked(self) -> None:
        # A fork (multiprocessing, a daemon) is a new process of its parent: its
        # own record, its own spawns; what it inherited ran in the parent.
        self.pid, self.ppid = os.getpid(), os.getppid()
        self.spawned, self.exec = 0, False
        self.code, self.opened = set(), set()

    def write(self) -> None:
        if sys.version_info < (3, 12) and sys.gettrace() != self.trace:
            # Someone replaced the trace function (a debugger, coverage, a
            # nested recording): what ran after is unseen. No record, so the
            # test stays unvouched rather than vouched for half a process.
            return
        import json  # once, at exit: a child that never writes never pays for it

        root, project = self.root, self.project
        code = sorted(
            {
                (c.co_filename[len(root) :], 0 if c.co_name == "<module>" else c.co_firstlineno)
                for c in list(self.code)
                if project(c.co_filename)
            }
        )
        opened = sorted(
            {
                os.path.relpath(p, root)
                for p in (os.path.abspath(p) for p in list(self.opened))
                if project(p)
            }
        )
        record = {
            "test": self.test,
            "pid": self.pid,
            "ppid": self.ppid,
            "spawned": self.spawned,
            "exec": self.exec,
            "code": code,
            "opened": opened,
        }
        # An exec'd image keeps the pid: a random part keeps its record apart.
        name = os.path.join(self.out, f"{self.test}-{self.pid}-{os.urandom(4).hex()}.json")
        # Whole or absent: a reader never sees half a record.
        with open(name + ".tmp", "w", encoding="utf-8") as out:
            json.dump(record, out)
        os.replace(name + ".tmp", name)


_recorder: _ChildRecorder | None = None


def start() -> None:
    """Record this process for the test :data:`ENV_TEST` names (the bootstrap calls this)."""
    global _recorder  # one recorder per process
    if _recorder is not None:
        return
    import json  # only a recorded child reads its settings

    settings = json.loads(os.environ[ENV_CHILD])
    test = os.environ.get(ENV_TEST, "")
    if not test:
        return  # started outside any test (collection, a session fixture): nobody to credit
    recorder = _ChildRecorder(str(settings["root"]), str(settings["out"]), test)
    if sys.version_info >= (3, 12):
        monitoring = sys.monitoring  # type: ignore[attr-defined]  # >= 3.12
        tool_id = free_tool_id(monitoring)
        if tool_id < 0:
            return  # every tool id is taken: no record, the test stays unvouched
        monitoring.use_tool_id(tool_id, "lanes-affected-child")
        monitoring.register_callback(tool_id, monitoring.events.PY_START, recorder.monitor)
        monitoring.set_events(tool_id, monitoring.events.PY_START)
    else:
        import threading  # 3.11 only

        threading.settrace(recorder.trace)  # returns None: no line events
        sys.settrace(recorder.trace)  # returns None: no line events
    _recorder = recorder
    sys.addaudithook(recorder.audit)
    os.register_at_fork(after_in_child=recorder.forked)
    import atexit  # a builtin module: free

    atexit.register(_finish)
    # os._exit skips atexit (multiprocessing's children, forked servers end so).
    os._exit = _exit_after_writing(os._exit)  # type: ignore[assignment]  # same signature


def _finish() -> None:
    recorder = _recorder
    if recorder is None or recorder.exec:
        return
    try:  # noqa: SIM105  # contextlib is not imported in the child
        recorder.write()
    except OSError:
        # The recording is over (its directory is gone): this process outlived
        # its test, which is unvouched already. Its exit stays its own.
        pass


def _exit_after_writing(exit_now: Callable[[int], NoReturn]) -> Callable[[int], NoReturn]:
    def _exit(status: int) -> NoReturn:
        _finish()
        exit_now(status)

    return _exit
