"""How much of each suite a pytest run will run, judged from what it collected.

pytest knows, after collection and deselection, exactly which items will run:
that — not the shell string — decides whether a run is a whole suite (dedup,
record), a sweep of one (the gate) or a focused run. Nothing here talks to
pytest: :class:`Collected` is the collection reduced to paths and options, so
the rule is tested with plain values.

Per suite:

- **whole**: the run's collection arguments cover every path of the suite,
  nothing narrowed it (no ``-k``, the suite's own ``-m`` and no other, no
  ``--ignore`` inside it, no ``--ignore-glob``/``--deselect``/``--lf``
  selection, no collection error) and no
  item of the suite was deselected;
- **share**: the part of the suite that runs — of its *items* when the whole
  suite was collected (``-k 'not test_x'`` deselects one of 500: 99.8 %), else
  of its *test files* (found with pytest's own ``python_files`` and
  ``norecursedirs``), since uncollected files have no items to count;
- **sweep**: whole, or at least ``sweep_share`` percent — and at least
  ``sweep_min_paths`` test files run: running a two-file suite whole is a
  focused run, not a sweep (the hook's rule counts the same quantity).
"""

from __future__ import annotations

import fnmatch
import os

TYPE_CHECKING = False  # not typing.TYPE_CHECKING, as everywhere in the governor
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from lanes.governor.settings import SuiteLike

__all__ = ["Collected", "Scope", "SuiteSpec", "judge", "suite_files"]

# The implicit suite of a project that configures no pytest suite: its test
# root (testpaths, else the rootdir), so an unconfigured project is gated too.
TEST_ROOT = "(test root)"


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class SuiteSpec:
    """One suite as absolute paths: its name, paths, ``-m`` expression and
    (for a configured suite) its settings row."""

    __slots__ = ("markers", "name", "paths", "suite")

    def __init__(
        self,
        name: str,
        paths: Sequence[str],
        markers: str | None = None,
        suite: SuiteLike | None = None,
    ) -> None:
        self.name = name
        self.paths = tuple(os.path.normpath(p) for p in paths)
        self.markers = markers
        self.suite = suite

    def holds(self, path: str) -> bool:
        return any(_under(path, root) for root in self.paths)

    def covered_by(self, args: Sequence[str]) -> bool:
        """Whether collection arguments ``args`` (absolute, normalised) reach
        every path of the suite: a run can be the whole suite only then."""
        return all(any(_under(root, arg) for arg in args) for root in self.paths)

    def __repr__(self) -> str:
        return f"SuiteSpec({self.name!r}, {self.paths!r}, markers={self.markers!r})"


class Collected:
    """A collection reduced to what the rule needs: one file path per
    selected and per deselected item, the collection arguments (absolute, node
    ids cut to their file), the ``-m``/``-k`` expressions and every other
    reason the run is narrowed (``--ignore``, ``--lf`` with failures, a
    collection error ...)."""

    __slots__ = ("args", "deselected", "ignored", "keyword", "markexpr", "narrowed", "selected")

    def __init__(
        self,
        *,
        selected: Sequence[str],
        deselected: Sequence[str],
        args: Sequence[str],
        markexpr: str = "",
        keyword: str = "",
        narrowed: Sequence[str] = (),
        ignored: Sequence[str] = (),
    ) -> None:
        self.selected = tuple(selected)
        self.deselected = tuple(deselected)
        self.args = tuple(os.path.normpath(a) for a in args)
        self.markexpr = markexpr.strip()
        self.keyword = keyword.strip()
        self.narrowed = tuple(narrowed)
        # --ignore paths (absolute): they narrow only the suites they touch —
        # a project's `addopts = --ignore=setup.py` leaves tests/ whole.
        self.ignored = tuple(os.path.normpath(p) for p in ignored)


