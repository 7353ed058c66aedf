"""What the retry decision says: each blocker names the test, file or exit that stands in the way.

The user reads these lines in the lane's output to learn why a failed run was
not retried; an interrupted run (exit 2), an internal or usage error, a run
that collected nothing or a run without its record is never retried, whatever
it lists as timeouts.
"""

from __future__ import annotations

from typing import Any

import pytest

from lanes.retry.policy import Blocker, decide

LISTED = "tests/test_spawn.py"


def _failure(nodeid: str, *, timeout: bool, when: str = "call") -> dict[str, Any]:
    return {"nodeid": nodeid, "when": when, "file": nodeid.partition("::")[0], "timeout": timeout}


def _record(*failures: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"failures": list(failures), **extra}


def test_each_blocker_names_what_blocked_the_retry() -> None:
    record = _record(
        _failure(f"{LISTED}::test_a", timeout=False, when="setup"),
        _failure("tests/test_other.py::test_b", timeout=True),
        collection_errors=["tests/test_broken.py"],
        crashed_workers=["gw1: tests/test_c.py::test_c"],
        coverage_shortfall="total 71% < 80%",
    )
    decision = decide(1, record, [LISTED])
    assert decision.blockers == (
        (
            Blocker.NOT_A_TIMEOUT,
            f"{LISTED}::test_a (setup) failed without a pytest-timeout timeout",
        ),
        (
            Blocker.UNLISTED_TIMEOUT,
            "tests/test_other.py::test_b (call) timed out in tests/test_other.py, which is not listed",
        ),
        (Blocker.COLLECTION_ERROR, "tests/test_broken.py failed to collect"),
        (Blocker.WORKER_CRASHED, "xdist worker crashed: gw1: tests/test_c.py::test_c"),
        (Blocker.COVERAGE_SHORTFALL, "total 71% < 80%"),
    )
    assert decision.nodeids == (f"{LISTED}::test_a", "tests/test_other.py::test_b")
    assert (decision.retry, decision.because) == (False, "")


@pytest.mark.parametrize(
    ("exit_code", "detail"),
    [
        (2, "pytest exited 2 (2 = interrupted, 3 = internal error, 4 = usage error)"),
        (3, "pytest exited 3 (2 = interrupted, 3 = internal error, 4 = usage error)"),
        (4, "pytest exited 4 (2 = interrupted, 3 = internal error, 4 = usage error)"),
        (5, "pytest collected no tests (exit 5)"),
    ],
)
def test_a_session_that_did_not_end_normally_is_never_retried(exit_code: int, detail: str) -> None:
    # Even when every failure it lists is a listed timeout.
    record = _record(_failure(f"{LISTED}::test_a", timeout=True))
    decision = decide(exit_code, record, [LISTED])
    assert decision.blockers == ((Blocker.SESSION_ERROR, detail),)
    assert (decision.retry, decision.nodeids) == (False, (f"{LISTED}::test_a",))


def test_a_run_without_its_record_says_it_never_finished() -> None:
    decision = decide(1, None, [LISTED])
    assert decision.blockers == (
        (
            Blocker.SESSION_ERROR,
            (
                "pytest exited 1 without finishing its session (no attempt record): "
                "interrupted, crashed, or ended by pytest-timeout's thread method"
            ),
        ),
    )


def test_a_failed_exit_with_no_failed_test_is_unexplained() -> None:
    decision = decide(1, _record(), [LISTED])
    assert decision.blockers == (
        (
            Blocker.UNEXPLAINED_EXIT,
            (
                "pytest exited 1 with no failed test to explain it (a plugin failed the session: "
                "a slow-test budget, coverage, warnings as errors…)"
            ),
        ),
    )


def test_a_test_failing_twice_is_retried_once() -> None:
    # A timeout in the call and again in teardown: one test to re-run.
    record = _record(
        _failure(f"{LISTED}::test_a", timeout=True),
        _failure(f"{LISTED}::test_a", timeout=True, when="teardown"),
    )
    decision = decide(1, record, [LISTED])
    assert (decision.retry, decision.blockers) == (True, ())
    assert decision.nodeids == (f"{LISTED}::test_a",)
    assert decision.because == "every failure (1) is a pytest-timeout timeout in a listed file"


def test_a_passing_attempt_says_so() -> None:
    decision = decide(0, None, [LISTED])
    assert (decision.retry, decision.because) == (False, "the first attempt passed")
    assert (decision.nodeids, decision.blockers) == ((), ())
