"""Render a :class:`~lanes.slow.verdicts.Judgement`: terminal lines and the envelope payload.

Both views are built from the same judgement, so the terminal can never say
something the envelope does not (and the envelope, not the terminal, is what
CI keeps).

:mod:`shlex` is imported where a command line is quoted: only runs with
offenders, band tests or removable pins print one, and every enabled test run
imports this module (the bench lane holds the plugin to 2% of a suite's
instructions).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal, cast

from lanes.slow.verdicts import (
    Judged,
    Judgement,
    PinState,
    held_seconds,
    suggested_ceiling,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from lanes.payloads.slow import (
        SlowFixtureScope,
        SlowJudged,
        SlowPinState,
        SlowRatchet,
        SlowRetimed,
        SlowSlowest,
    )
    from lanes.slow.settings import SlowConfig

__all__ = [
    "PHASES",
    "FixtureCost",
    "Line",
    "envelope_data",
    "failure_message",
    "terminal_lines",
]

PHASES: Final = "call+function-fixtures"
"""What a test's measured time covers (see docs/how-to/slow.md, "Which phases count")."""

FIXTURES_SHOWN: Final = 5
FIXTURE_NOISE_FLOOR: Final = 0.01

Style = Literal["fail", "warn", "plain", "good"]


# Line and FixtureCost are plain slotted classes, not dataclasses: this module
# is on the enabled plugin's import path, where creating a dataclass costs some
# 4 M instructions (the bench lane holds the plugin to 2% of a suite's).


class Line:
    """One line of the terminal section, with its colour."""

    __slots__ = ("style", "text")

    def __init__(self, text: str, style: Style = "plain") -> None:
        self.text = text
        self.style = style


class FixtureCost:
    """Setup cost of a fixture wider than function scope: not charged to any test,
    because it lands in whichever test happens to run first (which differs
    between ``-n 0`` and ``-n 2``), so it is reported here instead."""

    __slots__ = ("count", "first", "max", "name", "scope", "total")

    def __init__(
        self, *, name: str, scope: str, count: int, total: float, max: float, first: str
    ) -> None:
        self.name = name
        self.scope = scope
        self.count = count
        self.total = total
        self.max = max
        self.first = first


def _s(seconds: float) -> str:
    return f"{seconds:.3g} s" if seconds < 100 else f"{seconds:.0f} s"


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _tier_moves(slow: SlowConfig, judged: Judged) -> list[str]:
    """Ways to move a test into a tier whose budget would hold it."""
    moves: list[str] = []
    for tier in slow.tiers.values():
        if tier.name == judged.measurement.tier or tier.budget * slow.fail_factor < judged.seconds:
            continue
        if tier.markers:
            moves.append(f"@pytest.mark.{tier.markers[0]} (tier {tier.name!r}, {_s(tier.budget)})")
        elif tier.paths:
            moves.append(f"a file under {tier.paths[0]} (tier {tier.name!r}, {_s(tier.budget)})")
    return moves


def failure_message(slow: SlowConfig, judged: Judged) -> list[str]:
    """What failed, by how much, and the three ways to fix it."""
    m = judged.measurement
    ceiling = suggested_ceiling(held_seconds(judged))
    if judged.pin is not None:
        head = (
            f"{m.nodeid} took {_s(judged.seconds)}: past {slow.fail_factor:g} × its pin ceiling "
            f"{_s(judged.allowance)} (limit {_s(judged.limit)}; pinned for {judged.pin.reason!r}, "
            f"tracked in {judged.pin.tracking!r})"
        )
        fix = [
            "fix: speed it up (see the tracking reference), or raise its ceiling with a reason:",
            _pin_command(judged, ceiling),
        ]
        return [head, *fix]
    head = (
        f"{m.nodeid} took {_s(judged.seconds)}: past {slow.fail_factor:g} × the "
        f"{m.tier!r} tier budget {_s(judged.budget)} (limit {_s(judged.limit)})"
    )
    moves = _tier_moves(slow, judged)
    fix = [
        (
            "fix: speed it up (a test that waits real time: poll at a budget-derived cadence "
            "or inject a clock)"
        )
    ]
    if moves:
        fix.append("  or move it to a slower tier: " + "; ".join(moves))
    else:
        fix.append(
            "  or move it to a slower tier: add [tool.lanes.slow.tiers.<name>] with a budget "
            'and markers = ["<marker>"], and mark the test'
        )
    fix.append("  or pin it with a reason:")
    fix.append(_pin_command(judged, ceiling))
    return [head, *fix]


