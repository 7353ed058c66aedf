"""The recording's state in one pytest process, and its per-event callbacks.

:mod:`lanes.affected.recorder` is the pytest plugin: its hooks say when a
test starts and stops, when pytest collects a file or sets up a shared
fixture, and when the session ends. :class:`Recorder` is what they drive:
which code ran (``sys.monitoring`` on 3.12+, ``sys.settrace`` on 3.11), which
files the test opened and which programs it started (an audit hook), the
collection scope being collected, and each finished test's entry. Its
callbacks run per event and do as little work as possible.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from dataclasses import dataclass, field
from types import CodeType, FunctionType
from typing import TYPE_CHECKING, Any

from lanes.affected.child import (
    ENV_CHILD,
    ENV_TEST,
    RECORD_SUFFIX,
    forked_to_exec,
    record_fork,
)
from lanes.affected.projectcode import ProjectCode
from lanes.affected.records import read_record, unrecorded_spawns
from lanes.affected.sitewatch import SiteWatch
from lanes.affected.spawns import FOREIGN, IGNORED, SPAWN_EVENTS, carry_recording, classify_spawn

if TYPE_CHECKING:
    from types import FrameType

    from _typeshed import TraceFunction

    from lanes.affected.sitewatch import Site

__all__ = ["OWN_FILES", "ChildWork", "Recorder"]

# The recording's own code (this module and the plugin's) runs around every
# test, as no test's code: on lanekit itself, where it is the project's, it is
# never credited (a recording a test starts runs it in a child, which records it).
OWN_FILES = frozenset({__file__, os.path.join(os.path.dirname(__file__), "recorder.py")})  # noqa: PTH118, PTH120  # compared with co_filename strings
# How many program names a test's entry keeps for its explanation.
_NAMED_PROGRAMS = 5
# How many calls of one function outside every test (per scope) the recording
# notes the callers of: past it (a helper an import calls in a loop: every call
# a callback) its callers count as unknown, which the name flow does not follow.
_CALLER_BUDGET = 200
# inspect.CO_NEWLOCALS, without importing inspect: a function's code, not a module's or class body's.
_CO_NEWLOCALS = 0x2


def _reads(args: tuple[Any, ...]) -> bool:
    """Whether an ``open`` audit event's (path, mode, flags) may read the
    file: a file only written (the recording's own output, pytest's cache)
    shapes no test."""
    mode = args[1] if len(args) > 1 else None
    if isinstance(mode, str):
        return "r" in mode or "+" in mode
    flags = args[2] if len(args) > 2 else None  # os.open: no mode, the flags
    return not isinstance(flags, int) or flags & os.O_ACCMODE != os.O_WRONLY


@dataclass
class ChildWork:
    """What processes started during a shared fixture's setup ran: credited,
    like the setup's own code, to every test that uses the fixture (a server
    a session fixture starts runs the project's code for all of them)."""

    code: set[tuple[str, int]] = field(default_factory=set)
    opened: set[str] = field(default_factory=set)
    # The programs started: Python ones, and the others (classify_spawn).
    started: set[str] = field(default_factory=set)
    foreign: set[str] = field(default_factory=set)
    # Spawns with no whole record behind them (a child still running when the
    # setup ended): its users are not vouched for.
    unrecorded: int = 0

    def merge(self, other: ChildWork) -> None:
        self.code |= other.code
        self.opened |= other.opened
        self.started |= other.started
        self.foreign |= other.foreign
        self.unrecorded = max(self.unrecorded, other.unrecorded)


if TYPE_CHECKING:
    # What the shared fixtures a test uses ran when they were set up: code
    # objects, computed-import sites, the files they opened, and what their
    # processes ran.
    SharedWork = tuple[set[CodeType], set[Site], set[str], ChildWork]


