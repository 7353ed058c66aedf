"""The decision: may a failed attempt be retried once? A pure function.

Allowed only when the attempt failed and **every** failure is a
runner-proven timeout (see :mod:`lanes.retry.plugin`) in a listed file.
Every blocker found is reported, not just the first, so one run shows all
that stands between the suite and a retry.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

__all__ = ["Blocker", "Decision", "decide"]


class Blocker(StrEnum):
    NOT_A_TIMEOUT = "not-a-timeout"
    UNLISTED_TIMEOUT = "unlisted-timeout"
    COLLECTION_ERROR = "collection-error"
    SESSION_ERROR = "session-error"
    WORKER_CRASHED = "worker-crashed"
    COVERAGE_SHORTFALL = "coverage-shortfall"
    UNEXPLAINED_EXIT = "unexplained-exit"


@dataclass(frozen=True)
class Decision:
    retry: bool
    nodeids: tuple[str, ...]
    """The failed tests a retry re-runs."""
    blockers: tuple[tuple[Blocker, str], ...]
    because: str
    """Why the retry was allowed (or why none was needed); empty when blocked."""


def _session_error(exit_code: int, record: Mapping[str, Any] | None) -> str | None:
    if record is None:
        return (
            f"pytest exited {exit_code} without finishing its session (no attempt record): "
            "interrupted, crashed, or ended by pytest-timeout's thread method"
        )
    if exit_code in (2, 3, 4):  # interrupted, internal error, usage error
        return f"pytest exited {exit_code} (2 = interrupted, 3 = internal error, 4 = usage error)"
    if exit_code == 5:  # pytest's ExitCode.NO_TESTS_COLLECTED
        return "pytest collected no tests (exit 5)"
    return None


def decide(exit_code: int, record: Mapping[str, Any] | None, listed: Iterable[str]) -> Decision:
    """Judge one attempt: its process exit code, its record (None if never written), the listed files."""
    if exit_code == 0:
        return Decision(retry=False, nodeids=(), blockers=(), because="the first attempt passed")
    blockers: list[tuple[Blocker, str]] = []
    session = _session_error(exit_code, record)
    if session is not None:
        blockers.append((Blocker.SESSION_ERROR, session))
    record = record or {}
    files = set(listed)
    failed: list[str] = []
    for failure in record.get("failures", []):
        nodeid = str(failure.get("nodeid"))
        where = f"{nodeid} ({failure.get('when')})"
        if not failure.get("timeout"):
            blockers.append(
                (Blocker.NOT_A_TIMEOUT, f"{where} failed without a pytest-timeout timeout")
            )
        elif failure.get("file") not in files:
            blockers.append(
                (
                    Blocker.UNLISTED_TIMEOUT,
                    f"{where} timed out in {failure.get('file')}, which is not listed",
                )
            )
        if nodeid not in failed:
            failed.append(nodeid)
    blockers.extend(
        (Blocker.COLLECTION_ERROR, f"{n} failed to collect")
        for n in record.get("collection_errors", [])
    )
    blockers.extend(
        (Blocker.WORKER_CRASHED, f"xdist worker crashed: {w}")
        for w in record.get("crashed_workers", [])
    )
    shortfall = record.get("coverage_shortfall")
    if shortfall:
        blockers.append((Blocker.COVERAGE_SHORTFALL, str(shortfall)))
    if not blockers and not failed:
        blockers.append(
            (
                Blocker.UNEXPLAINED_EXIT,
                (
                    f"pytest exited {exit_code} with no failed test to explain it (a plugin failed the "
                    "session: a slow-test budget, coverage, warnings as errors…)"
                ),
            )
        )
    if blockers:
        return Decision(retry=False, nodeids=tuple(failed), blockers=tuple(blockers), because="")
    return Decision(
        retry=True,
        nodeids=tuple(failed),
        blockers=(),
        because=f"every failure ({len(failed)}) is a pytest-timeout timeout in a listed file",
    )
