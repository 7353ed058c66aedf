"""``lanes fuzz``: the modes of the fuzz lane and the envelope each one writes.

- run (default): every target (or ``--target``), ``iterations`` cases each;
- self-check: the broken-on-purpose targets of :mod:`lanes.fuzz.selfcheck`
  must each be caught (and the control must not);
- replay (``--input-file``): one saved case again, through the watchdog;
- promote (``--input-file --append-corpus``): replay, then pin the case in
  ``baselines/fuzz-regressions.json``.

Each mode writes its own envelope (lane ``fuzz``) on every exit path, so a
self-check or a replay never overwrites the verdict of the real run:
``fuzz.json``, ``fuzz-self-check.json``, ``fuzz-replay.json``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, TextIO

import hypothesis

from lanes.config import fingerprint
from lanes.envelope import lane_run
from lanes.errors import UsageError
from lanes.exitcodes import ExitCode
from lanes.fuzz import selfcheck
from lanes.fuzz._codec import canonical
from lanes.fuzz.artifacts import (
    CorpusEntry,
    append_to_corpus,
    load_artifact,
    load_corpus,
    preview,
    save_failure,
)
from lanes.fuzz.engine import (
    DATABASE_DIR,
    TargetReport,
    fuzz_target,
    load_strategy,
    measure_in_process,
)
from lanes.fuzz.targets import (
    BUILTIN_TARGETS,
    MalformedInputError,
    Target,
    check_input,
    is_lanekit_project,
    project_on_path,
    project_targets,
    registry_fingerprint,
    select_targets,
    targets_from_config,
)
from lanes.fuzz.watchdog import CaseOutcome, Watchdog, load_target
from lanes.progress import progress

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from lanes.config import Config
    from lanes.envelope import LaneRun
    from lanes.payloads.fuzz import FuzzData, FuzzOverhead, FuzzTarget
    from lanes.payloads.fuzz import FuzzMode as Mode

__all__ = [
    "CORPUS_FILE",
    "OVERHEAD_GOAL",
    "CorpusReplayer",
    "FuzzOptions",
    "MalformedEntryError",
    "corpus_path",
    "replay_corpus",
    "run_fuzz",
]

CORPUS_FILE: Final = "fuzz-regressions.json"
OVERHEAD_GOAL: Final = 0.20
_ENVELOPES: Final[dict[Mode, str]] = {
    "run": "fuzz.json",
    "self-check": "fuzz-self-check.json",
    "replay": "fuzz-replay.json",
    "promote": "fuzz-replay.json",
}


@dataclass(frozen=True)
class FuzzOptions:
    """The command line, validated."""

    iterations: int | None = None
    seed: int | None = None
    targets: tuple[str, ...] = ()
    input_file: Path | None = None
    append_corpus: bool = False
    self_check: bool = False
    # lanekit's built-in targets in a user's project (always on in lanekit's own).
    builtin: bool = False

    @property
    def mode(self) -> Mode:
        if self.self_check:
            return "self-check"
        if self.input_file is not None:
            return "promote" if self.append_corpus else "replay"
        return "run"

    def check(self) -> None:
        if self.append_corpus and self.input_file is None:
            msg = "--append-corpus needs --input-file: only a saved case can be promoted"
            raise UsageError(
                msg, hint="lanes fuzz --input-file envelopes/fuzz/<case>.json --append-corpus"
            )
        if self.self_check and (self.input_file is not None or self.targets or self.builtin):
            msg = "--self-check runs its own broken targets; it takes no --input-file, --target or --builtin"
            raise UsageError(msg, hint="run `lanes fuzz --self-check` on its own")
        if self.input_file is not None and (
            self.targets or self.iterations is not None or self.seed is not None or self.builtin
        ):
            msg = "--input-file replays one saved case; --target, --iterations, --seed and --builtin do not apply"
            raise UsageError(
                msg, hint="drop those options, or drop --input-file to generate new cases"
            )


def run_fuzz(options: FuzzOptions, config: Config, *, out: TextIO | None = None) -> ExitCode:
    """Run the mode ``options`` asks for; the exit code of ``lanes fuzz``."""
    options.check()
    with project_on_path(config.root):
        return _run_mode(options, config, sys.stdout if out is None else out)


def _run_mode(options: FuzzOptions, config: Config, stream: TextIO) -> ExitCode:
    mode = options.mode
    envelope = config.root / config.envelope_dir / _ENVELOPES[mode]
    if mode in ("replay", "promote"):
        assert options.input_file is not None  # noqa: S101  # mode says so
        return _replay(
            options.input_file,
            mode=mode,
            # A saved case may name any target, a built-in one too.
            registry=(*BUILTIN_TARGETS, *targets_from_config(config)),
            config=config,
            envelope=envelope,
            stream=stream,
        )
    if mode == "self-check":
        targets: tuple[Target, ...] = selfcheck.SELF_CHECK_TARGETS
        iterations, seed = selfcheck.SELF_CHECK_ITERATIONS, options.seed or 0
    else:
        # The project's own targets, unless asked for lanekit's too (--builtin,
        # or --target naming one of them).
        builtin_names = {target.name for target in BUILTIN_TARGETS}
        asked = options.builtin or bool(builtin_names & set(options.targets))
        targets = select_targets(project_targets(config, builtin=asked), options.targets)
        iterations = config.fuzz.iterations if options.iterations is None else options.iterations
        seed = config.fuzz.seed if options.seed is None else options.seed
    decided_by = registry_fingerprint(
        targets,
        {
            "iterations": iterations,
            "case_budget": config.fuzz.case_budget,
            "hypothesis": hypothesis.__version__,
        },
    )
    with lane_run(
        "fuzz", config=config, config_hash=fingerprint(decided_by), seed=seed, path=envelope
    ) as run:
        run.tools["hypothesis"] = hypothesis.__version__
        # Published now and after each part: a crash keeps what was done.
        data = _base_data(mode, config, iterations)
        run.publish(data)
        # Resolve every reference before the first case: a misspelt user
        # target is a configuration error, not a finding halfway through.
        for target in targets:
            load_target(target)
            load_strategy(target)
        reports = _generate(
            targets,
            mode=mode,
            config=config,
            iterations=iterations,
            seed=seed,
            data=data,
            run=run,
            stream=stream,
        )
        passed = _verdict(mode, reports, data)
        run.publish(data)
        run.verdict(passed=passed)
    _print_footer(mode, passed, stream, envelope)
    return ExitCode.OK if passed else ExitCode.FAIL


def _base_data(mode: Mode, config: Config, iterations: int | None) -> FuzzData:
    return {
        "mode": mode,
        "iterations": iterations,
        "case_budget_ms": round(config.fuzz.case_budget * 1000),
        "database": None if mode != "run" else str(DATABASE_DIR),
        "targets": [],
        "failures": [],
        "watchdog_overhead": None,
        "self_check": None,
        "replay": None,
        "corpus": None,
    }


def _generate(
    targets: Sequence[Target],
    *,
    mode: Mode,
    config: Config,
    iterations: int,
    seed: int,
    data: FuzzData,
    run: LaneRun,
    stream: TextIO,
) -> list[TargetReport]:
    artifacts = config.root / config.envelope_dir / "fuzz"
    if mode == "self-check":
        artifacts /= "self-check"
    # The self-check must not depend on what a database remembers.
    database = config.root / DATABASE_DIR if mode == "run" else None
    reports: list[TargetReport] = []
    # The overhead goal is lanekit's own engineering goal for its watchdog: a
    # user's report shows the figures, but a MISS about lanekit's design is
    # not the user's finding, so their payload carries no goal.
    goal = OVERHEAD_GOAL if is_lanekit_project(config) else None
    label = "fuzz self-check" if mode == "self-check" else "fuzz"
    with progress(label, total=len(targets) * iterations, unit="cases") as bar:
        for index, target in enumerate(targets):
            bar.item(target.name)
            with Watchdog(target, budget=config.fuzz.case_budget) as watchdog:
                # Started before fuzz_target's clock: start-up is nobody's case.
                watchdog.start()
                report = fuzz_target(
                    target,
                    watchdog,
                    iterations=iterations,
                    seed=seed,
                    database=database,
                    on_case=bar.advance,
                )
            # A target that ran out of distinct inputs (or failed early) ends
            # short of its iterations: its share of the total is done anyway.
            bar.set((index + 1) * iterations)
            measure_in_process(target, report)
            reports.append(report)
            _record_target(
                report,
                mode=mode,
                artifacts=artifacts,
                config=config,
                data=data,
                stream=stream,
                goal=goal,
            )
            run.publish(data)
    data["watchdog_overhead"] = _overhead(reports, goal)
    run.publish(data)
    return reports


def _record_target(
    report: TargetReport,
    *,
    mode: Mode,
    artifacts: Path,
    config: Config,
    data: FuzzData,
    stream: TextIO,
    goal: float | None,
) -> None:
    data["targets"].append(_target_data(report, goal))
    print(
        f"{report.name}: {report.cases} cases, {len(report.failures)} failures, "
        f"{report.cases_per_second:.0f} cases/s",
        file=stream,
    )
    for failure in report.failures:
        summary = save_failure(failure, artifacts, root=config.root)
        data["failures"].append(summary)
        print(f"  FAIL {summary['kind']}: {failure.outcome.summary()}", file=stream)
        print(f"    input:   {summary['input_preview']}", file=stream)
        print(f"    repro:   {summary['repro']}", file=stream)
        if mode != "self-check":  # broken on purpose: nothing to promote
            print(f"    promote: {summary['promote']}", file=stream)


def _ratio(numerator: float, denominator: float) -> float | None:
    return round(numerator / denominator, 4) if denominator > 0 else None


def _overhead(reports: Sequence[TargetReport], goal: float | None) -> FuzzOverhead:
    """The watchdog's cost against calling the same completed cases in-process.

    ``execution``: extra time per case call (pipe round trip vs a direct call);
    ``run``: the same extra time as a share of what the run would have taken
    in-process (generation and shrinking included) — the figure the goal is on.
    """
    watchdog = sum(r.watchdog_s for r in reports)
    direct = sum(r.in_process_s or 0.0 for r in reports)
    total = sum(r.duration_s for r in reports)
    return {
        "watchdog_ms": round(watchdog * 1000),
        "in_process_ms": round(direct * 1000),
        "execution": _ratio(watchdog - direct, direct),
        "run": _ratio(watchdog - direct, total - watchdog + direct),
        "goal": goal,
    }


def _target_data(report: TargetReport, goal: float | None) -> FuzzTarget:
    return {
        "name": report.name,
        "cases": report.cases,
        "failures": len(report.failures),
        "stalls": report.stalls,
        "worker_restarts": report.restarts,
        "duration_ms": round(report.duration_s * 1000),
        "cases_per_second": round(report.cases_per_second, 1),
        "shrink_cut_short": report.shrink_cut_short,
        "slowest_case_ms": round(report.slowest_s * 1000, 3),
        "overhead": _overhead([report], goal),
    }


def _verdict(mode: Mode, reports: Sequence[TargetReport], data: FuzzData) -> bool:
    if mode != "self-check":
        return not any(report.failures for report in reports)
    caught: dict[str, list[str]] = {
        report.name: sorted({f.outcome.kind for f in report.failures}) for report in reports
    }
    missed = [
        name
        for name, kind in selfcheck.EXPECTED.items()
        if (kind is None and caught.get(name))
        or (kind is not None and kind not in caught.get(name, []))
    ]
    data["self_check"] = {
        "expected": dict(selfcheck.EXPECTED),
        "caught": caught,
        "missed": missed,
    }
    return not missed


def _replay(
    input_file: Path,
    *,
    mode: Mode,
    registry: Sequence[Target],
    config: Config,
    envelope: Path,
    stream: TextIO,
) -> ExitCode:
    case = load_artifact(input_file)
    known = {target.name: target for target in (*registry, *selfcheck.SELF_CHECK_TARGETS)}
    target = known.get(case.target)
    if target is None:
        msg = f"{input_file}: target {case.target!r} is not a fuzz target here"
        raise UsageError(
            msg,
            hint=f"known targets: {', '.join(known)}; a user target must be in [tool.lanes.fuzz.targets]",
        )
    try:
        check_input(target, case.value)
    except MalformedInputError as exc:
        # A downloaded artifact is data: refused before a worker acts on it.
        msg = f"{input_file}: {exc.message}"
        raise UsageError(msg, hint=exc.hint) from None
    if mode == "promote" and target in selfcheck.SELF_CHECK_TARGETS:
        msg = f"target {case.target!r} is a self-check target, broken on purpose"
        raise UsageError(msg, hint="promote only cases of real parsers")
    # The input as decoded from the artifact (read once, strictly, above).
    decided_by = {"input": canonical(case.value), "target": target.describe()}
    with lane_run("fuzz", config=config, config_hash=fingerprint(decided_by), path=envelope) as run:
        run.tools["hypothesis"] = hypothesis.__version__
        # Published now and after each part: a crash keeps what was done.
        data = _base_data(mode, config, None)
        run.publish(data)
        with Watchdog(target, budget=config.fuzz.case_budget) as watchdog:
            watchdog.start()
            outcome = watchdog.run(case.value)
        print(f"{target.name}: input {preview(case.value)}", file=stream)
        print(f"  was: {case.kind or '?'}; now: {outcome.summary()}", file=stream)
        if outcome.detail and outcome.failed:
            print("  " + outcome.detail.rstrip().replace("\n", "\n  "), file=stream)
        data["targets"].append(
            {
                "name": target.name,
                "cases": 1,
                "failures": int(outcome.failed),
                "stalls": int(outcome.kind == "stall"),
                "worker_restarts": watchdog.restarts,
                "duration_ms": round(outcome.elapsed * 1000),
                "cases_per_second": None,
                "shrink_cut_short": False,
                "slowest_case_ms": round(outcome.elapsed * 1000, 3),
                "overhead": None,
            }
        )
        data["replay"] = {
            "artifact": str(input_file),
            "target": target.name,
            "was": case.kind,
            "now": outcome.kind,
            "error_type": outcome.error_type,
            "message": outcome.message,
            "reproduced": outcome.failed,
        }
        run.publish(data)
        if mode == "promote":
            corpus = corpus_path(config)
            note = f"{case.kind}: {case.error}"[:200] if case.error else case.kind
            added = append_to_corpus(corpus, case, note=note, root=config.root)
            data["corpus"] = {"path": str(corpus.relative_to(config.root)), "added": added}
            run.publish(data)
            print(f"  {'appended to' if added else 'already in'} {corpus}", file=stream)
            if outcome.failed:
                print(
                    "  it still fails: the unit suite will fail until the parser is fixed",
                    file=stream,
                )
        run.verdict(passed=not outcome.failed)
    _print_footer(mode, not outcome.failed, stream, envelope)
    return ExitCode.FAIL if outcome.failed else ExitCode.OK


def _print_footer(mode: Mode, passed: bool, stream: TextIO, envelope: Path) -> None:  # noqa: FBT001  # a verdict, read positionally
    verdicts = {
        "run": ("pass: no failures", "fail: see the repro and promote commands above"),
        "self-check": (
            "pass: every broken target was caught",
            "fail: the harness missed a broken target",
        ),
        "replay": ("pass: the case no longer fails", "fail: the case still fails"),
        "promote": ("pass: the case no longer fails", "fail: the case still fails"),
    }
    good, bad = verdicts[mode]
    print(f"fuzz {mode} {good if passed else bad} (envelope: {envelope})", file=stream)


def corpus_path(config: Config) -> Path:
    """``<baseline_dir>/fuzz-regressions.json`` of this project."""
    return config.root / config.baseline_dir / CORPUS_FILE


class MalformedEntryError(UsageError):
    """A corpus entry names no replayable target, or an input its target's strategy cannot generate."""


