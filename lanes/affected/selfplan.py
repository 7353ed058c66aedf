"""A change to lanekit's own code, in lanekit's own repository, is planned by the base commit's selector.

A plan made by changed selector code cannot vouch for itself: a bug planted
in :func:`~lanes.affected.plan.make_plan` could make it select nothing, and
the gate would pass. And the selector is more than ``lanes/affected/``: it
reads the configuration (``lanes/config.py``), documents (``lanes/_jsondoc.py``)
and more. So when the *running* lanekit package (the directory of the
``lanes/__init__.py`` actually imported) lies inside the project root being
planned, and the change touches a file of it, the plan is made by the base
commit's lanekit:

1. the package as it was at the base commit is exported (``git archive``) to
   a temporary directory outside the root;
2. ``lanes affected --json --base <commit>`` runs in a child of the same
   interpreter, isolated (``-I``: no current directory, no ``PYTHONPATH``),
   with the export first on ``sys.path``; the child checks that ``lanes`` is
   the export before it plans, and plans with the same map (``--map``, else
   the default one) and configuration;
3. its plan is read back (:meth:`~lanes.affected.plan.Plan.from_dict`, which
   validates it: it may come from another lanekit version), keeps every
   test's reasons, and says once who made it (``planned_by``).

The export runs the base's code, whose own running package (the export) is
outside the root: it plans the change itself, it does not delegate again.

Fail safe: without a base commit, with a base that has no such package, or
when the export, the child or the plan it prints fails, the plan is the full
set with the reason — never the changed code's own plan.

Anywhere else — a user's project, where the running lanekit is installed
outside the root — nothing changes and no process starts; a file there that
happens to sit in ``lanes/affected/`` is an ordinary file.

What this cannot do: the decision to delegate is the running code's, so a
change to this module (or to ``build_plan``) that stops it delegating is
planned by the changed code itself; this module's tests are what catch it.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from lanes._jsondoc import failing_with, loads_object
from lanes.affected.plan import Plan, Selection
from lanes.affected.planread import PlanFormatError
from lanes.affected.rules import Reason, under
from lanes.affected.suites import plan_gates, suite_runs
from lanes.errors import LanesError

if TYPE_CHECKING:
    from lanes.affected.changes import Changes
    from lanes.affected.rules import Project
    from lanes.config import Config

__all__ = ["CHILD_TIMEOUT", "full_plan", "own_package", "plan_by_base", "touched"]

# Planning lanekit's own repository takes seconds; a child past this is stuck.
CHILD_TIMEOUT = 600.0
# Larger than any plan (lanekit's full plan is well under 1 MiB).
_MAX_PLAN_BYTES = 64 << 20

# The child: the export first on sys.path, proven to be what `lanes` is, then the
# base's own command line. `-I` keeps the current directory (the changed working
# tree) and PYTHONPATH off sys.path; the check catches any other way in.
_CHILD = """\
import os, sys
home = os.path.realpath(sys.argv[1])
sys.path.insert(0, home)
import lanes
found = os.path.realpath(lanes.__file__)
if not found.startswith(home + os.sep):
    sys.exit("the base commit's lanekit was not imported: lanes is " + found)
from lanes.cli import main
sys.exit(main(sys.argv[2:]))
"""


class _BaseSelectorError(Exception):
    """Why the base commit's selector could not plan; the plan is the full set."""


def own_package(root: Path) -> str | None:
    """The running lanekit package's directory relative to ``root``, when it lies inside it."""
    import lanes  # noqa: PLC0415  # the package this code runs from, loaded already

    package = Path(lanes.__file__).resolve().parent
    try:
        return package.relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def touched(changes: Changes, package: str) -> list[str]:
    """The changed paths inside the running package (a rename counts on both sides)."""
    return sorted(path for path in changes.paths if under(path, package))


def plan_by_base(
    config: Config, changes: Changes, package: str, map_file: Path | None
) -> Plan | Reason:
    """The base commit's selector's plan for ``changes``, or why there is none
    (the reason for the full set)."""
    commit = changes.base_commit
    try:
        plan = _child_plan(config, commit, package, map_file)
    except _BaseSelectorError as exc:
        paths = touched(changes, package)
        return Reason(
            "full",
            paths[0],
            f"the change touches lanekit's own code ({package}/, {len(paths)} files) and the "
            f"base commit's selector could not plan it: {exc}; a plan made by the changed "
            "code cannot vouch for itself",
        )
    plan.base = changes.base
    return plan


