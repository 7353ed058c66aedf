"""``lanes retry run`` (the ``retry`` lane) and ``lanes retry check``.

``run`` runs pytest with the recording plugin; when the attempt fails, the
policy (:func:`lanes.retry.policy.decide`) either refuses — naming every
blocker — or re-runs only the failed tests once, with the same arguments.
The retry is never silent: the terminal and ``envelopes/retry.json`` list
what was retried, why it was allowed and the first attempt's failures.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from lanes._measuring import measuring_environment
from lanes.config import Config, fingerprint, load_config
from lanes.exitcodes import ExitCode
from lanes.lane import drive
from lanes.retry.entries import entries_path, entry_problems, load_entries
from lanes.retry.policy import decide

if TYPE_CHECKING:
    import argparse

    from lanes.envelope import LaneRun, Seed
    from lanes.payloads.retry import RetryData, RetryFailure, RetryPolicy, RetrySelfCheck

__all__ = ["Attempt", "RetryLane", "attempt", "run_check", "run_policy", "run_retry"]


class Attempt(NamedTuple):
    """One pytest run: its exit status and its record (None when never written)."""

    exit: int
    record: dict[str, Any] | None  # the recording plugin's JSON, read back


def attempt(
    root: Path, pytest_args: list[str], *, only: list[str] | None = None, quiet: bool = False
) -> Attempt:
    """One pytest run under the recorder."""
    with tempfile.TemporaryDirectory(prefix="lanes-retry-") as tmp:
        record_path = Path(tmp) / "record.json"
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "lanes.retry.plugin",
            f"--retry-record={record_path}",
        ]
        if only is not None:
            only_path = Path(tmp) / "only.txt"
            only_path.write_text("".join(f"{n}\n" for n in only), encoding="utf-8")
            command.append(f"--retry-only={only_path}")
        sink = subprocess.DEVNULL if quiet else None
        code = subprocess.run(
            [*command, *pytest_args],
            cwd=root,
            stdout=sink,
            stderr=sink,
            check=False,
            env=measuring_environment(),
        ).returncode
        try:
            loaded = json.loads(record_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            loaded = None
    return Attempt(code, loaded if isinstance(loaded, dict) else None)


def _failures(result: Attempt) -> list[RetryFailure]:
    # The plugin wrote them as RetryFailure (lanes.retry.plugin).
    return [] if result.record is None else list(result.record.get("failures", []))


def run_policy(
    root: Path, pytest_args: list[str], listed: list[str], *, quiet: bool = False
) -> tuple[RetryPolicy, bool]:
    """The whole policy on one suite: first attempt, decision, maybe the one retry; and
    whether the suite passed (on the first attempt or on the retry)."""
    first = attempt(root, pytest_args, quiet=quiet)
    decision = decide(first.exit, first.record, listed)
    second = (
        attempt(root, pytest_args, only=list(decision.nodeids), quiet=quiet)
        if decision.retry
        else None
    )
    policy: RetryPolicy = {
        "pytest_args": pytest_args,
        "first": {
            "exit": first.exit,
            "recorded": first.record is not None,
            "failures": _failures(first),
        },
        "retried": list(decision.nodeids) if decision.retry else [],
        "because": decision.because,
        "blockers": [{"kind": kind.value, "detail": detail} for kind, detail in decision.blockers],
        "second": None if second is None else {"exit": second.exit, "failures": _failures(second)},
    }
    return policy, first.exit == 0 or (second is not None and second.exit == 0)


def _print(result: RetryPolicy) -> None:
    out = sys.stderr
    first = result["first"]
    if first["exit"] == 0:
        print("lanes retry: the first attempt passed; nothing to retry", file=out)
        return
    print(f"lanes retry: the first attempt failed (pytest exit {first['exit']}):", file=out)
    for failure in first["failures"]:
        kind = "timeout (pytest-timeout)" if failure["timeout"] else "failure"
        print(f"  {kind}: {failure['nodeid']} ({failure['when']})", file=out)
    second = result["second"]
    # A failed attempt is retried exactly when nothing blocks it (decide()).
    if second is None:
        print("lanes retry: retry REFUSED:", file=out)
        for blocker in result["blockers"]:
            print(f"  {blocker['kind']}: {blocker['detail']}", file=out)
        return
    verdict = "passed" if second["exit"] == 0 else f"failed too (exit {second['exit']})"
    print(
        f"lanes retry: RETRIED once {len(result['retried'])} test(s) ({result['because']}); "
        f"the retry {verdict}: " + ", ".join(result["retried"]),
        file=out,
    )


@dataclass(frozen=True)
class RetryOptions:
    pytest_args: tuple[str, ...]
    self_check: bool


class RetryLane:
    name: ClassVar[str] = "retry"

    def resolve(self, ns: argparse.Namespace, config: Config) -> RetryOptions:
        return RetryOptions(pytest_args=tuple(ns.pytest_args), self_check=bool(ns.self_check))

    def config_hash(self, options: RetryOptions, config: Config) -> str:
        path = entries_path(config.root, config.baseline_dir)
        try:
            text: str | None = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
        return fingerprint({"entries": text})

    def seed(self, options: RetryOptions) -> Seed:
        return None

    def run(self, options: RetryOptions, config: Config, run: LaneRun) -> None:
        path = entries_path(config.root, config.baseline_dir)
        entries = load_entries(path)
        self_check: RetrySelfCheck | None = None
        if options.self_check:
            from lanes.retry.selfcheck import run_self_check  # noqa: PLC0415  # only when asked

            self_check = run_self_check()
            if not self_check["passed"]:
                print(
                    f"retry self-check FAILED: {self_check['observed']} != {self_check['expected']}",
                    file=sys.stderr,
                )
        policy, passed = run_policy(
            config.root, list(options.pytest_args), [e.file for e in entries]
        )
        _print(policy)
        payload: RetryData = {
            **policy,
            "entries_file": str(path.relative_to(config.root)),
            "entries": len(entries),
            "self_check": self_check,
        }
        run.publish(payload)
        run.verdict(passed=passed and (self_check is None or bool(self_check["passed"])))


def run_retry(ns: argparse.Namespace) -> int:
    return drive(RetryLane(), ns, config=load_config())


def run_check(ns: argparse.Namespace) -> int:
    config = load_config(ns.config)
    path = entries_path(config.root, config.baseline_dir)
    entries = load_entries(path)
    today = dt.datetime.now(tz=dt.UTC).date()
    failed = 0
    for entry in entries:
        problems = entry_problems(config.root, entry, today)
        if problems:
            failed += 1
            print(f"FAIL {entry.file}: " + "; ".join(problems))
    rel = path.relative_to(config.root)
    if failed:
        print(
            f"lanes retry check FAILED: {failed} of {len(entries)} entries in {rel} "
            "(renew review_by after looking again, fix the reason/tracking, or drop the entry)"
        )
        return ExitCode.FAIL
    print(f"lanes retry check passed: {len(entries)} entries in {rel}")
    return ExitCode.OK