class CorpusReplayer:
    """Replays corpus entries through one watchdog per target, with the configured budget.

    What the unit suite uses (:func:`replay_corpus`, and the ``lanes.fuzz``
    pytest plugin one test per entry): a promoted hang comes back as a
    ``stall`` outcome after one budget, never as a wedged test session.
    Workers start with the project root on their path; :meth:`close` stops them.

    lanekit's built-in targets replay only in lanekit's own repository or when
    asked (``builtin``): a user's corpus is the user's parsers.
    Every entry's input is checked (:func:`check_input`) before a worker sees
    it; an entry that fails the check is a :class:`MalformedEntryError`.
    """

    def __init__(self, config: Config, *, builtin: bool = False) -> None:
        self.config = config
        self.builtin = builtin or is_lanekit_project(config)
        self.registry = {
            target.name: target
            for target in (*(BUILTIN_TARGETS if self.builtin else ()), *targets_from_config(config))
        }
        self._watchdogs: dict[str, Watchdog] = {}

    def __enter__(self) -> CorpusReplayer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def entries(self) -> list[CorpusEntry]:
        return load_corpus(corpus_path(self.config))

    def replay(self, entry: CorpusEntry) -> CaseOutcome:
        target = self.registry.get(entry.target)
        if target is None and entry.target in {t.name for t in BUILTIN_TARGETS}:
            msg = (
                f"fuzz corpus entry {entry.id} names {entry.target!r}, one of lanekit's "
                "built-in targets, which replay only in lanekit's own repository unless asked"
            )
            raise MalformedEntryError(
                msg,
                hint="remove the entry, or replay lanekit's targets on purpose: "
                "ini lanes_fuzz_builtin = true (pytest -o lanes_fuzz_builtin=true)",
            )
        if target is None:
            msg = (
                f"fuzz corpus entry {entry.id} names target {entry.target!r}, which does not exist"
            )
            raise MalformedEntryError(
                msg,
                hint=f"remove the entry or restore the target; targets: {', '.join(self.registry)}",
            )
        try:
            check_input(target, entry.value)
        except MalformedInputError as exc:
            msg = f"fuzz corpus entry {entry.id} (target {entry.target!r}): {exc.message}"
            raise MalformedEntryError(msg, hint=exc.hint) from None
        watchdog = self._watchdogs.get(target.name)
        if watchdog is None:
            watchdog = Watchdog(target, budget=self.config.fuzz.case_budget)
            self._watchdogs[target.name] = watchdog
        # A stalled case replaces the worker inside run(): the path must hold there too.
        with project_on_path(self.config.root):
            return watchdog.run(entry.value)

    def close(self) -> None:
        for watchdog in self._watchdogs.values():
            watchdog.close()
        self._watchdogs.clear()


def replay_corpus(config: Config) -> list[tuple[CorpusEntry, CaseOutcome]]:
    """Every corpus entry run again through the watchdog (see :class:`CorpusReplayer`)."""
    with CorpusReplayer(config) as replayer:
        return [(entry, replayer.replay(entry)) for entry in replayer.entries()]
