"""Which computed imports ran while the recorder watched, and what each imported.

The call sites the static scan found (:mod:`lanes.affected.computed`, handed
to the recorder in the file named by ``LANES_AFFECTED_SITES``) count as run
when their call instruction executed: a call instruction whose source span
lies within the site's lines. Not a line event: a line runs without its call
when it holds the condition in front of it (``if c: m = import_module(n)``)
or another expression that stops first. Only the code objects holding a site
are watched (3.12+: ``CALL`` events, each location disabled after its first
hit per test; 3.11: on those frames alone, opcode events while a site's line
runs), never the rest of the process.

What a site imported is noted as files: every project module executed while
its call is on the stack (the ``exec`` audit event, and the calling frame's
instruction is the site's call), and on 3.12+, where a site's calls stay
watched (one callback per call), the file of a module
``importlib.import_module`` returned already loaded. Anything else a site
called (``__import__``, a wrapper, a relative name, a loaded module without a
file) makes what it imported unknown, and so does 3.11, which cannot see a
call's arguments. Files, not names: a loader that copies a package's
``__path__`` runs a file under another module name (toolz's ``tlz``). A site
that ran in a child process is inferred from the code the child executed
(:func:`lanes.affected.testmap.build_map`); a site in a module imported
before the recording began, outside every function, is taken as run outside
tests.

The recorder (:mod:`lanes.affected.recorder`) owns the when: it moves what
ran (:attr:`SiteWatch.hit`) to a test, a shared fixture or the outside.
"""

from __future__ import annotations

import builtins
import dis
import sys
from importlib import import_module
from types import CodeType, FunctionType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import FrameType

    from _typeshed import TraceFunction

    from lanes.affected.projectcode import ProjectCode

__all__ = ["Site", "SiteWatch"]

# A site: (file under the root, its first line), as the static scan names it.
Site = tuple[str, int]
_CACHE = dis.opmap["CACHE"]
_IMPORT_NAMES = frozenset({"import_module", "__import__"})
# The instructions that call: CALL, and CALL_FUNCTION_EX for f(*args).
_CALL_OPS = frozenset(dis.opmap[name] for name in ("CALL", "CALL_FUNCTION_EX") if name in dis.opmap)


def _site_calls(code: CodeType, ranges: list[tuple[int, int, Site]]) -> dict[int, list[Site]]:
    """Offset of each call instruction of ``code``'s own (not its nested
    functions') whose source span lies within a site's lines -> those sites."""
    raw = code.co_code
    found: dict[int, list[Site]] = {}
    # One position per code unit (two bytes), caches included.
    for index, (first, last, _, _) in enumerate(code.co_positions()):
        if first is None or raw[2 * index] not in _CALL_OPS:
            continue
        end = last if last is not None else first
        sites = [site for low, high, site in ranges if low <= first and end <= high]
        if sites:
            found[2 * index] = sites
            # While the call runs, the caller's f_lasti points into its inline caches.
            after = index + 1
            while 2 * after < len(raw) and raw[2 * after] == _CACHE:
                found[2 * after] = sites
                after += 1
    return found


