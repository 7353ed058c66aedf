"""The child recorder: what a Python process a test spawns executed, for the affected map.

A test that runs ``python -c "import pkg.mod; pkg.mod.f()"`` executes ``f`` in
a process the pytest recorder (:mod:`lanes.affected.recorder`) cannot trace.
Like coverage.py's ``COVERAGE_PROCESS_START``, a recording run makes every
Python process started under it record itself: the recorder puts a bootstrap
directory first on ``PYTHONPATH`` (:func:`write_bootstrap`) whose
``sitecustomize`` loads this module, as a copy in the package
:data:`BOOTSTRAP_PACKAGE` (with the two it imports, copied beside it), when :data:`ENV_CHILD` names a recording. The child then notes, with the same
mechanism as the recorder (``sys.monitoring`` ``PY_START`` disabled after the
first hit per code object on 3.12+, a call-only ``settrace`` on 3.11, an audit
hook), the code it executed and the files it opened under the project root,
and writes them as it runs, a line per new fact, to
``<out>/<test>-<pid>-<random>.jsonl``
(:func:`lanes.affected.records.read_record` folds the lines),
which the recorder merges into the test named by :data:`ENV_TEST` — the test
that was running when the process (or its parent) started: grandchildren
inherit the environment and record too. A record is whole when it reached
its end (at exit, in ``os._exit``, before an ``exec``) or when its process has
ended without one: a child a test kills on purpose has written everything it
executed up to the kill. A process still running when its test ends may yet
run code: its record does not count.

The record also says how many Python processes this one spawned and its
parent's pid: the recorder vouches for a test only when every such spawn, at
every level, has a recorded child
(:func:`lanes.affected.records.unrecorded_spawns`). What a spawn starts is
told by the program itself (:func:`lanes.affected.spawns.classify_spawn`): ``git`` and
its kind run no project code and are ignored; a program that is not Python (a
shell, a browser, a linter binary) runs none of the project's Python code, and
the Python it starts records itself, so it needs no record, but what it reads
is unseen: its test is vouched for code, not for data files. A test that
builds its child's environment (a copy without ``PYTHONPATH``, or ``env={}``)
gets the recording carried into it (:func:`lanes.affected.spawns.carry_recording`). An interpreter
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

# Relative: in the bootstrap copy these are the copies beside this one.
from .projectcode import ProjectCode
from .spawns import FOREIGN, IGNORED, PYTHON, SPAWN_EVENTS, carry_recording, classify_spawn

TYPE_CHECKING = False  # `typing` is not imported in the child: its import is not free
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import CodeType, FrameType, ModuleType
    from typing import Any, NoReturn

__all__ = [
    "BOOTSTRAP_PACKAGE",
    "ENV_CHILD",
    "ENV_TEST",
    "RECORD_SUFFIX",
    "forked_to_exec",
    "free_tool_id",
    "record_fork",
    "start",
    "write_bootstrap",
]

# {"root": <project root with a trailing separator>, "out": <directory of records>,
#  "bootstrap": <the directory that makes a Python process record itself>}
# Not LANES_*: a test that scrubs lanekit's knobs from a child's environment
# (lanekit's own hook tests do) keeps the recording plumbing.
ENV_CHILD = "LANEKIT_AFFECTED_CHILD"
# The test running now (its index in the recording): set by the recorder around each test.
ENV_TEST = "LANEKIT_AFFECTED_TEST"
# The bootstrap's copies of this module and the two it imports (relatively).
BOOTSTRAP_PACKAGE = "_lanes_affected_child"
_COPIED = ("child", "projectcode", "spawns")
# The lowest descriptor a record is written through (begin()).
_RECORD_FD_FLOOR = 256
# A record: JSON lines, the first the header (test, pid, ppid, the counters,
# flags and lists at their start), then one per new fact as it happens.
RECORD_SUFFIX = ".jsonl"

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
        from {BOOTSTRAP_PACKAGE} import child as _child
        _child.start()
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


def write_bootstrap(directory: str) -> str:
    """Write the bootstrap directory into ``directory``: a ``sitecustomize``
    and the package :data:`BOOTSTRAP_PACKAGE` holding copies of this module
    and the two it imports."""
    package = os.path.join(directory, BOOTSTRAP_PACKAGE)
    os.makedirs(package, exist_ok=True)
    with open(os.path.join(directory, "sitecustomize.py"), "w", encoding="utf-8") as out:
        out.write(_SITECUSTOMIZE)
    with open(os.path.join(package, "__init__.py"), "w", encoding="utf-8") as out:
        out.write(
            '"""Copies of lanes.affected\'s child recorder: see lanes/affected/child.py."""\n'
        )
    here = os.path.dirname(os.path.abspath(__file__))
    for name in _COPIED:
        with open(os.path.join(here, name + ".py"), encoding="utf-8") as source:
            text = source.read()
        with open(os.path.join(package, name + ".py"), "w", encoding="utf-8") as out:
            out.write(text)
    return directory


def free_tool_id(monitoring: ModuleType) -> int:
    """The first ``sys.monitoring`` tool id of :data:`TOOL_IDS` no tool holds, or -1."""
    for tool_id in TOOL_IDS:
        if monitoring.get_tool(tool_id) is None:
            return int(tool_id)
    return -1


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
        """Append one line: every counter adds, every flag ors, every list extends (:func:`lanes.affected.records.read_record`)."""
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
            carry_recording(env, {ENV_CHILD: self.setting, ENV_TEST: self.test}, self.bootstrap)
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
        file = self.project.code_path(code.co_filename)
        if file:
            first = 0 if code.co_name == "<module>" else code.co_firstlineno
            self.line({"code": [[file, first]]})

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
