"""Drive Hypothesis over one target, through the watchdog.

Each target becomes a ``@given`` test run programmatically, so cases come from
Hypothesis's real engine: failures are shrunk, the example database replays
past failures first, and ``--seed`` fixes the run. The test function sends each
input to the :class:`~lanes.fuzz.watchdog.Watchdog` and raises a
:class:`CaseFailure` when the outcome breaks the invariant; Hypothesis shrinks
that failure like any other.

Two details keep shrinking honest:
- every failing input's outcome is remembered, so Hypothesis's final replay of
  the shrunk example sees the same verdict even when a stall was borderline
  (no ``Flaky`` from a noisy machine);
- after :data:`STALL_SHRINK_LIMIT` stalls a target stops sending new inputs
  to the watchdog (they count as passing), because each shrink step of a hang
  costs a full budget; the smallest hang found so far is reported.
"""

from __future__ import annotations

import pickle
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import hypothesis
from hypothesis import HealthCheck, Verbosity, given, settings
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.errors import InvalidArgument, Unsatisfiable
from hypothesis.reporting import with_reporter
from hypothesis.strategies import SearchStrategy

from lanes.errors import ConfigError
from lanes.fuzz.targets import resolve
from lanes.fuzz.watchdog import CaseOutcome, Watchdog, load_target, run_case
from lanes.strategies.profiles import register_profiles

if TYPE_CHECKING:
    from collections.abc import Callable

    from lanes.fuzz.targets import Target

__all__ = [
    "DATABASE_DIR",
    "MAX_DISTINCT_FAILURES",
    "STALL_SHRINK_LIMIT",
    "CaseFailure",
    "Failure",
    "TargetReport",
    "fuzz_target",
    "load_strategy",
    "measure_in_process",
]

# The Hypothesis example database of the fuzz lane, one subdirectory per
# target, relative to the project root. CI restores and uploads this directory.
DATABASE_DIR: Final = Path(".hypothesis") / "fuzz"
STALL_SHRINK_LIMIT: Final = 6
# How many distinct failures (kind, error type) one target is searched for: one
# bug must not hide the next, and a target broken in every way must still end.
MAX_DISTINCT_FAILURES: Final = 5
_BLOB: Final = re.compile(r"@reproduce_failure\([^)]*\)")


class CaseFailure(AssertionError):  # noqa: N818  # a test failure signal, like AssertionError
    """Raised inside the ``@given`` test when a case breaks the invariant."""

    def __init__(self, target: str, value: object, outcome: CaseOutcome) -> None:
        super().__init__(f"fuzz target {target!r}: {outcome.summary()}")
        self.target = target
        self.value = value
        self.outcome = outcome


# Hypothesis tells bugs apart by exception type and raise site. One subclass
# per (kind, error type) lets a run report an untyped KeyError and a stall of
# the same target as two shrunk failures instead of one.
_FAILURE_TYPES: dict[tuple[str, str | None], type[CaseFailure]] = {}


def _failure_type(outcome: CaseOutcome) -> type[CaseFailure]:
    key = (outcome.kind, outcome.error_type)
    if key not in _FAILURE_TYPES:
        name = "".join(part.title() for part in outcome.kind.split("-"))
        _FAILURE_TYPES[key] = type(f"{name}Failure_{outcome.error_type or ''}", (CaseFailure,), {})
    return _FAILURE_TYPES[key]


@dataclass(frozen=True)
class Failure:
    """One shrunk counterexample and how it was found."""

    target: str
    value: object
    outcome: CaseOutcome
    seed: int | None
    iterations: int | None
    reproduce_failure: str | None = None


@dataclass
class TargetReport:
    """What fuzzing one target did."""

    name: str
    cases: int = 0
    duration_s: float = 0.0
    stalls: int = 0
    restarts: int = 0
    failures: list[Failure] = field(default_factory=list)
    watchdog_s: float = 0.0
    # The slowest case that finished: how much of the per-case budget is headroom.
    slowest_s: float = 0.0
    in_process_s: float | None = None
    shrink_cut_short: bool = False
    completed: list[object] = field(default_factory=list, repr=False)

    @property
    def cases_per_second(self) -> float:
        return self.cases / self.duration_s if self.duration_s > 0 else 0.0


def load_strategy(target: Target) -> SearchStrategy[Any]:
    """The target's strategy: a ``SearchStrategy``, or a function returning one."""
    key = f"{target.origin} strategy"
    obj = resolve(target.strategy, what="Hypothesis strategy", key=key)
    if callable(obj) and not isinstance(obj, SearchStrategy):
        try:
            obj = obj()
        except Exception as exc:  # noqa: BLE001  # user code: any failure is a config problem
            msg = f"{key} = {target.strategy!r}: calling it raised {type(exc).__name__}: {exc}"
            raise ConfigError(
                msg,
                hint="point strategy at a SearchStrategy or a function with no arguments returning one",
            ) from None
    if not isinstance(obj, SearchStrategy):
        msg = f"{key} = {target.strategy!r} is {obj!r:.80}, not a Hypothesis strategy"
        raise ConfigError(
            msg,
            hint="point strategy at a SearchStrategy or a function with no arguments returning one",
        )
    return obj


