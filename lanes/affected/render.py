"""The plan and the dependents view as text bounded for an agent's context.

``--json`` is the complete answer; the text form shows at most ``limit``
entries per group and always says what it left out, so an agent never
mistakes a truncated list for the whole.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from lanes.affected.dependents import Dependents
    from lanes.affected.plan import Plan, Reason

__all__ = ["render_dependents", "render_plan"]


def _bounded(lines: Iterable[str], limit: int, what: str) -> Iterator[str]:
    items = list(lines)
    yield from items[:limit]
    if len(items) > limit:
        yield f"  … and {len(items) - limit} more {what} (--limit N or --json shows them)"


def render_plan(plan: Plan, *, limit: int) -> str:
    shown = (
        plan.base
        if plan.base_commit in (None, plan.base)
        else f"{plan.base} ({plan.base_commit[:12]})"
    )
    out: list[str] = [f"base: {shown}"]
    if plan.map_state:
        out.append(f"map: {plan.map_state}")
    if plan.planned_by:
        out.append(f"planned by {plan.planned_by}")
    if not plan.selections:
        out.append("no changes: nothing to run")
        return "\n".join(out)
    out.append(f"changed ({len(plan.selections)}):")
    out.extend(
        _bounded(
            (
                f"  {s.path} [{s.change}] -> {s.rule}: {s.detail}"
                + (f" ({s.selected} test files)" if s.selected else "")
                for s in plan.selections
            ),
            limit,
            "changed paths",
        )
    )
    if plan.full:
        out.append("FULL SET: every suite and gate runs, because:")
        out.extend(
            _bounded((f"  {r.changed}: {r.detail}" for r in plan.full_reasons), limit, "reasons")
        )
    else:
        share = f"{len(plan.tests)}/{plan.total_tests} test files"
        if plan.nodes:
            ids = sum(len(nodes) for nodes in plan.nodes.values())
            share += f"; {len(plan.nodes)} of them narrowed by the map to {ids} tests"
        out.append(f"tests ({share}):")
        out.extend(_bounded(_test_lines(plan), limit, "selected tests"))
        if not plan.tests:
            # With a map, "none" means no recorded test executed the change.
            out.append(
                "  none: no recorded test executed what changed, and no static rule adds one"
                if plan.map_state.startswith("using ")
                else "  none: no test depends on what changed"
            )
    if plan.gates:
        out.append("gates:")
        for gate, reasons in plan.gates.values():
            out.append(f"  {gate.name}: {gate.command}  <- {reasons[0].changed}")
    if plan.suites:
        out.append("run:")
        out.extend(
            _bounded(
                (f"  [{run.name}] {shlex.join(run.command)}" for run in plan.suites),
                limit,
                "commands",
            )
        )
    if plan.blind_spots:
        out.append("not seen by the import graph (check these by hand):")
        out.extend(
            _bounded(
                (f"  {b['file']}:{b['line']}: {b['what']}" for b in plan.blind_spots),
                limit,
                "blind spots",
            )
        )
    return "\n".join(out)


def _why(reasons: list[Reason]) -> str:
    first = reasons[0]
    more = f" (+{len(reasons) - 1} more)" if len(reasons) > 1 else ""
    detail = f" ({first.detail})" if first.detail else ""
    return f"{first.rule}: {first.changed}{detail}{more}"


def _test_lines(plan: Plan) -> Iterator[str]:
    """One line per selected test: a narrowed file's tests by id, any other file whole."""
    for test, reasons in sorted(plan.tests.items()):
        if test in plan.nodes:
            for node, why in sorted(plan.nodes[test].items()):
                yield f"  {node}  <- {_why(why)}"
        else:
            yield f"  {test}  <- {_why(reasons)}"


def render_dependents(view: Dependents, *, limit: int) -> str:
    out = [
        (
            f"{view.module} ({view.path}): {len(view.direct)} direct and "
            f"{len(view.transitive)} transitive dependents"
        )
    ]
    out.append("dependents (widest first):")
    out.extend(
        _bounded(
            (
                f"  {d['path']}  {_distance(int(d['distance']))}, {d['reach']} files depend on it"
                for d in view.ranked
            ),
            limit,
            "dependents",
        )
    )
    out.append(f"tests a change would select ({len(view.tests)}):")
    out.extend(_bounded((f"  {t}" for t in view.tests), limit, "test files"))
    if view.map_state:
        out.append(f"map: {view.map_state}")
    if view.executed:
        files = {test.split("::", 1)[0] for test in view.executed}
        out.append(
            f"tests that executed its functions when the map was recorded ({len(view.executed)} "
            f"tests in {len(files)} files; a change inside a function selects those that ran it):"
        )
        out.extend(
            _bounded(
                (
                    f"  {test}  <- {', '.join(names)}"
                    for test, names in sorted(view.executed.items())
                ),
                limit,
                "tests",
            )
        )
    if view.mutation_modules:
        out.append("mutation registry: " + ", ".join(view.mutation_modules))
    return "\n".join(out)


def _distance(hops: int) -> str:
    return "direct" if hops == 1 else f"{hops} hops"
