"""The recorder: a pytest plugin that notes, per test, which code it executed and which files it opened.

Loaded only for a recording run (``lanes affected --record`` passes
``-p lanes.affected.recorder``; it is no ``pytest11`` entry point, so no other
run pays for it). It writes a raw recording to the file named by
``LANES_AFFECTED_RECORD``; :mod:`lanes.affected.testmap` turns it into the map.

Per test (setup, call and teardown together):

- **code objects executed**, as (file, first line) of the project's own code
  (under the root, outside any virtualenv or site-packages there, or an exact
  copy of such a file anywhere: :class:`lanes.affected.projectcode.ProjectCode`). On
  Python >= 3.12 ``sys.monitoring`` ``PY_START`` events, armed per code object
  on the project's own code only (when a module under the root is executed,
  and for what was imported before the recording began): the callback notes
  a code object and returns ``DISABLE``, so each costs one callback per
  test, and ``sys.monitoring.restart_events()`` between tests re-arms the
  project's code, not pytest's. On 3.11 a ``sys.settrace`` function that
  sees ``call`` events and returns ``None`` (no line tracing) does the same
  at one call per Python call.
- **files opened** that are not Python (``sys.addaudithook`` on ``open``):
  data files, fixtures read from disk, templates.
- **processes spawned** (``subprocess.Popen``, ``os.exec*``, ``os.posix_spawn``,
  ``os.system``, ``os.fork``), told apart by the program
  (:func:`lanes.affected.spawns.classify_spawn`). Every Python process started
  during a recording records itself (:mod:`lanes.affected.child`: a
  ``sitecustomize`` first on ``PYTHONPATH``, carried into an environment the
  test built itself), and so does a fork of this process during a test
  (``os.fork``, multiprocessing's 'fork': :meth:`_Recorder.forked`); at the
  test's end the whole records are merged into the test's entry (one that
  reached its end, or whose process has ended: a child killed on purpose
  counts), and the test is vouched for only if every Python spawn, at every
  level, left one. A program that is not Python needs no record, but its test
  is not vouched for data files (it may read them unseen).
- the outcome: a test that failed (in setup, call or teardown) fails the run
  again whatever changed, so the map does not vouch for it: it runs beside
  every selection that reaches its file. A skipped test (pytest reports an
  xfail as skipped too) stopped where the recording saw it stop, and what it
  executed up to there is recorded: unless a change reaches that code, it
  skips again, which fails no run; it is vouched for like a passing one.
- **computed imports that ran**, and what each imported
  (:mod:`lanes.affected.sitewatch`).

Code runs outside tests too, and the map must know it, in the narrowest
scope that ran it:

- while pytest collects one file (imports a test module, builds its
  parametrize tables and ``@given`` strategies, reads a corpus file a plugin
  collects), what runs is that file's *collection scope*: its items are all
  it can shape. Keyed by the collector's path (a Module's, a Class's, a
  plugin's File's);
- while pytest collects a directory (imports its ``conftest.py``), the
  directory's scope (``tests/sub/``): the tests under it;
- unless a project module other than the scope's own is being imported at
  that moment: a module-level ``TABLE = build()`` of a helper the test module
  imports is shared by every later importer, so it is the session's. (The
  callback walks the frames up to the scope's own module code to tell; in a
  collection scope it keeps watching a function until a call is the
  session's, so no later call from a shared import goes unseen.)
- everything else (plugin configure, the first conftests, session hooks) is
  the *session* scope, ``outside``: a change to it is judged module level.

What a class-, module-, package- or session-scoped fixture executes when it
is set up (inside the first test that uses it) is credited to every test that
uses the fixture. (A value one collection computes and caches for another,
like one a test caches for the next, is outside the map's premise: each
scope is credited with the code it executed.)
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import threading
import time
from pathlib import Path
from types import CodeType, FunctionType
from typing import TYPE_CHECKING, Any

import pytest

from lanes.affected.child import (
    ENV_CHILD,
    ENV_TEST,
    RECORD_SUFFIX,
    forked_to_exec,
    free_tool_id,
    record_fork,
    write_bootstrap,
)
from lanes.affected.projectcode import (
    ProjectCode,
)
from lanes.affected.records import (
    read_record,
    unrecorded_spawns,
)
from lanes.affected.sitewatch import SiteWatch
from lanes.affected.spawns import (
    FOREIGN,
    IGNORED,
    SPAWN_EVENTS,
    carry_recording,
    classify_spawn,
)

if TYPE_CHECKING:
    from collections.abc import Generator
    from types import FrameType

    from _typeshed import TraceFunction

    from lanes.affected.sitewatch import Site

__all__ = ["ENV_OUTPUT", "ENV_SITES"]

ENV_OUTPUT = "LANES_AFFECTED_RECORD"
# A JSON file: the computed-import call sites, [[file, first line, last line], ...].
ENV_SITES = "LANES_AFFECTED_SITES"

_tool_id = -1
# This module's code runs around every test as the recording's plugin, as no
# test's code: on lanekit itself, where it is the project's, it is never
# credited (a recording a test starts runs it in a child, which records it).
_OWN_FILE = __file__
# How many program names a test's entry keeps for its explanation.
_NAMED_PROGRAMS = 5


class _Recorder:
    def __init__(
        self, root: str, children: tuple[str, str], sites: list[tuple[str, int, int]]
    ) -> None:
        self.root = root.rstrip(os.sep) + os.sep
        # The project's own code: under the root, outside any virtualenv there.
        self.project = ProjectCode(self.root)
        # The computed-import sites: which ran, and what each imported.
        self.watch = SiteWatch(self.root, self.project, sites)
        # The sites a shared fixture's setup ran, credited like its code.
        self.fixture_sites: dict[tuple[str, str], set[Site]] = {}
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
        # The collection scope being collected (a file or a directory with a
        # trailing "/", relative to the root; None: the session's), the absolute
        # paths of its own module code, and what each scope alone executed.
        self.scope: str | None = None
        self.own: tuple[str, ...] = ()
        self.collected: dict[str, set[CodeType]] = {}
        # A shared fixture's setup code, credited to each test that uses it.
        self.fixtures: dict[tuple[str, str], set[CodeType]] = {}

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
        if not self.active:
            return
        if event == "open":
            path = args[0]
            if isinstance(path, str) and not path.endswith((".py", ".pyc")):
                self.opened.add(path)
        elif event in SPAWN_EVENTS:
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
        if self.scope is None or not self.project.code_path(code.co_filename):
            self.code.add(code)  # no local trace function: call events only
        elif code not in self.code:
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
        elif self.scoped(code, sys._getframe(1)):  # the frame ``code`` runs in
            # Keep watching: a later call in this scope may come from a shared import.
            return None
        return sys.monitoring.DISABLE  # type: ignore[attr-defined]  # Python >= 3.12 only

    def scoped(self, code: CodeType, frame: FrameType | None) -> bool:
        """Credit ``code`` to the collection scope (True), or to the session
        when a project module other than the scope's own is being imported
        (False): what that import builds, every later importer shares."""
        while frame is not None:
            current = frame.f_code
            if current.co_name == "<module>":
                # The scope's own module, or the program's entry (pytest's
                # __main__, under a collector that imports nothing): what is
                # above is pytest's machinery.
                if current.co_filename in self.own or frame.f_globals.get("__name__") == "__main__":
                    break
                # Another module's import (or an exec'd string): the session's.
                self.code.add(code)
                return False
            frame = frame.f_back
        self.collected.setdefault(self.scope or "", set()).add(code)
        return True

    def enter(self, scope: str | None, own: tuple[str, ...]) -> tuple[str | None, tuple[str, ...]]:
        """Collect in ``scope`` from now on; the scope it replaces, to restore."""
        previous = (self.scope, self.own)
        self.scope, self.own = scope, own
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
            if current in self.armed or current.co_filename == _OWN_FILE:
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
                if c.co_filename != _OWN_FILE and (file := self.project.code_path(c.co_filename))
            }
        )

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
        shared: tuple[set[CodeType], set[Site]],
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

    def finish_test(
        self, nodeid: str, path: str, outcome: str, shared: tuple[set[CodeType], set[Site]]
    ) -> None:
        # A process started between tests credits no test (it records nothing).
        os.environ.pop(ENV_TEST, None)
        located = set(self.located(self.code | shared[0]))
        self.code = set()
        sites = self.watch.take() | shared[1]
        # What the test's processes executed: build_map finds the sites it holds.
        child_code: set[tuple[str, int]] = set()
        # abspath, not resolve: normalised without following links, like co_filename.
        absolute = {os.path.abspath(p) for p in self.opened}  # noqa: PTH100  # see above
        opened = {os.path.relpath(p, self.root) for p in absolute if self.project(p)}
        unrecorded = 0
        started, foreign = self.started, self.foreign
        # Python started behind a program that is not (a shell) records itself too.
        if self.spawned or self.foreign:
            records = self.child_records(len(self.tests))
            for record in records:
                located.update((file, line) for file, line in record["code"])
                child_code.update((file, line) for file, line in record["code"])
                opened.update(record["opened"])
                started = started | set(record.get("started", ()))
                foreign = foreign | set(record.get("foreign", ()))
            unrecorded = unrecorded_spawns(self.pid, self.spawned, records)
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

    def child_records(self, test: int) -> list[dict[str, Any]]:
        """The whole records the processes of test number ``test`` wrote, read
        and removed (:func:`lanes.affected.records.read_record`: a process still
        running has none)."""
        prefix = f"{test}-"
        records: list[dict[str, Any]] = []
        for entry in os.scandir(self.children):
            if entry.name.startswith(prefix) and entry.name.endswith(RECORD_SUFFIX):
                record = read_record(entry.path)
                if record is not None:
                    records.append(record)
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)  # noqa: PTH108  # a scandir entry
        return records

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


_recorder: _Recorder | None = None


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    # Before the first conftest is imported (a plugin given with -p gets this
    # hook): a package a conftest imports runs its module code here, and the
    # map must see that code as run outside tests.
    global _recorder, _tool_id  # one recorder per recording session; its id is freed at finish
    target = os.environ.get(ENV_OUTPUT)
    if not target or _recorder is not None:
        return
    root = str(early_config.rootpath).rstrip(os.sep) + os.sep
    recorder = _Recorder(root, _start_children(target, root), _read_sites())
    if sys.version_info >= (3, 12):
        monitoring = sys.monitoring  # type: ignore[attr-defined]  # >= 3.12
        _tool_id = free_tool_id(monitoring)
        if _tool_id < 0:
            taken = ", ".join(f"{i}: {monitoring.get_tool(i)}" for i in range(6))
            msg = f"lanes affected --record: every sys.monitoring tool id is taken ({taken})"
            raise pytest.UsageError(
                msg + "; record without the tools that hold them (a debugger, a profiler)"
            )
        monitoring.use_tool_id(_tool_id, "lanes-affected")
        monitoring.register_callback(_tool_id, monitoring.events.PY_START, recorder.monitor)
        monitoring.register_callback(_tool_id, monitoring.events.CALL, recorder.watch.monitor_call)
        recorder.tool_id = _tool_id
        recorder.arm_loaded()
    recorder.watch.preloaded()
    _recorder = recorder
    sys.addaudithook(recorder.audit)
    os.register_at_fork(after_in_child=recorder.forked)
    recorder.begin()


def _read_sites() -> list[tuple[str, int, int]]:
    """The computed-import sites to watch (``lanes affected --record`` writes them)."""
    path = os.environ.get(ENV_SITES)
    if not path:
        return []
    with open(path, encoding="utf-8") as handle:  # noqa: PTH123  # our own scratch file
        return [(str(file), int(first), int(last)) for file, first, last in json.load(handle)]


def _start_children(target: str, root: str) -> tuple[str, str]:
    """Make every Python process started from here on record itself: the
    directory of their records, and the bootstrap directory."""
    # Beside the raw recording, so one recording's children never meet another's.
    base = Path(target + ".children")
    children = base / "records"
    shutil.rmtree(base, ignore_errors=True)
    children.mkdir(parents=True)
    bootstrap = write_bootstrap(str(base / "bootstrap"))
    os.environ[ENV_CHILD] = json.dumps({"root": root, "out": str(children), "bootstrap": bootstrap})
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (bootstrap, os.environ.get("PYTHONPATH", "")) if p
    )
    return str(children), bootstrap


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    recorder = _recorder
    if recorder is None:
        yield
        return
    outcomes: list[str] = []
    item.stash[_OUTCOMES] = outcomes
    recorder.start()
    started = time.perf_counter()
    try:
        yield
    finally:
        seconds = time.perf_counter() - started
        # A failure in any phase wins over a skip: a test skipped in setup whose
        # teardown errors is a failing test, not a skipped one.
        outcome = next((o for o in ("failed", "skipped") if o in outcomes), "passed")
        path = os.path.relpath(str(item.path), recorder.root)
        recorder.stop(item.nodeid, path, outcome, _shared_code(recorder, item))
        # Under the recorder, a little slower than alone: for sizing a run, not a verdict.
        recorder.tests[-1]["seconds"] = seconds
        if _generated(item):
            recorder.tests[-1]["generated"] = True


def _generated(item: pytest.Item) -> bool:
    """A Hypothesis test (``@given``, a state machine's ``TestCase``): Hypothesis
    marks the function it wraps. Read without importing Hypothesis."""
    return getattr(getattr(item, "obj", None), "is_hypothesis_test", False) is True


def _shared_code(recorder: _Recorder, item: pytest.Item) -> tuple[set[CodeType], set[Site]]:
    """What the shared fixtures this test uses executed when they were set up:
    code objects, and computed-import sites."""
    info = getattr(item, "_fixtureinfo", None)  # pytest's own record of the test's fixtures
    if info is None:
        return set(), set()
    shared: set[CodeType] = set()
    sites: set[Site] = set()
    for defs in info.name2fixturedefs.values():
        for fixturedef in defs:
            key = (fixturedef.baseid, fixturedef.argname)
            shared |= recorder.fixtures.get(key, set())
            sites |= recorder.fixture_sites.get(key, set())
    return shared, sites


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any]) -> Generator[None, None, None]:
    recorder = _recorder
    if recorder is None or fixturedef.scope == "function":
        yield
        return
    # Set up once, used by many tests: its code is kept apart and credited to
    # each of them (the first test sees it too).
    before, recorder.code = recorder.code, set()
    # Attributes, not a call: a call here would be the running test's code.
    sites_before, recorder.watch.hit = recorder.watch.hit, set()
    if sys.version_info >= (3, 12):
        sys.monitoring.restart_events()  # type: ignore[attr-defined]  # >= 3.12
    try:
        yield
    finally:
        key = (fixturedef.baseid, fixturedef.argname)
        recorder.fixtures[key] = recorder.fixtures.get(key, set()) | recorder.code
        recorder.code = before | recorder.code
        recorder.fixture_sites[key] = recorder.fixture_sites.get(key, set()) | recorder.watch.hit
        recorder.watch.hit = sites_before | recorder.watch.hit


_OUTCOMES = pytest.StashKey[list[str]]()


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, None, None]:
    # Around each collector's collect(): a test module's import, a Class's
    # parametrization, a directory's conftest import, a plugin's File.
    recorder = _recorder
    scope = None if recorder is None else _scope_of(recorder, collector)
    if recorder is None or scope is None:
        yield
        return
    previous = recorder.enter(*scope)
    try:
        yield
    finally:
        recorder.enter(*previous)


def _scope_of(
    recorder: _Recorder, collector: pytest.Collector
) -> tuple[str, tuple[str, ...]] | None:
    """(scope, its own module files) of a collector; None: the session's."""
    if isinstance(collector, pytest.Session):
        return None
    path = os.path.abspath(str(collector.path))  # noqa: PTH100  # compared with co_filename
    if not path.startswith(recorder.root):
        return None  # the root directory itself, or outside the project: the session's
    relative = path[len(recorder.root) :].replace(os.sep, "/")
    if os.path.isdir(path):  # noqa: PTH112  # a plain path string
        # A directory (Dir, Package): its conftest.py and __init__.py are its own.
        own = tuple(os.path.join(path, name) for name in ("conftest.py", "__init__.py"))  # noqa: PTH118  # co_filename strings
        return relative + "/", own
    return relative, (path,)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Generator[None, Any, None]:
    outcome = yield
    outcomes = item.stash.get(_OUTCOMES, None)
    if outcomes is not None:
        outcomes.append(outcome.get_result().outcome)


def pytest_sessionfinish() -> None:
    recorder = _recorder
    target = os.environ.get(ENV_OUTPUT)
    if recorder is None or not target or os.getpid() != recorder.pid:
        # A fork of the session that came back into pytest writes no recording.
        return
    if sys.version_info >= (3, 12):
        monitoring = sys.monitoring  # type: ignore[attr-defined]  # >= 3.12
        recorder.tool_id = -1  # imports after this point are not watched
        for code in recorder.armed:
            monitoring.set_local_events(_tool_id, code, 0)
        monitoring.free_tool_id(_tool_id)
    recorder.end()
    # A process that outlives the session finds no directory and writes nothing.
    for name in (ENV_CHILD, ENV_TEST):
        os.environ.pop(name, None)
    shutil.rmtree(target + ".children", ignore_errors=True)
    document = {
        "root": recorder.root,
        "python": sys.version.split()[0],
        "tests": recorder.tests,
        "outside": sorted({*recorder.located(recorder.outside), *recorder.preloaded}),
        "sites": recorder.watch.sites,
        "outside_sites": sorted(recorder.watch.outside),
        "site_imports": recorder.watch.imports(),
        "collected": {
            scope: recorder.located(code) for scope, code in sorted(recorder.collected.items())
        },
    }
    Path(target).write_text(json.dumps(document), encoding="utf-8")
