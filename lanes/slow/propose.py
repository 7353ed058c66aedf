"""``lanes slow propose``: tier budgets sized from a measured run of the suite.

``lanes init`` cannot know a suite's durations, so it writes a seed budget
(2.5 s a unit test). Left as it is, the seed protects nothing in a suite whose
slowest test takes 0.6 s: a test that grows from nothing to 2 s passes
silently. This command reads the ratchet's last whole-suite run (the ``slow``
envelope ``nox -s slow`` / ``lanes slow run`` writes), and proposes per tier

    budget = max(round_up(PROPOSE_HEADROOM x slowest test), PROPOSE_FLOOR)

— a multiple of the tier's slowest measured test with a floor well above
scheduler jitter, so the run measured sits at a third of its budget and a
loaded CI runner does not put it into the band. ``--write`` sets the budgets
in ``pyproject.toml`` (:mod:`lanes.slow.budget_text`).

Why a follow-up command and not ``lanes init`` running the suite: init only
writes files and finishes in a second; a suite can take minutes, need
services, or fail on a fresh checkout, and a measurement is only worth
writing from the run the ratchet itself makes (same tiers, same plugin, same
phases). Init's plan says to run ``nox -s slow`` and then this command.

What the tier's slowest test means here: pinned tests are left out (a pin has
its own ceiling), a test's own ``@pytest.mark.slow_budget`` is left out when
the run named it, and a test the ratchet re-timed counts at its slowest
re-timing, not its time in a loaded suite (:func:`lanes.slow.verdicts.held_seconds`).
A proposal that would loosen a budget is written only with ``--allow-loosen``:
a command that raises budgets to whatever the last run measured would wave
every regression through.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, NamedTuple

from lanes._atomic import write_atomic_under
from lanes._jsondoc import failing_with, load_object
from lanes._textdoc import read_text
from lanes.config import load_config
from lanes.errors import ConfigError, UsageError
from lanes.exitcodes import ExitCode, work_began
from lanes.slow.budget_text import budget_value, with_budgets
from lanes.slow.tier_figures import TIGHTEN_FLOOR, TIGHTEN_HEADROOM, round_up

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping
    from pathlib import Path

    from lanes.config import Config
    from lanes.slow.settings import SlowConfig

__all__ = [
    "PROPOSE_FLOOR",
    "PROPOSE_HEADROOM",
    "Proposal",
    "proposals",
    "proposed_budget",
    "run_propose",
]

PROPOSE_HEADROOM: Final = TIGHTEN_HEADROOM
"""3: the tier's slowest test sits at a third of its budget, so a runner three
times slower still leaves it within, and the band (budget to ``fail_factor`` x
budget) still catches a test that grows past three times the slowest the suite
had. The tighten advice of every run uses the same rule."""

PROPOSE_FLOOR: Final = TIGHTEN_FLOOR
"""Never below 0.25 s: a busy CI runner delays a trivial test by a tenth of a
second or more, and the tighten advice stops at the same floor."""


class Proposal(NamedTuple):
    """One configured tier: its budget now, what the run measured, what is proposed."""

    tier: str
    budget: float
    measured: int
    slowest: str | None
    seconds: float
    proposed: float | None
    """None when no test of the tier was measured (nothing to size it from)."""

    @property
    def loosens(self) -> bool:
        return self.proposed is not None and self.proposed > self.budget

    @property
    def changes(self) -> bool:
        return self.proposed is not None and self.proposed != self.budget


def proposed_budget(slowest: float) -> float:
    """The budget proposed for a tier whose slowest test took ``slowest`` seconds."""
    return max(round_up(slowest * PROPOSE_HEADROOM), PROPOSE_FLOOR)


def _entries(data: Mapping[str, object], key: str) -> list[dict[str, object]]:
    value = data.get(key)
    return [e for e in value if isinstance(e, dict)] if isinstance(value, list) else []


def _ms(entry: Mapping[str, object]) -> int | None:
    ms = entry.get("ms")
    return ms if isinstance(ms, int) and not isinstance(ms, bool) and ms >= 0 else None


def proposals(slow: SlowConfig, data: Mapping[str, object]) -> list[Proposal]:
    """A proposal per configured tier from a ``slow`` envelope's ``data``."""
    pinned = {e.get("nodeid") for e in _entries(data, "pins")}
    judged = [*_entries(data, "offenders"), *_entries(data, "unconfirmed"), *_entries(data, "band")]
    own_budget = {e.get("nodeid") for e in judged if e.get("own_budget") is True}
    held: dict[object, int] = {}
    for entry in judged:
        samples = entry.get("samples_ms")
        if isinstance(samples, list) and samples and all(isinstance(s, int) for s in samples):
            held[entry.get("nodeid")] = max(samples)
    slowest: dict[str, tuple[int, str]] = {}
    count: dict[str, int] = {}
    for entry in _entries(data, "tests"):
        nodeid, tier, ms = entry.get("nodeid"), entry.get("tier"), _ms(entry)
        if not isinstance(nodeid, str) or not isinstance(tier, str) or ms is None:
            continue
        if nodeid in pinned or nodeid in own_budget:
            continue
        ms = held.get(nodeid, ms)
        count[tier] = count.get(tier, 0) + 1
        # The slowest, and among equals the first in node-id order (the report's order).
        if tier not in slowest or (-ms, nodeid) < (-slowest[tier][0], slowest[tier][1]):
            slowest[tier] = (ms, nodeid)
    out: list[Proposal] = []
    for name, tier in slow.tiers.items():
        ms_nodeid = slowest.get(name)
        if ms_nodeid is None:
            out.append(Proposal(name, tier.budget, 0, None, 0.0, None))
            continue
        seconds = ms_nodeid[0] / 1000
        out.append(
            Proposal(
                name, tier.budget, count[name], ms_nodeid[1], seconds, proposed_budget(seconds)
            )
        )
    return out