def _flatten(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _flatten(inner)]
    return [exc]


def _reproduce_blob(exc: BaseException) -> str | None:
    for note in getattr(exc, "__notes__", ()):
        found = _BLOB.search(note)
        if found:
            return found.group(0)
    return None


def fuzz_target(
    target: Target,
    watchdog: Watchdog,
    *,
    iterations: int,
    seed: int,
    database: Path | None,
    on_case: Callable[[], object] | None = None,
) -> TargetReport:
    """Run ``iterations`` generated cases of ``target``; shrink and return the failures.

    A search stops at its first failure, so one bug would hide the next: the
    target is searched again with the failures found so far taken as passing
    (told apart by kind and error type, as Hypothesis tells bugs apart), up
    to :data:`MAX_DISTINCT_FAILURES` of them. ``on_case`` is called after each
    case the watchdog ran (the lane's progress).
    """
    strategy = load_strategy(target)
    report = TargetReport(name=target.name)
    started = time.perf_counter()
    known: set[tuple[str, str | None]] = set()
    try:
        while len(known) < MAX_DISTINCT_FAILURES:
            found = _search(
                target,
                watchdog,
                strategy,
                report,
                known=frozenset(known),
                iterations=iterations,
                seed=seed,
                database=database,
                on_case=on_case,
            )
            new = [f for f in found if (f.outcome.kind, f.outcome.error_type) not in known]
            if not new:
                break
            report.failures.extend(new)
            known.update((f.outcome.kind, f.outcome.error_type) for f in new)
    finally:
        report.duration_s = time.perf_counter() - started
        report.restarts = watchdog.restarts
    return report


def _search(
    target: Target,
    watchdog: Watchdog,
    strategy: SearchStrategy[Any],
    report: TargetReport,
    *,
    known: frozenset[tuple[str, str | None]],
    iterations: int,
    seed: int,
    database: Path | None,
    on_case: Callable[[], object] | None,
) -> list[Failure]:
    """One Hypothesis search of ``target``: its shrunk failures not of a ``known`` kind."""
    failing: dict[bytes, CaseOutcome] = {}

    def case(value: Any) -> None:  # noqa: ANN401  # whatever the target's strategy draws
        try:
            key = pickle.dumps(value)
        except (pickle.PicklingError, TypeError, AttributeError):
            key = repr(value).encode()
        outcome = failing.get(key)
        if outcome is None:
            if report.stalls >= STALL_SHRINK_LIMIT:
                report.shrink_cut_short = True
                return
            outcome = watchdog.run(value)
            report.cases += 1
            if on_case is not None:
                on_case()
            if not outcome.failed:
                report.completed.append(value)
                report.watchdog_s += watchdog.last_roundtrip
                report.slowest_s = max(report.slowest_s, outcome.elapsed)
                return
            report.stalls += outcome.kind == "stall"
            failing[key] = outcome
        if (outcome.kind, outcome.error_type) in known:
            return  # found by an earlier search: look past it for the next bug
        raise _failure_type(outcome)(target.name, value, outcome)

    register_profiles()
    test_settings = settings(
        settings.get_profile("fuzz"),
        max_examples=iterations,
        database=None
        if database is None
        else DirectoryBasedExampleDatabase(database / target.name),
        derandomize=False,
        deadline=None,
        print_blob=True,
        verbosity=Verbosity.quiet,
        report_multiple_bugs=True,
        suppress_health_check=list(HealthCheck),
    )
    test = hypothesis.seed(seed)(test_settings(given(strategy)(case)))
    failures: list[Failure] = []
    try:
        with with_reporter(lambda _message: None):
            test()
    except (InvalidArgument, Unsatisfiable) as exc:
        # The target's strategy is unusable (a Flaky failure is not this: it
        # carries our CaseFailures and is sorted below like any other group).
        msg = f"{target.origin} strategy = {target.strategy!r}: Hypothesis refused it: {exc}"
        raise ConfigError(
            msg, hint="fix the strategy; run it with .example() to see the problem"
        ) from None
    except BaseException as exc:  # sorted below: findings vs harness faults
        leaves = _flatten(exc)
        strangers = [leaf for leaf in leaves if not isinstance(leaf, CaseFailure)]
        if strangers == [exc]:
            raise  # Ctrl-C, SIGTERM, a harness bug: not a finding
        if strangers:
            raise strangers[0] from exc
        blob = _reproduce_blob(exc)
        for leaf in leaves:
            assert isinstance(leaf, CaseFailure)  # noqa: S101  # filtered just above
            failures.append(
                Failure(
                    target=target.name,
                    value=leaf.value,
                    outcome=leaf.outcome,
                    seed=seed,
                    iterations=iterations,
                    reproduce_failure=_reproduce_blob(leaf) or blob,
                )
            )
    return failures


def measure_in_process(target: Target, report: TargetReport) -> None:
    """Time the same completed cases called in this process (the overhead baseline).

    Only cases that finished cleanly in the worker are replayed, so a case
    that hung or killed the worker cannot hang or kill the lane here.
    """
    func, error = load_target(target)
    total = 0.0
    for value in report.completed:
        started = time.perf_counter()
        run_case(func, error, target, value)
        total += time.perf_counter() - started
    report.in_process_s = total