def _pin_command(judged: Judged, ceiling: float) -> str:
    """The ``lanes slow pin`` line for ``judged``: its pin's reason and tracking
    when it has one, placeholders the user must replace otherwise."""
    from shlex import quote  # noqa: PLC0415  # offenders and band tests only: see the module docstring

    if judged.pin is not None:
        reason, tracking = quote(judged.pin.reason), quote(judged.pin.tracking)
    else:
        reason, tracking = "'<why it is slow>'", "'<issue>'"
    return (
        f"  lanes slow pin {quote(judged.nodeid)} --reason {reason} --tracking {tracking} "
        f"--ceiling {ceiling:g}"
    )


NEAR_LIMIT = 0.75
"""A re-timing at three quarters of the limit or more is *near* it: a test
whose own duration moves by a third from run to run (property tests drawing
new examples do) will cross it. On attrs, tests re-timed at 0.15-0.19 s
against a 0.2 s limit failed in later runs; one re-timed at 0.1 s never did."""


def _unconfirmed_message(judged: Judged) -> list[str]:
    """What an offender's re-timings said, when they did not all stay past its limit.

    Re-timings past the limit, or near it (:data:`NEAR_LIMIT`), mean the
    test's own duration sits at the limit: its verdict will flip from run to
    run, so the fix is a failure's. Re-timings well under it mean the suite's
    load made the test look slow.
    """
    head = (
        f"unconfirmed {judged.nodeid} took {_s(judged.seconds)} (limit {_s(judged.limit)}), "
        f"then {_samples(judged.samples)} when re-timed alone"
    )
    slowest = max(judged.samples, default=0.0)
    past = sum(sample > judged.limit for sample in judged.samples)
    if past:
        why = f"past the limit in {past} of {len(judged.samples)} re-timings"
    elif slowest >= NEAR_LIMIT * judged.limit:
        why = f"re-timed at {slowest / judged.limit:.0%} of the limit"
    elif slowest > judged.allowance:
        return [f"{head}: within the band when re-timed alone, not failed"]
    else:
        return [f"{head}: noise (the suite's load), not failed"]
    return [
        f"{head}: {why} — {_near_limit_advice(judged)}",
        _pin_command(judged, suggested_ceiling(held_seconds(judged))),
    ]


def _near_limit_advice(judged: Judged) -> str:
    fix = "raise its ceiling:" if judged.pin else "pin it or move it to a slower tier:"
    return (
        "its own duration sits near the limit, so its verdict will flip between runs; "
        f"not failed, but {fix}"
    )