class SiteWatch:
    """The computed-import sites of one recording: which ran, and what each imported."""

    def __init__(self, root: str, project: ProjectCode, sites: list[tuple[str, int, int]]) -> None:
        self.project = project
        # Absolute file -> (first line, last line, site) of each site's call.
        self.ranges: dict[str, list[tuple[int, int, Site]]] = {}
        # Absolute file -> the lines a site's call spans (3.11: opcode events there).
        self.lines: dict[str, set[int]] = {}
        for file, first, last in sites:
            self.ranges.setdefault(root + file, []).append((first, last, (file, first)))
            self.lines.setdefault(root + file, set()).update(range(first, last + 1))
        self.sites = sorted({(file, first) for file, first, _ in sites})
        # The sites that ran since the recorder last took them (:meth:`take`).
        self.hit: set[Site] = set()
        self.outside: set[Site] = set()
        # What each site imported: project files (under the root); unknown for some.
        self.files: dict[Site, set[str]] = {}
        self.unknown: set[Site] = set()
        # The code objects of the site files: offset of a site's call -> its sites (empty: none).
        self.calls: dict[CodeType, dict[int, list[Site]]] = {}

    def take(self) -> set[Site]:
        """The sites that ran since the last call, handed over."""
        hit, self.hit = self.hit, set()
        return hit

    def imports(self) -> list[list[str] | None]:
        """Per site (in :attr:`sites` order): the project files it imported; None: unknown."""
        return [
            None if site in self.unknown else sorted(self.files.get(site, ()))
            for site in self.sites
        ]

    def holds_sites(self, code: CodeType) -> bool:
        """Whether ``code`` itself holds a site's call."""
        return code.co_filename in self.ranges and bool(self.calls_of(code))

    def calls_of(self, code: CodeType) -> dict[int, list[Site]]:
        """The site calls of ``code`` (a code object of a file holding a site), computed once."""
        calls = self.calls.get(code)
        if calls is None:
            calls = self.calls[code] = _site_calls(code, self.ranges[code.co_filename])
        return calls

    # -- the hooks that run per event: as little work as possible
    def imported(self, file: str, frame: FrameType | None) -> None:
        """A project module (``file``) about to run: imported by every site
        whose call is on the stack from ``frame`` up."""
        while frame is not None:
            calls = self.calls.get(frame.f_code)
            hit = calls.get(frame.f_lasti) if calls else None
            if hit:
                for site in hit:
                    self.files.setdefault(site, set()).add(file)
            frame = frame.f_back

    def trace_frame(self, frame: FrameType, event: str, arg: object) -> TraceFunction:
        """3.11: the local trace of a frame holding a site."""
        # 3.11 sees no call's arguments: what a site imported stays unknown.
        if event == "line":
            # Opcode events only while a site's lines run: a hot function
            # holding a site pays per instruction of those lines alone.
            frame.f_trace_opcodes = frame.f_lineno in self.lines[frame.f_code.co_filename]
        elif event == "opcode":
            hit = self.calls[frame.f_code].get(frame.f_lasti)
            if hit:
                self.hit.update(hit)
                self.unknown.update(hit)
        return self.trace_frame

    def monitor_call(self, code: CodeType, offset: int, callee: object, arg0: object) -> object:
        """3.12+: the ``CALL`` callback, armed on the code objects holding a site."""
        # Only code objects holding a site get CALL events; a location that is
        # no site's call is disabled after its first hit until the next test.
        hit = self.calls[code].get(offset)
        if not hit:
            return sys.monitoring.DISABLE  # type: ignore[attr-defined]  # Python >= 3.12 only
        self.hit.update(hit)
        # A site's own calls stay watched: a module it gets already loaded runs
        # no code (no exec event), and its file is what the site reads.
        if callee is import_module and type(arg0) is str and not arg0.startswith("."):
            loaded = sys.modules.get(arg0)
            if loaded is not None:
                file = getattr(loaded, "__file__", None)
                if not isinstance(file, str):
                    if arg0 not in sys.builtin_module_names:
                        self.unknown.update(hit)  # built at run time from who knows what
                elif relative := self.project.code_path(file):
                    for site in hit:
                        self.files.setdefault(site, set()).add(relative)
        elif callee is builtins.__import__ or getattr(callee, "__name__", "") in _IMPORT_NAMES:
            # __import__'s fromlist returns loaded submodules too; a wrapper may do anything.
            self.unknown.update(hit)
        # Any other call in the site's span is one of its arguments: it imports nothing.
        return None

    # -- once per recording
    def preloaded(self) -> None:
        """The sites of modules imported before the recording began that no
        function holds: their module code ran unseen, so they count as run outside tests."""
        import gc  # noqa: PLC0415  # once per recording

        preloaded = {
            file
            for module in list(sys.modules.values())
            if isinstance(file := getattr(module, "__file__", None), str) and file in self.ranges
        }
        if not preloaded:
            return
        held: set[Site] = set()
        seen: set[CodeType] = set()
        pending = [
            obj.__code__
            for obj in gc.get_objects()
            if type(obj) is FunctionType and obj.__code__.co_filename in preloaded
        ]
        while pending:
            code = pending.pop()
            if code in seen:
                continue
            seen.add(code)
            held.update(site for sites in self.calls_of(code).values() for site in sites)
            pending.extend(c for c in code.co_consts if type(c) is CodeType)
        for file in preloaded:
            unseen = [site for _, _, site in self.ranges[file] if site not in held]
            self.outside.update(unseen)
            self.unknown.update(unseen)