def full_plan(project: Project, changes: Changes, reason: Reason) -> Plan:
    """Every suite and gate for ``reason``, without asking the changed code's rules."""
    return Plan(
        base=changes.base,
        base_commit=changes.base_commit,
        selections=[
            Selection(
                path,
                change,
                "full",
                reason.detail
                if path == reason.changed
                else f"the full set runs: see {reason.changed}",
            )
            for path, change in sorted(changes.paths.items())
        ],
        tests={test: [Reason("full", reason.changed)] for test in project.tests},
        full_reasons=[reason],
        suites=suite_runs(project, list(project.tests), {}, full=True),
        gates=plan_gates(project, changes, [reason]),
        blind_spots=[],
        total_tests=len(project.tests),
    )


def _child_plan(config: Config, commit: str | None, package: str, map_file: Path | None) -> Plan:
    if commit is None:
        msg = "there is no base commit to take the selector from (no commit yet)"
        raise _BaseSelectorError(msg)
    root = config.root.resolve()
    with tempfile.TemporaryDirectory(prefix="lanes-selfplan-") as tmp:
        export = Path(tmp).resolve()
        if export.is_relative_to(root):
            # The export would be the child's running package inside the root:
            # it would delegate again, without end.
            msg = f"the temporary directory {str(export)!r} lies inside the project root; set TMPDIR outside it"
            raise _BaseSelectorError(msg)
        _export(root, commit, package, export)
        argv = [sys.executable, "-I", "-c", _CHILD, str((export / package).parent)]
        argv += ["affected", "--json", "--base", commit]
        if map_file is not None:
            argv += ["--map", str(map_file.resolve())]
        if config.source is not None:
            argv += ["--config", str(config.source)]
        try:
            proc = subprocess.run(
                argv, cwd=root, capture_output=True, timeout=CHILD_TIMEOUT, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            msg = f"its child could not run: {exc}"
            raise _BaseSelectorError(msg) from None
    if proc.returncode != 0:
        msg = f"its child exited {proc.returncode}: {_tail(proc.stderr)}"
        raise _BaseSelectorError(msg)
    if len(proc.stdout) > _MAX_PLAN_BYTES:
        msg = f"its child printed {len(proc.stdout)} bytes, more than a plan ({_MAX_PLAN_BYTES})"
        raise _BaseSelectorError(msg)
    try:
        document = loads_object(
            proc.stdout,
            what="the plan it printed",
            fail=failing_with(PlanFormatError, "the child printed no plan"),
        )
        plan = Plan.from_dict(document)
    except LanesError as exc:
        raise _BaseSelectorError(str(exc)) from None
    plan.planned_by = (
        f"the base commit's selector ({commit[:12]}): the change touches lanekit's own code "
        f"({package}/), and a plan made by changed selector code cannot vouch for itself"
    )
    return plan


def _export(root: Path, commit: str, package: str, into: Path) -> None:
    """``package`` as it is in ``commit``, written under ``into`` (same relative path)."""
    import tarfile  # noqa: PLC0415  # only a change to lanekit's own code needs it

    try:
        proc = subprocess.run(
            ["git", "archive", "--format=tar", commit, "--", package],
            cwd=root,
            capture_output=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        msg = f"git archive could not run: {exc}"
        raise _BaseSelectorError(msg) from None
    if proc.returncode != 0:
        msg = f"git archive of {package}/ at {commit[:12]} failed: {_tail(proc.stderr)}"
        raise _BaseSelectorError(msg)
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        if hasattr(tarfile, "data_filter"):
            # Python >= 3.11.4: refuse members that would land outside `into`.
            tar.extractall(into, filter="data")
        else:
            tar.extractall(into)  # noqa: S202  # our own repository's commit, not a download
    if not (into / package / "__init__.py").is_file():
        msg = f"{package}/__init__.py is not in {commit[:12]}"
        raise _BaseSelectorError(msg)


def _tail(raw: bytes) -> str:
    """The last line of a process's stderr, bounded: the error, not its traceback."""
    lines = raw.decode("utf-8", "replace").strip().splitlines()
    last = lines[-1] if lines else "(no output)"
    return last if len(last) <= 300 else last[:297] + "..."
