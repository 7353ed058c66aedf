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

import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from lanes.affected.child import ENV_CHILD, ENV_TEST, free_tool_id, write_bootstrap
from lanes.affected.tracker import ChildWork, Recorder

if TYPE_CHECKING:
    from collections.abc import Generator
    from types import CodeType

    from lanes.affected.sitewatch import Site
    from lanes.affected.tracker import SharedWork

__all__ = ["ENV_HYPOTHESIS_SEED", "ENV_OUTPUT", "ENV_SITES"]

ENV_OUTPUT = "LANES_AFFECTED_RECORD"
# A JSON file: the computed-import call sites, [[file, first line, last line], ...].
ENV_SITES = "LANES_AFFECTED_SITES"
# ``hypothesis_seed``: the seed Hypothesis tests draw their examples with.
ENV_HYPOTHESIS_SEED = "LANES_AFFECTED_HYPOTHESIS_SEED"

_tool_id = -1
_recorder: Recorder | None = None


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
    recorder = Recorder(root, _start_children(target, root), _read_sites())
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
    # Arming the code already loaded asks the project's code (ProjectCode and
    # SiteWatch: lanekit's own, on lanekit itself) about each function: the
    # recorder's work, not code that ran outside every test.
    recorder.busy = True
    try:
        if sys.version_info >= (3, 12):
            recorder.arm_loaded()
        recorder.watch.preloaded()
    finally:
        recorder.busy = False
    _recorder = recorder
    sys.addaudithook(recorder.audit)
    os.register_at_fork(after_in_child=recorder.forked)
    recorder.begin()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # Before Hypothesis' own plugin reads its option: as if the run were given
    # --hypothesis-seed (a seed given on the command line or in addopts wins).
    # Without that plugin (-p no:hypothesispytest) there is no option, and the
    # tests draw at random: not vouched for.
    seed = os.environ.get(ENV_HYPOTHESIS_SEED)
    if seed and getattr(config.option, "hypothesis_seed", False) is None:
        config.option.hypothesis_seed = seed


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
        generated = _generated(item)
        if generated:
            recorder.tests[-1]["generated"] = generated


def _generated(item: pytest.Item) -> str:
    """How a Hypothesis test (``@given``, a state machine's ``TestCase``;
    Hypothesis marks the function it wraps) drew its examples: "seeded" when
    the run's seed was fixed, "random" otherwise; empty for any other test.
    Read after the run, without importing Hypothesis.

    Seeded means ``--hypothesis-seed`` or ``derandomize=True``: the examples
    are then a function of the code the test executes alone (Hypothesis reads
    no example database with either), so a run that executes the same code
    draws the same ones. A test with ``@seed(n)`` still replays its database
    entries first, and a stateful test keeps no record of its seed: random.
    """
    test = getattr(item, "obj", None)
    if getattr(test, "is_hypothesis_test", False) is not True:
        return ""
    # Hypothesis sets it to the seed it generated, or None when none was.
    generated_seed = getattr(test, "_hypothesis_internal_use_generated_seed", "unknown")
    explicit_seed = getattr(test, "_hypothesis_internal_use_seed", None)
    return "seeded" if generated_seed is None and explicit_seed is None else "random"


def _seed_of(config: pytest.Config) -> str | None:
    """The --hypothesis-seed the run was given (None: none, or no Hypothesis plugin)."""
    seed = getattr(config.option, "hypothesis_seed", None)
    return None if seed is None else str(seed)


def _shared_code(recorder: Recorder, item: pytest.Item) -> SharedWork:
    """What the shared fixtures this test uses executed when they were set up:
    code objects, computed-import sites, and what the processes they started ran."""
    info = getattr(item, "_fixtureinfo", None)  # pytest's own record of the test's fixtures
    children = ChildWork()
    if info is None:
        return set(), set(), set(), children
    shared: set[CodeType] = set()
    sites: set[Site] = set()
    opened: set[str] = set()
    for defs in info.name2fixturedefs.values():
        for fixturedef in defs:
            key = (fixturedef.baseid, fixturedef.argname)
            shared |= recorder.fixtures.get(key, set())
            sites |= recorder.fixture_sites.get(key, set())
            opened |= recorder.fixture_opened.get(key, set())
            if key in recorder.fixture_children:
                children.merge(recorder.fixture_children[key])
    return shared, sites, opened, children


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any]) -> Generator[None, None, None]:
    recorder = _recorder
    if recorder is None or fixturedef.scope == "function":
        yield
        return
    # Set up once, used by many tests: its code is kept apart and credited to
    # each of them (the first test sees it too).
    before, recorder.code = recorder.code, set()
    # A data file it reads once is read for each of them too.
    opened_before, recorder.opened = recorder.opened, set()
    # Attributes, not a call: a call here would be the running test's code.
    sites_before, recorder.watch.hit = recorder.watch.hit, set()
    spawned_before = (recorder.spawned, len(recorder.foreign))
    if sys.version_info >= (3, 12):
        sys.monitoring.restart_events()  # type: ignore[attr-defined]  # >= 3.12
    try:
        yield
    finally:
        key = (fixturedef.baseid, fixturedef.argname)
        if (recorder.spawned, len(recorder.foreign)) != spawned_before:
            # The processes it started (a server, a recording run) ran for
            # every user, not only for the test that happened to set it up.
            _credit_children(recorder, key)
        recorder.fixtures[key] = recorder.fixtures.get(key, set()) | recorder.code
        recorder.code = before | recorder.code
        recorder.fixture_opened[key] = recorder.fixture_opened.get(key, set()) | recorder.opened
        recorder.opened = opened_before | recorder.opened
        recorder.fixture_sites[key] = recorder.fixture_sites.get(key, set()) | recorder.watch.hit
        recorder.watch.hit = sites_before | recorder.watch.hit


def _credit_children(recorder: Recorder, key: tuple[str, str]) -> None:
    """Credit a shared fixture with what its setup's processes ran: the
    recorder's own work, no test's code (on lanekit itself, where it is the project's)."""
    recorder.busy = True  # 3.12+: what it calls is not credited
    if sys.version_info < (3, 12):
        sys.settrace(None)
    try:
        recorder.fixture_children.setdefault(key, ChildWork()).merge(
            recorder.children_work(remove=False)
        )
    finally:
        recorder.busy = False
        if sys.version_info < (3, 12):
            sys.settrace(recorder.tracer)


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
    recorder: Recorder, collector: pytest.Collector
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


def pytest_sessionfinish(session: pytest.Session) -> None:
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
    recorder.busy = True  # what it opens from here on (the children's records) no test read
    # A process that outlives the session finds no directory and writes nothing.
    for name in (ENV_CHILD, ENV_TEST):
        os.environ.pop(name, None)
    shutil.rmtree(target + ".children", ignore_errors=True)
    document = {
        "root": recorder.root,
        "python": sys.version.split()[0],
        "hypothesis_seed": _seed_of(session.config),
        "tests": recorder.tests,
        "outside": sorted({*recorder.located(recorder.outside), *recorder.preloaded}),
        "outside_callers": recorder.caller_edges(),
        "opened_outside": recorder.data_outside(),
        "sites": recorder.watch.sites,
        "outside_sites": sorted(recorder.watch.outside),
        "site_imports": recorder.watch.imports(),
        "collected": {
            scope: recorder.located(code) for scope, code in sorted(recorder.collected.items())
        },
    }
    Path(target).write_text(json.dumps(document), encoding="utf-8")