def _measured_run(path: Path, *, named: bool) -> Mapping[str, object]:
    """The ``data`` of a complete, whole-suite ``slow`` envelope at ``path``
    (``named``: the user named it, so a link to it is followed)."""
    hint = (
        "run the whole suite under the ratchet first (nox -s slow, or lanes slow run), then propose"
    )
    document = load_object(
        path,
        what=f"slow envelope {str(path)!r}",
        fail=failing_with(UsageError, hint),
        follow_symlinks=named,
    )
    if document is None:
        msg = f"no measured run: {str(path)!r} does not exist"
        raise UsageError(msg, hint=hint)
    data = document.get("data")
    problem = None
    if document.get("lane") != "slow":
        problem = f"it is the envelope of lane {document.get('lane')!r}, not of the slow lane"
    elif document.get("stage") != "complete" or not isinstance(data, dict):
        problem = "its run did not complete (stage 'error')"
    elif data.get("partial") is not False:
        reasons = data.get("partial_reasons")
        shown = (
            "; ".join(r for r in reasons if isinstance(r, str)) if isinstance(reasons, list) else ""
        )
        problem = (
            f"it measured part of the suite ({shown or 'a partial run'}), and budgets "
            "sized on part of it would fail the rest"
        )
    if problem is not None or not isinstance(data, dict):
        msg = f"{str(path)!r} cannot size budgets: {problem}"
        raise UsageError(msg, hint=hint)
    return data


def _line(p: Proposal) -> str:
    if p.proposed is None:
        return f"  {p.tier:<12} budget {p.budget:g} s kept: no test of this tier was measured"
    verb = "kept" if not p.changes else ("loosen to" if p.loosens else "tighten to")
    return (
        f"  {p.tier:<12} budget {p.budget:g} s, {verb} {p.proposed:g} s: slowest of "
        f"{p.measured} tests {p.seconds:.3g} s ({p.slowest})"
    )


def _write(config: Config, budgets: Mapping[str, float]) -> str:
    source = config.source
    if source is None:
        msg = f"no pyproject.toml at or above {str(config.root)!r} to write the budgets to"
        raise UsageError(msg, hint="run lanes init first, or pass --config PATH")
    what = str(source)
    text = read_text(
        source,
        what=what,
        fail=failing_with(ConfigError, "make it a regular UTF-8 file"),
        follow_symlinks=True,
    )
    if text is None:
        msg = f"{what} does not exist"
        raise UsageError(msg, hint="pass --config with an existing pyproject.toml")
    new_text = with_budgets(text, budgets, what=what)
    with work_began():
        write_atomic_under(config.root, source, new_text)
    return what


def run_propose(ns: argparse.Namespace) -> int:
    config = load_config(ns.config)
    path = ns.envelope if ns.envelope is not None else config.envelope_path("slow")
    data = _measured_run(path, named=ns.envelope is not None)
    found = proposals(config.slow, data)
    shown = path.relative_to(config.root) if path.is_relative_to(config.root) else path
    print(
        f"lanes slow propose: from {shown} — {PROPOSE_HEADROOM:g} x each tier's slowest "
        f"test, rounded up, never below {PROPOSE_FLOOR:g} s (pinned tests left out)"
    )
    for proposal in found:
        print(_line(proposal))
    loosening = [p for p in found if p.loosens and not ns.allow_loosen]
    writes = {
        p.tier: p.proposed
        for p in found
        if p.proposed is not None and p.changes and (not p.loosens or ns.allow_loosen)
    }
    for p in loosening:
        print(
            f"  note: {p.tier!r} would loosen ({p.budget:g} -> {p.proposed:g} s) and is not "
            "written without --allow-loosen: pin the slow tests instead (lanes slow pin) "
            "or move them to a slower tier"
        )
    if not writes:
        print("nothing written" if loosening else "every budget already matches its proposal")
        return ExitCode.OK
    if not ns.write:
        print("to write them: lanes slow propose --write")
        return ExitCode.OK
    where = _write(config, writes)
    for tier, seconds in writes.items():
        print(f"wrote {where}: [tool.lanes.slow.tiers.{tier}] budget = {budget_value(seconds)}")
    return ExitCode.OK