def terminal_lines(
    slow: SlowConfig,
    judgement: Judgement,
    fixtures: Iterable[FixtureCost] = (),
    *,
    partial: Sequence[str] = (),
) -> list[Line]:
    """The ``slow-test ratchet`` terminal summary section."""
    lines: list[Line] = []
    for judged in judgement.failures:
        head, *rest = failure_message(slow, judged)
        lines.append(Line(f"FAIL {head}", "fail"))
        if judged.samples:
            lines.append(
                Line(f"     confirmed: re-timed at {_samples(judged.samples)}, all past the limit")
            )
        lines.extend(Line(f"     {text}") for text in rest)
    for judged in judgement.unconfirmed:
        head, *rest = _unconfirmed_message(judged)
        lines.append(Line(head, "warn"))
        lines.extend(Line(f"     {text.strip()}") for text in rest)
    for judged in judgement.band:
        over = (
            "its pin ceiling"
            if judged.pin is not None
            else f"the {judged.measurement.tier!r} budget"
        )
        text = (
            f"band {judged.nodeid} took {_s(judged.seconds)}: over {over} "
            f"{_s(judged.allowance)}; fails past {_s(judged.limit)}"
        )
        if judged.seconds < NEAR_LIMIT * judged.limit:
            lines.append(Line(text, "warn"))
            continue
        # Near the limit: the next run's draw decides (attrs: a band test at
        # 97% of its limit failed in a later run), so the advice comes now.
        lines.append(Line(f"{text} — {_near_limit_advice(judged)}", "warn"))
        lines.append(
            Line(f"     {_pin_command(judged, suggested_ceiling(judged.seconds)).strip()}")
        )
    lines.extend(_removable_lines(judgement))
    lines.extend(
        Line(
            f"pin within budget: {report.pin.nodeid} took {_s(report.seconds)} "
            f"({report.streak} of {slow.removable_after} runs in a row needed to call it removable)"
        )
        for report in judgement.pins
        if report.state is PinState.WITHIN_BUDGET and report.seconds is not None
    )
    slowest = judgement.slowest(slow.slowest)
    if slowest:
        lines.append(Line(f"slowest {len(slowest)} (call + function-scoped fixture setup):"))
        lines.extend(_slowest_line(judged) for judged in slowest)
    if slow.slowest_per_tier and len(slow.tiers) > 1:
        for tier in slow.tiers.values():
            in_tier = judgement.slowest(slow.slowest_per_tier, tier.name)
            if in_tier:
                lines.append(Line(f"slowest in tier {tier.name!r} (budget {_s(tier.budget)}):"))
                lines.extend(_slowest_line(judged) for judged in in_tier)
    shown = [f for f in sorted(fixtures, key=lambda f: -f.total) if f.max >= FIXTURE_NOISE_FLOOR]
    if shown:
        lines.append(Line("shared fixture setup (scope wider than function; charged to no test):"))
        lines.extend(
            Line(
                f"  {fixture.total:8.3f} s  {fixture.scope:<12} {fixture.name} "
                f"({fixture.count}×, slowest {_s(fixture.max)}, first for {fixture.first})"
            )
            for fixture in shown[:FIXTURES_SHOWN]
        )
    lines.extend(Line(f"tighten: {hint.message()}") for hint in judgement.tighten)
    removable = sum(1 for p in judgement.pins if p.state is PinState.REMOVABLE)
    summary = (
        f"{judgement.count} tests judged, {len(judgement.failures)} past their limit, "
        f"{len(judgement.band)} in the band, {len(judgement.pins)} pinned ({removable} removable)"
    )
    if judgement.unconfirmed:
        summary += f", {len(judgement.unconfirmed)} unconfirmed"
    if partial:
        summary += f" — PARTIAL run ({'; '.join(partial)}): only the selected tests were judged"
    if judgement.passed:
        lines.append(Line(f"slow-test ratchet passed: {summary}", "good"))
    else:
        lines.append(Line(f"slow-test ratchet FAILED: {summary}", "fail"))
    return lines


def _removable_lines(judgement: Judgement) -> list[Line]:
    removable = [
        (report, seconds)
        for report in judgement.pins
        if report.state is PinState.REMOVABLE and (seconds := report.seconds) is not None
    ]
    if not removable:
        return []
    from shlex import quote  # noqa: PLC0415  # see the module docstring

    return [
        Line(
            f"pin removable: {report.pin.nodeid} took {_s(seconds)}, within its "
            f"tier budget {_s(report.budget)} for {report.streak} runs in a row: "
            f"lanes slow unpin {quote(report.pin.nodeid)}",
            "good",
        )
        for report, seconds in removable
    ]


def _samples(samples: Iterable[float]) -> str:
    return ", ".join(_s(s) for s in samples) or "nothing (the test did not run again)"


def _slowest_line(judged: Judged) -> Line:
    m = judged.measurement
    split = f" (fixtures {_s(m.fixtures)})" if m.fixtures >= FIXTURE_NOISE_FLOOR else ""
    return Line(f"  {judged.seconds:8.3f} s  {m.tier:<12} {m.nodeid}{split}")


def _judged_dict(judged: Judged) -> SlowJudged:
    return {
        "nodeid": judged.nodeid,
        "tier": judged.measurement.tier,
        "ms": _ms(judged.seconds),
        "budget_ms": _ms(judged.budget),
        "limit_ms": _ms(judged.limit),
        "pinned": judged.pin is not None,
        "own_budget": judged.measurement.budget is not None,
        "attempts": judged.measurement.attempts,
        "samples_ms": [_ms(s) for s in judged.samples],
    }