class Recorder:
    """What one pytest process records: per test, and outside every test."""

    def __init__(
        self, root: str, children: tuple[str, str], sites: list[tuple[str, int, int]]
    ) -> None:
        self.root = root.rstrip(os.sep) + os.sep
        # The project's own code: under the root, outside any virtualenv there.
        self.project = ProjectCode(self.root)
        # The computed-import sites: which ran, and what each imported.
        self.watch = SiteWatch(self.root, self.project, sites)
        # The sites a shared fixture's setup ran, credited like its code, and
        # what the processes it started ran.
        self.fixture_sites: dict[tuple[str, str], set[Site]] = {}
        self.fixture_children: dict[tuple[str, str], ChildWork] = {}
        self.tracer: TraceFunction = self.trace_sites if sites else self.trace
        # Where the processes a test spawns write their records (lanes.affected.child),
        # and the bootstrap that makes them record: for carry_recording.
        self.children, self.bootstrap = children
        self.setting = os.environ[ENV_CHILD]
        self.pid = os.getpid()
        # 3.12+: the sys.monitoring tool id, and the project's code objects it watches.
        self.tool_id = -1
        self.armed: set[CodeType] = set()
        # (file, 0) of the project's modules imported before the recording began.
        self.preloaded: set[tuple[str, int]] = set()
        self.code: set[CodeType] = set()
        self.opened: set[str] = set()
        # Absolute paths of the files opened outside every test, by the scope
        # that read them ("": the session's, else a collection scope): a test
        # module reading its parametrize cases at import, a conftest at
        # start-up. A test's own reads say nothing of the tests they shape.
        self.opened_outside: dict[str, set[str]] = {}
        self.spawned = 0
        # The programs this test started: Python ones, and the others (classify_spawn).
        self.started: set[str] = set()
        self.foreign: set[str] = set()
        self.active = False
        # The recorder's own work after a test (stop): what it calls is no test's.
        self.busy = False
        self.tests: list[dict[str, Any]] = []
        # Code executed outside every test in the session scope: imports,
        # session hooks, and what collection ran for more than one file.
        self.outside: set[CodeType] = set()
        # Per code object run outside every test and the scope it ran in ("":
        # the session's, else a collection scope), what called it each time:
        # the project's calling code object, (file, line) of a module or class
        # body, or None (code that is not the project's, or past the budget).
        # The name flow follows a reader run there only when it knows every
        # caller, and judges a decorator by what it called where it ran.
        self.callers: dict[tuple[CodeType, str], set[CodeType | tuple[str, int] | None]] = {}
        self.calls: dict[tuple[CodeType, str], int] = {}  # how many, up to the budget
        # The collection scope being collected (a file or a directory with a
        # trailing "/", relative to the root; None: the session's), the absolute
        # paths of its own module code, and what each scope alone executed.
        self.scope: str | None = None
        self.own: tuple[str, ...] = ()
        # scope_owns' last walk: where it started and its verdict. A loop
        # reading a directory of parametrize cases opens every file from one
        # frame, 40 frames below pytest's entry: walking each time was half
        # a recording's CPU on tomlkit. A live frame's callers never change.
        self.owns_from: tuple[FrameType, bool] | None = None
        self.collected: dict[str, set[CodeType]] = {}
        # A shared fixture's setup code, credited to each test that uses it.
        self.fixtures: dict[tuple[str, str], set[CodeType]] = {}
        # And the files it opened: every test using the fixture reads them.
        self.fixture_opened: dict[tuple[str, str], set[str]] = {}

    # -- the hooks that run per event: as little work as possible
    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "exec":
            # A module's code about to run (an import, a test module pytest
            # rewrote): on 3.12+ its functions are watched from here on.
            code = args[0] if args else None
            if type(code) is CodeType and (file := self.project.code_path(code.co_filename)):
                if self.tool_id >= 0:
                    self.arm(code)
                if self.watch.calls:
                    # The frame the import runs from: the audit hook's caller.
                    self.watch.imported(file, sys._getframe(1))
            return
        if event == "open":
            path = args[0]
            if isinstance(path, str) and not path.endswith((".py", ".pyc")):
                if self.active:
                    self.opened.add(path)
                elif not self.busy and _reads(args):
                    # The frame that opened it: the audit hook's caller.
                    scope = self.scope or ""
                    if scope and not self.scope_owns(sys._getframe(1)):
                        scope = ""
                    # abspath now: the working directory may change before the end.
                    absolute = os.path.abspath(path)  # noqa: PTH100  # like finish_test's
                    self.opened_outside.setdefault(scope, set()).add(absolute)
            return
        if not self.active:
            return
        if event in SPAWN_EVENTS:
            kind, name, env = classify_spawn(event, args)
            if kind == IGNORED:
                return
            # A test that builds its child's environment (a copy without
            # PYTHONPATH, a few variables) would lose the recording: put it back.
            carry_recording(
                env, {ENV_CHILD: self.setting, ENV_TEST: str(len(self.tests))}, self.bootstrap
            )
            if kind == FOREIGN:
                self.foreign.add(name)
            else:
                self.spawned += 1
                self.started.add(name)

    def trace(self, frame: FrameType, event: str, arg: object) -> None:
        code = frame.f_code
        if not self.project.code_path(code.co_filename):
            self.code.add(code)  # no local trace function: call events only
        elif self.scope is None:
            self.code.add(code)
            if not self.active:
                self.called(code, frame.f_back, "")
        else:
            # Every call: a later one may be the session's, and its caller counts.
            self.scoped(code, frame)

    def trace_sites(self, frame: FrameType, event: str, arg: object) -> TraceFunction | None:
        """3.11 with computed-import sites: call events, and a local trace in the frames holding one."""
        self.trace(frame, event, arg)
        return self.watch.trace_frame if self.watch.holds_sites(frame.f_code) else None

    def monitor(self, code: CodeType, offset: int) -> object:
        if self.busy:
            # The recorder's own work between tests calls the project's code
            # (on lanekit itself): no test's. Kept armed for the test that calls it.
            return None
        if self.scope is None:
            self.code.add(code)
            if not self.active and self.called(code, sys._getframe(1).f_back, ""):
                # The session's: keep watching, for every caller.
                return None
            return sys.monitoring.DISABLE  # type: ignore[attr-defined]  # Python >= 3.12 only
        # Keep watching: a later call in this scope may come from a shared import.
        self.scoped(code, sys._getframe(1))  # the frame ``code`` runs in
        return None

    def called(self, code: CodeType, caller: FrameType | None, scope: str) -> bool:
        """Note what called ``code``, run outside every test; False once it was
        called more often than the budget (a helper an import runs in a loop):
        its callers are then unknown (None), and it need not be watched."""
        calls = self.calls.get((code, scope), 0)
        if calls >= _CALLER_BUDGET:
            return False
        self.calls[code, scope] = calls + 1
        if calls + 1 == _CALLER_BUDGET:
            self.callers.setdefault((code, scope), set()).add(None)
            return False
        key: CodeType | tuple[str, int] | None = None
        if caller is not None:
            calling = caller.f_code
            if calling.co_filename not in OWN_FILES and self.project.code_path(calling.co_filename):
                # A module or class body runs its statements without new locals.
                key = (
                    calling
                    if calling.co_flags & _CO_NEWLOCALS
                    else (calling.co_filename, caller.f_lineno)
                )
        self.callers.setdefault((code, scope), set()).add(key)
        return True

    def scoped(self, code: CodeType, frame: FrameType | None) -> None:
        """Credit ``code`` (run in ``frame``) to the collection scope, or to the
        session when a project module other than the scope's own is being
        imported: what that import builds, every later importer shares."""
        started = frame
        if not self.scope_owns(frame):
            self.code.add(code)
            self.called(code, started.f_back if started is not None else None, "")
            return
        self.collected.setdefault(self.scope or "", set()).add(code)
        # Its callers too: a reader run there by a statement the flow follows
        # leaves the collection's other tests alone.
        self.called(code, started.f_back if started is not None else None, self.scope or "")

    def scope_owns(self, frame: FrameType | None) -> bool:
        """Whether what runs in ``frame`` belongs to the collection scope: no
        project module other than the scope's own is being imported on the
        way (what that import builds, every later importer shares: the
        session's)."""
        start, last = frame, self.owns_from
        verdict = True
        while frame is not None:
            if last is not None and frame is last[0]:
                verdict = last[1]
                break
            current = frame.f_code
            if current.co_name == "<module>":
                # The scope's own module, or the program's entry (pytest's
                # __main__, under a collector that imports nothing): what is
                # above is pytest's machinery. Another module's import (or an
                # exec'd string) is the session's.
                verdict = (
                    current.co_filename in self.own or frame.f_globals.get("__name__") == "__main__"
                )
                break
            frame = frame.f_back
        if start is not None:
            self.owns_from = (start, verdict)
        return verdict

    def data_outside(self) -> list[list[str]]:
        """[file, scope] for each project file opened outside every test
        (file relative to the root; scope "": the session's)."""
        return sorted(
            [os.path.relpath(absolute, self.root), scope]
            for scope, opened in self.opened_outside.items()
            for absolute in opened
            if self.project(absolute)
        )

    def enter(self, scope: str | None, own: tuple[str, ...]) -> tuple[str | None, tuple[str, ...]]:
        """Collect in ``scope`` from now on; the scope it replaces, to restore."""
        previous = (self.scope, self.own)
        self.scope, self.own = scope, own
        # A verdict is the scope's: and the frame it holds may be let go.
        self.owns_from = None
        if sys.version_info >= (3, 12):
            # What another scope (or the session) disabled fires again here.
            sys.monitoring.restart_events()  # type: ignore[attr-defined]  # >= 3.12
        return previous

    def arm(self, code: CodeType) -> None:
        """Watch ``code`` and every function it defines (3.12+, project code only).

        Local events, not global ones: ``restart_events()`` between tests
        re-arms every location that returned ``DISABLE``, and with global
        events that was every function pytest and its plugins run per test —
        ~330 callbacks a test, 96% of them outside the project on the
        benchmark's suite. Local events on the project's code alone leave
        the rest of the process untouched.
        """
        monitoring = sys.monitoring  # type: ignore[attr-defined]  # >= 3.12
        pending = [code]
        while pending:
            current = pending.pop()
            if current in self.armed or current.co_filename in OWN_FILES:
                continue
            self.armed.add(current)
            events = monitoring.events.PY_START
            if self.watch.holds_sites(current):
                events |= monitoring.events.CALL
            monitoring.set_local_events(self.tool_id, current, events)
            pending.extend(c for c in current.co_consts if type(c) is CodeType)

    def arm_loaded(self) -> None:
        """Watch the project's code imported before the recording began (plugins pytest loaded first)."""
        import gc  # noqa: PLC0415  # once per recording

        for obj in gc.get_objects():
            if type(obj) is FunctionType:
                code = obj.__code__
                if self.project.code_path(code.co_filename):
                    self.arm(code)
        # Their module code ran before any test: outside.
        for module in list(sys.modules.values()):
            file = getattr(module, "__file__", None)
            if isinstance(file, str) and (relative := self.project.code_path(file)):
                self.preloaded.add((relative, 0))

    def begin(self) -> None:
        """Trace from now on: collection and imports are seen as well as tests
        (on 3.11 until the first test; from then on, tests only)."""
        if sys.version_info < (3, 12):
            threading.settrace(self.tracer)  # line events only where a computed import is
            sys.settrace(self.tracer)  # line events only where a computed import is

    def end(self) -> None:
        if sys.version_info < (3, 12):
            sys.settrace(None)
            threading.settrace(None)
        self.active = False
        self.outside |= self.code
        self.code = set()
        self.watch.outside |= self.watch.take()

    def located(self, code: set[CodeType]) -> list[tuple[str, int]]:
        """(file under the root, first line) of each code object, the rest dropped."""
        # A module's own code is line 0: its first line may be a function's
        # `def`, and the map must not take an import for a call.
        return sorted(
            {
                (file, 0 if c.co_name == "<module>" else c.co_firstlineno)
                for c in code
                if c.co_filename not in OWN_FILES
                and (file := self.project.code_path(c.co_filename))
            }
        )

    def caller_edges(self) -> list[list[Any]]:
        """The calls outside every test, for the raw recording: [callee (file,
        line), caller, scope] with the caller a function's [file, first line],
        a module or class body's ["line", file, line], or None (elsewhere),
        and the collection scope it ran in ("": the session's)."""
        edges: list[list[Any]] = []
        for (code, scope), callers in self.callers.items():
            located = self.located({code})
            if not located or not code.co_flags & _CO_NEWLOCALS:
                continue  # a module's or a class body's code: a definition, not a call
            for caller in callers:
                if caller is None:
                    edges.append([located[0], None, scope])
                elif isinstance(caller, tuple):
                    file = self.project.code_path(caller[0])
                    found = ["line", file, caller[1]] if file else None
                    edges.append([located[0], found, scope])
                else:
                    where = self.located({caller})
                    edges.append([located[0], where[0] if where else None, scope])
        return edges

    # -- per test
    def start(self) -> None:
        # What ran since the last test (collection, imports, hooks) ran outside tests.
        self.outside |= self.code
        self.code = set()
        # Attributes, not a call: from here on a call to lanekit's code (on
        # lanekit itself, where it is the project's) would be this test's.
        self.watch.outside |= self.watch.hit
        self.watch.hit = set()
        self.opened = set()
        self.spawned = 0
        self.started, self.foreign = set(), set()
        self.active = True
        # Inherited by every process the test starts, and by theirs.
        os.environ[ENV_TEST] = str(len(self.tests))
        if sys.version_info >= (3, 12):
            sys.monitoring.restart_events()  # type: ignore[attr-defined]  # >= 3.12
        else:
            threading.settrace(self.tracer)  # line events only where a computed import is
            sys.settrace(self.tracer)  # line events only where a computed import is

    def stop(
        self,
        nodeid: str,
        path: str,
        outcome: str,
        shared: SharedWork,
    ) -> None:
        if sys.version_info < (3, 12):
            # Between tests only pytest's own reporting runs: untraced, it costs
            # nothing (traced, it doubled a 3.11 recording of boltons).
            sys.settrace(None)
            threading.settrace(None)
        self.active = False
        self.busy = True
        try:
            self.finish_test(nodeid, path, outcome, shared)
        finally:
            self.busy = False
        if sys.version_info >= (3, 12):
            # What the test disabled runs between tests too (a conftest hook):
            # the session's, seen with every caller.
            sys.monitoring.restart_events()  # type: ignore[attr-defined]  # >= 3.12

    def finish_test(
        self,
        nodeid: str,
        path: str,
        outcome: str,
        shared: SharedWork,
    ) -> None:
        # A process started between tests credits no test (it records nothing).
        os.environ.pop(ENV_TEST, None)
        located = set(self.located(self.code | shared[0]))
        self.code = set()
        sites = self.watch.take() | shared[1]
        # abspath, not resolve: normalised without following links, like co_filename.
        absolute = {os.path.abspath(p) for p in self.opened | shared[2]}  # noqa: PTH100  # see above
        opened = {os.path.relpath(p, self.root) for p in absolute if self.project(p)}
        # What the test's processes, and its shared fixtures', executed (Python
        # started behind a program that is not, a shell, records itself too):
        # build_map finds the sites it holds.
        children = ChildWork(started=set(self.started), foreign=set(self.foreign))
        if self.spawned or self.foreign:
            children = self.children_work(remove=True)
        children.merge(shared[3])
        located |= children.code
        opened |= children.opened
        child_code, started, foreign = children.code, children.started, children.foreign
        unrecorded = children.unrecorded
        self.tests.append(
            {
                "nodeid": nodeid,
                "file": path,
                "outcome": outcome,
                "code": sorted(located),
                "opened": sorted(opened),
                "spawned": self.spawned,
                "unrecorded": unrecorded,
                # Bounded: names for the map's explanations, not an inventory.
                "started": sorted(started)[:_NAMED_PROGRAMS],
                "foreign": sorted(foreign)[:_NAMED_PROGRAMS],
                "sites": sorted(sites),
                "child_code": sorted(child_code),
            }
        )

    def child_records(self, test: int, *, remove: bool = True) -> list[dict[str, Any]]:
        """The whole records the processes of test number ``test`` wrote, read
        and (``remove``) removed (:func:`lanes.affected.records.read_record`: a
        process still running has none)."""
        prefix = f"{test}-"
        records: list[dict[str, Any]] = []
        for entry in os.scandir(self.children):
            if entry.name.startswith(prefix) and entry.name.endswith(RECORD_SUFFIX):
                record = read_record(entry.path)
                if record is not None:
                    records.append(record)
                if remove:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)  # noqa: PTH108  # a scandir entry
        return records

    def children_work(self, *, remove: bool) -> ChildWork:
        """What the processes the running test started so far ran: at its end
        (``remove``: their records are read once), or at the end of a shared
        fixture's setup (left for the test's own end), which is credited with it."""
        records = self.child_records(len(self.tests), remove=remove)
        work = ChildWork(started=set(self.started), foreign=set(self.foreign))
        for record in records:
            work.code.update((file, line) for file, line in record["code"])
            work.opened.update(record["opened"])
            work.started.update(record.get("started", ()))
            work.foreign.update(record.get("foreign", ()))
        work.unrecorded = unrecorded_spawns(self.pid, self.spawned, records)
        return work

    def forked(self) -> None:
        """In a fork of this process (``os.fork`` in a test, multiprocessing's
        'fork'): record what the fork executes for the running test.

        What ran in this test before the fork is this process's, credited by
        the parent. On 3.12+ a code object the test already ran is disabled
        in the fork too; one it did not fires there, ``restart_events()`` at
        the test's start having re-armed what earlier tests disabled.
        """
        test = os.environ.get(ENV_TEST)
        if not self.active or not test or forked_to_exec(sys._getframe(0).f_back):
            # Between tests, or subprocess's fork that execs next (the image
            # records itself if it is Python); a fork of a fork: its own
            # recorder (lanes.affected.child) takes it.
            return
        self.active = False  # the parent counts the fork, and credits what ran before it
        fork = record_fork(
            self.root, self.children, test, self.pid, setting=self.setting, bootstrap=self.bootstrap
        )
        if fork is None:
            return  # no record: the fork is an unrecorded spawn, its test unvouched
        if sys.version_info >= (3, 12):
            monitoring = sys.monitoring  # type: ignore[attr-defined]  # >= 3.12
            # The project's code stays armed (and what the fork imports is armed
            # by the audit hook): each first hit is now the fork's line.
            monitoring.register_callback(self.tool_id, monitoring.events.PY_START, fork.monitor)
            monitoring.register_callback(self.tool_id, monitoring.events.CALL, None)
        else:
            fork.trace_calls()