class Scope:
    """The verdict for one suite; see the module docstring."""

    __slots__ = (
        "files_run",
        "files_total",
        "items_run",
        "measure",
        "partial",
        "share",
        "spec",
        "whole",
    )

    def __init__(
        self,
        spec: SuiteSpec,
        *,
        items_run: int,
        files_run: int,
        files_total: int,
        share: float,
        measure: str,
        partial: tuple[str, ...],
    ) -> None:
        self.spec = spec
        self.items_run = items_run
        self.files_run = files_run
        self.files_total = files_total
        self.share = share
        self.measure = measure
        # Why the run is not the whole suite; empty when it is.
        self.partial = partial
        self.whole = not partial

    def sweep(self, share_percent: int, min_files: int) -> bool:
        """Whether this run sweeps the suite (module docstring, "sweep")."""
        if self.items_run == 0 or self.files_run < min_files:
            return False
        return self.whole or self.share * 100 >= share_percent

    def summary(self) -> str:
        """``N items in M files = P % of suite X (by items)``, as messages show it."""
        return (
            f"{self.items_run} items in {self.files_run} files = {self.share * 100:.0f} % "
            f"of suite {self.spec.name} (by {self.measure})"
        )

    def __repr__(self) -> str:
        return (
            f"Scope({self.spec.name!r}, items_run={self.items_run}, files_run={self.files_run}, "
            f"files_total={self.files_total}, share={self.share:.3f}, partial={self.partial!r})"
        )


def _is_venv(directory: str) -> bool:
    # pytest skips virtual environments too (unless --collect-in-virtualenv).
    return os.path.isfile(os.path.join(directory, "pyvenv.cfg")) or os.path.isfile(
        os.path.join(directory, "bin", "activate")
    )


def suite_files(
    paths: Iterable[str],
    patterns: Sequence[str],
    norecurse: Sequence[str],
    limit: int | None = None,
) -> set[str]:
    """The test files under ``paths`` by pytest's rules: a basename matching a
    ``python_files`` pattern, in no directory matching ``norecursedirs`` and
    in no virtual environment. A path that is a file counts as itself.

    ``limit``: stop once more than this many are found — past it the share
    is too small to matter, and a 5,000-file tree need not be walked to the
    end for a small run."""
    import re  # the plugin's path only, never the hook's

    wanted = re.compile("|".join(fnmatch.translate(p) for p in patterns) or "(?!)")
    skipped = re.compile("|".join(fnmatch.translate(p) for p in norecurse) or "(?!)")
    found: set[str] = set()
    for root in paths:
        if os.path.isfile(root):
            found.add(os.path.normpath(root))
            continue
        for directory, dirnames, filenames in os.walk(root):
            dirnames[:] = [
                name
                for name in dirnames
                if not skipped.match(name) and not _is_venv(os.path.join(directory, name))
            ]
            found.update(
                os.path.join(directory, name)
                for name in filenames
                if name.endswith(".py") and wanted.match(name)
            )
            if limit is not None and len(found) > limit:
                return found
    return found


def judge(
    spec: SuiteSpec,
    collected: Collected,
    find_files: Callable[[Sequence[str], int], set[str]],
    *,
    share_percent: int,
    min_files: int,
) -> Scope:
    """How much of ``spec`` this collection runs. ``find_files(paths, limit)``
    lists a suite's test files (:func:`suite_files`, stopping past ``limit``);
    it walks the tree, so it is called only when the share must be counted in
    files and could reach ``share_percent`` (never for a run of fewer than
    ``min_files`` files, which is no sweep whatever its share)."""
    selected = [path for path in collected.selected if spec.holds(path)]
    deselected = sum(1 for path in collected.deselected if spec.holds(path))
    files_run = len(set(selected))
    covered = spec.covered_by(collected.args)
    partial: list[str] = []
    if not covered:
        partial.append("its collection arguments do not cover every path of the suite")
    if collected.keyword:
        partial.append(f"-k {collected.keyword!r}")
    if collected.markexpr != (spec.markers or ""):
        partial.append(f"-m {collected.markexpr!r} (the suite's: {spec.markers or 'none'!r})")
    if deselected:
        partial.append(f"{deselected} of its items deselected")
    touched = [
        path
        for path in collected.ignored
        if spec.holds(path) or any(_under(root, path) for root in spec.paths)
    ]
    if touched:
        partial.append(f"--ignore {' '.join(touched)}")
    partial.extend(collected.narrowed)
    if covered and (selected or deselected):
        share = len(selected) / (len(selected) + deselected)
        measure = "items"
        files_total = files_run
    elif files_run < min_files:
        share, measure, files_total = 0.0, "files (not counted: too few to be a sweep)", 0
    else:
        # Uncollected files have no items to count: the share is of files.
        # More than files_run * 100 / share_percent of them and the share is
        # below the threshold: the walk may stop there.
        limit = files_run * 100 // share_percent
        total = len(find_files(spec.paths, limit) | set(selected))
        share = files_run / total if total else 0.0
        measure = "files"
        files_total = total
    return Scope(
        spec,
        items_run=len(selected),
        files_run=files_run,
        files_total=files_total,
        share=share,
        measure=measure,
        partial=tuple(partial),
    )