def _slowest_dict(judged: Judged) -> SlowSlowest:
    return {
        "nodeid": judged.nodeid,
        "tier": judged.measurement.tier,
        "ms": _ms(judged.seconds),
        "call_ms": _ms(judged.measurement.call),
        "fixtures_ms": _ms(judged.measurement.fixtures),
    }


def envelope_data(
    slow: SlowConfig,
    judgement: Judgement,
    *,
    pins_file: str,
    fixtures: Iterable[FixtureCost] = (),
    workers: int = 0,
    outcomes: Mapping[str, int] | None = None,
    pytest_args: Sequence[str] = (),
    partial: Sequence[str] = (),
    retimed: SlowRetimed | None = None,
) -> SlowRatchet:
    """The ratchet's part of the ``slow`` lane's payload (:class:`lanes.payloads.slow.SlowRatchet`)."""
    return {
        "verdict": "pass" if judgement.passed else "fail",
        "partial": bool(partial),
        "partial_reasons": list(partial),
        # Without lanekit's own plumbing: --slow-json names a temporary file
        # of this machine, which the report would show to every reader.
        "pytest_args": [arg for arg in pytest_args if not arg.startswith("--slow-json=")],
        "confirm": slow.confirm,
        "retimed": retimed,
        "removable_after": slow.removable_after,
        "phases": PHASES,
        "fail_factor": slow.fail_factor,
        "pins_file": pins_file,
        "workers": workers,
        "outcomes": dict(outcomes or {}),
        "counts": {
            "judged": judgement.count,
            "ok": judgement.ok,
            "band": len(judgement.band),
            "fail": len(judgement.failures),
        },
        "tiers": [
            {
                "name": t.name,
                "budget_ms": _ms(t.budget),
                "count": t.count,
                "total_ms": _ms(t.total),
                "p50_ms": _ms(t.p50),
                "p90_ms": _ms(t.p90),
                "max_ms": _ms(t.max),
                "slowest": t.slowest,
                "slowest_tests": [
                    _slowest_dict(j) for j in judgement.slowest(slow.slowest_per_tier, t.name)
                ],
            }
            for t in judgement.tiers
        ],
        "offenders": [_judged_dict(j) for j in judgement.failures],
        "unconfirmed": [_judged_dict(j) for j in judgement.unconfirmed],
        "band": [_judged_dict(j) for j in judgement.band],
        "pins": [
            {
                "nodeid": report.pin.nodeid,
                "tier": report.pin.tier,
                "ceiling_ms": _ms(report.pin.ceiling),
                "reason": report.pin.reason,
                "tracking": report.pin.tracking,
                "added": report.pin.added,
                # PinState's values are SlowPinState's (tests/payloads/test_slow_payload.py).
                "state": cast("SlowPinState", str(report.state)),
                "ms": None if report.seconds is None else _ms(report.seconds),
                "history_ms": list(report.history_ms),
                "streak": report.streak,
            }
            for report in judgement.pins
        ],
        "tighten": [
            {
                "tier": hint.tier,
                "budget_ms": _ms(hint.budget),
                "slowest_ms": _ms(hint.slowest),
                "suggested_budget_ms": _ms(hint.suggestion),
                "message": hint.message(),
            }
            for hint in judgement.tighten
        ],
        "slowest": [_slowest_dict(j) for j in judgement.slowest(slow.slowest)],
        "fixtures": [
            {
                "name": f.name,
                # The stopwatch records only pytest's scopes wider than function.
                "scope": cast("SlowFixtureScope", f.scope),
                "count": f.count,
                "total_ms": _ms(f.total),
                "max_ms": _ms(f.max),
                "first": f.first,
            }
            for f in sorted(fixtures, key=lambda f: (-f.total, f.name))
        ],
        "tests": [
            {"nodeid": nodeid, "tier": tier, "ms": _ms(seconds)}
            for nodeid, tier, seconds in judgement.tests()
        ],
    }
