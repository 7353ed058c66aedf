"""The plan's directory: ``plan.json`` and, per module, mutmut's own files, read back strictly.

``lanes mutation plan --output DIR`` leaves::

    DIR/plan.json                       a mutation envelope, data.kind "plan"
    DIR/<module dir>/mutants/<path>     mutmut's mutated file (every mutant, trampolined)
    DIR/<module dir>/mutants/<path>.meta    its mutants (exit codes still null)
    DIR/<module dir>/mutants/<path>.spans   mutmut's index of the functions' lines
    DIR/<module dir>/mutants/mutmut-stats.json  the test map and the tests' durations

These are the files a ``mutmut run`` leaves after generation and mapping,
unchanged: put back into a fresh copy of the same tree, mutmut finds every
mutant newer than its source (so it does not generate again) and its stats
loaded (so it maps no test again); it only lists the tests, runs the clean
suite on the shard's tests and then the shard's mutants.

The directory is an artifact someone else wrote (a CI job), so it is read as
untrusted: ``plan.json`` as a schema-checked envelope of bounded size, and
mutmut's files only under the names the *registry* gives (never a path the
plan names), regular files only, not followed through links, size-capped,
each matched to the digest ``plan.json`` recorded. A plan carries code (the
mutated module runs under the tests): feed a shard only a plan your own
workflow made.
"""

from __future__ import annotations

import hashlib
import os
import re
from typing import TYPE_CHECKING, Any, Final

from lanes._jsondoc import NotRegularFileError, TooLargeError, read_bytes
from lanes.envelope import read_envelope, validate_envelope
from lanes.errors import LanesError

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from lanes.mutation.settings import MutationModule
    from lanes.payloads.mutation import MutationPlan

__all__ = [
    "PLAN_FILE",
    "REPLAN",
    "STATS",
    "PlanError",
    "module_dir",
    "mutmut_files",
    "read_plan",
    "restore_files",
    "save_files",
    "tree_differences",
]

PLAN_FILE: Final = "plan.json"
STATS: Final = "mutmut-stats.json"
# A mutated file holds every mutant of its functions: a 2,000-line module
# gives a few MiB. Far above that, small enough never to exhaust memory.
_MAX_FILE_BYTES: Final = 256 << 20
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.-]")
_SHOWN: Final = 5
REPLAN: Final = (
    "make the plan again on this tree (`lanes mutation plan --output DIR`) and pass that DIR"
)


class PlanError(LanesError, ValueError):
    """A plan that is unreadable, incomplete, or made for another tree or configuration."""


def module_dir(name: str) -> str:
    """The module's directory in the plan: readable, and safe for any registry key."""
    readable = _UNSAFE.sub("_", name)[:40].strip(".") or "module"
    return f"{readable}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def mutmut_files(module: MutationModule) -> tuple[list[str], list[str]]:
    """(required, optional) names of mutmut's files for ``module``, under ``mutants/``."""
    required = [STATS]
    optional: list[str] = []
    for path in module.paths:
        required += [path, f"{path}.meta"]
        optional.append(f"{path}.spans")
    return required, optional


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def save_files(copy_root: Path, plan_dir: Path, module: MutationModule) -> dict[str, str]:
    """Copy mutmut's files of ``module`` from the work copy into the plan; name -> digest."""
    required, optional = mutmut_files(module)
    target = plan_dir / module_dir(module.name) / "mutants"
    saved: dict[str, str] = {}
    for name in [*required, *optional]:
        source = copy_root / "mutants" / name
        if not source.is_file():
            if name in optional:
                continue
            msg = f"mutmut left no {name!r} for module {module.name!r} after generating its mutants"
            raise PlanError(msg, hint="run `mutmut run` in a copy of the project to see why")
        data = source.read_bytes()
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(data)
        saved[name] = _digest(data)
    return saved


def restore_files(
    plan_dir: Path, module: MutationModule, files: Mapping[str, str], copy_root: Path
) -> None:
    """Put mutmut's files of ``module`` from the plan into ``copy_root/mutants``, verified.

    Only the names the registry gives are read; each must match its recorded
    digest. The mutated files are dated after their sources, which is how
    mutmut knows a file's mutants are already generated.
    """
    required, optional = mutmut_files(module)
    unexpected = sorted(set(files) - set(required) - set(optional))
    missing = sorted(set(required) - set(files))
    if unexpected or missing:
        what = f"names {unexpected!r}" if unexpected else f"lacks {missing!r}"
        msg = f"the plan's files of module {module.name!r} {what}: they are not mutmut's files of its registry paths"
        raise PlanError(msg, hint=REPLAN)
    base = plan_dir / module_dir(module.name) / "mutants"
    confined = os.path.realpath(plan_dir)
    for name in sorted(files):
        source = base / name
        # The leaf is opened without following links; a linked directory on
        # the way must not lead out of the plan either.
        if os.path.commonpath([confined, os.path.realpath(source.parent)]) != confined:
            msg = (
                f"the plan's file {str(source)!r} lies outside the plan directory {str(plan_dir)!r}"
            )
            raise PlanError(msg, hint=REPLAN)
        try:
            data = read_bytes(source, max_bytes=_MAX_FILE_BYTES)
        except (NotRegularFileError, TooLargeError) as exc:
            msg = f"the plan's file {str(source)!r} cannot be read: {exc}"
            raise PlanError(msg, hint=REPLAN) from None
        except OSError as exc:
            msg = f"the plan's file {str(source)!r} cannot be read: {exc.strerror or exc}"
            raise PlanError(msg, hint=REPLAN) from None
        if data is None:
            msg = f"the plan has no file {str(source)!r} (module {module.name!r})"
            raise PlanError(msg, hint=REPLAN)
        if _digest(data) != files[name]:
            msg = f"the plan's file {str(source)!r} does not match its digest in {PLAN_FILE}"
            raise PlanError(msg, hint=REPLAN)
        destination = copy_root / "mutants" / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(data)
    for path in module.paths:
        # Newer than the source, whatever the clocks of the two jobs said.
        source_time = (copy_root / path).stat().st_mtime
        stamp = max(source_time + 1.0, (copy_root / "mutants" / path).stat().st_mtime)
        os.utime(copy_root / "mutants" / path, (stamp, stamp))


def read_plan(plan_dir: Path) -> tuple[str, MutationPlan]:
    """(the plan's run_id, its data) from ``plan_dir/plan.json``, schema-checked."""
    path = plan_dir / PLAN_FILE
    if not path.is_file():
        msg = f"no mutation plan at {str(path)!r}"
        raise PlanError(
            msg, hint="run `lanes mutation plan --output DIR` first and pass --plan DIR"
        )
    try:
        envelope: dict[str, Any] = read_envelope(path)
    except LanesError as exc:
        raise PlanError(exc.message, hint=REPLAN) from None
    problems = validate_envelope(envelope)
    if problems:
        msg = f"{str(path)!r} is not a valid lane envelope: {problems[0]}"
        raise PlanError(msg, hint=REPLAN)
    data = envelope["data"]
    if envelope["lane"] != "mutation" or data.get("kind") != "plan":
        msg = f"{str(path)!r} is not a mutation plan (lane {envelope['lane']!r}, kind {data.get('kind')!r})"
        raise PlanError(msg, hint=REPLAN)
    if envelope["stage"] != "complete" or envelope["result"] != "pass":
        error = envelope.get("error") or {}
        msg = f"{str(path)!r} is the plan of a run that did not complete: {error.get('message', 'no verdict')}"
        raise PlanError(msg, hint=REPLAN)
    plan: MutationPlan = data
    return str(envelope["run_id"]), plan


def tree_differences(planned: Mapping[str, str], copied: Mapping[str, str]) -> str:
    """What differs between the plan's tree and this one, in a few words ('' when nothing)."""
    changed = sorted(
        name for name in planned.keys() & copied.keys() if planned[name] != copied[name]
    )
    added = sorted(copied.keys() - planned.keys())
    removed = sorted(planned.keys() - copied.keys())
    parts = []
    for what, names in (("changed", changed), ("not in the plan", added), ("missing", removed)):
        if names:
            shown = ", ".join(names[:_SHOWN]) + (
                f" (+{len(names) - _SHOWN} more)" if len(names) > _SHOWN else ""
            )
            parts.append(f"{len(names)} {what}: {shown}")
    return "; ".join(parts)
