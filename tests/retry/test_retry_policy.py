"""The contention-retry policy: the pure decision, the list's check, and the planted self-check."""

from __future__ import annotations

import datetime as dt
import json
import typing
from typing import TYPE_CHECKING, Any

import pytest

from lanes.cli import main
from lanes.envelope import payload_problems
from lanes.payloads.retry import RetryBlockerKind
from lanes.retry.entries import ENTRIES_FORMAT
from lanes.retry.policy import Blocker, decide

if TYPE_CHECKING:
    from pathlib import Path

LISTED = "tests/test_spawn.py"


def _failure(nodeid: str, *, timeout: bool, when: str = "call") -> dict[str, Any]:
    return {"nodeid": nodeid, "when": when, "file": nodeid.partition("::")[0], "timeout": timeout}


def _record(*failures: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "exit": 1,
        "failures": list(failures),
        "collection_errors": [],
        "crashed_workers": [],
        "coverage_shortfall": None,
        **extra,
    }


def test_listed_timeouts_only_are_retried_once() -> None:
    record = _record(
        _failure(f"{LISTED}::test_a", timeout=True), _failure(f"{LISTED}::test_b", timeout=True)
    )
    decision = decide(1, record, [LISTED])
    assert decision.retry
    assert decision.nodeids == (f"{LISTED}::test_a", f"{LISTED}::test_b")
    assert decision.because == "every failure (2) is a pytest-timeout timeout in a listed file"


def test_a_passing_attempt_needs_no_retry() -> None:
    decision = decide(0, _record(), [LISTED])
    assert not decision.retry
    assert decision.blockers == ()


@pytest.mark.parametrize(
    ("exit_code", "record", "blocker"),
    [
        (1, _record(_failure(f"{LISTED}::t", timeout=False)), Blocker.NOT_A_TIMEOUT),
        (1, _record(_failure("tests/test_other.py::t", timeout=True)), Blocker.UNLISTED_TIMEOUT),
        (2, _record(collection_errors=["tests/test_broken.py"]), Blocker.COLLECTION_ERROR),
        (1, None, Blocker.SESSION_ERROR),
        (3, _record(), Blocker.SESSION_ERROR),
        (
            1,
            _record(_failure(f"{LISTED}::t", timeout=True), crashed_workers=["gw0: t"]),
            Blocker.WORKER_CRASHED,
        ),
        (1, _record(coverage_shortfall="total 71% < 80%"), Blocker.COVERAGE_SHORTFALL),
        (1, _record(), Blocker.UNEXPLAINED_EXIT),
    ],
)
def test_every_blocker_refuses_the_retry(
    exit_code: int, record: dict[str, Any] | None, blocker: Blocker
) -> None:
    decision = decide(exit_code, record, [LISTED])
    assert not decision.retry
    assert blocker in {kind for kind, _detail in decision.blockers}
    assert all(detail for _kind, detail in decision.blockers)


def test_an_interrupted_run_is_never_retried_even_if_its_failures_are_listed_timeouts() -> None:
    # Ctrl-C (or a signal) ends pytest with exit 2 after a listed timeout was
    # recorded: the run did not finish, so the tests it never reached were
    # never judged, and re-running the timeout alone would pass a half-run suite.
    record = _record(_failure(f"{LISTED}::test_a", timeout=True), exit=2)
    decision = decide(2, record, [LISTED])
    assert not decision.retry
    assert [kind for kind, _ in decision.blockers] == [Blocker.SESSION_ERROR]
    assert "2 = interrupted" in decision.blockers[0][1]


def test_one_non_timeout_among_listed_timeouts_blocks_them_all() -> None:
    record = _record(
        _failure(f"{LISTED}::a", timeout=True), _failure(f"{LISTED}::b", timeout=False)
    )
    decision = decide(1, record, [LISTED])
    assert not decision.retry
    assert [kind for kind, _ in decision.blockers] == [Blocker.NOT_A_TIMEOUT]


def _write_entries(root: Path, *entries: dict[str, str]) -> None:
    (root / "baselines").mkdir(exist_ok=True)
    document = {"format": ENTRIES_FORMAT, "version": 1, "entries": list(entries)}
    (root / "baselines" / "contention-retry.json").write_text(json.dumps(document))


def _entry(**fields: str) -> dict[str, str]:
    future = (dt.datetime.now(tz=dt.UTC).date() + dt.timedelta(days=30)).isoformat()
    return {
        "file": LISTED,
        "reason": "waits on a spawned server",
        "tracking": "#12",
        "review_by": future,
        **fields,
    }


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    tmp_path.joinpath("pyproject.toml").write_text("[tool.lanes]\n")
    tmp_path.joinpath("tests").mkdir()
    tmp_path.joinpath(LISTED).write_text("def test_a(): pass\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_check_passes_a_good_list(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write_entries(project, _entry())
    assert main(["retry", "check"]) == 0
    assert "lanes retry check passed: 1 entries" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"review_by": "2020-01-01"}, "review_by 2020-01-01 has passed"),
        ({"reason": ""}, "reason is empty"),
        ({"tracking": "<issue>"}, "tracking '<issue>' is a placeholder"),
        ({"file": "tests/test_gone.py"}, "file 'tests/test_gone.py' does not exist"),
    ],
)
def test_check_fails_an_expired_unjustified_or_stale_entry(
    project: Path, capsys: pytest.CaptureFixture[str], fields: dict[str, str], problem: str
) -> None:
    _write_entries(project, _entry(**fields))
    assert main(["retry", "check"]) == 1
    out = capsys.readouterr().out
    assert problem in out
    assert "lanes retry check FAILED: 1 of 1 entries" in out


@pytest.mark.parametrize("how", ["absolute", "dotdot", "symlink"])
def test_check_fails_an_entry_naming_a_file_outside_the_project(
    project: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    # `retry check` accepted files outside the project.
    outside = project.parent / f"{project.name}-outside.py"
    outside.write_text("def test_x(): pass\n")
    named = {
        "absolute": str(outside),
        "dotdot": f"../{outside.name}",
        "symlink": "tests/test_link.py",
    }[how]
    if how == "symlink":
        (project / "tests" / "test_link.py").symlink_to(outside)
    _write_entries(project, _entry(file=named))
    assert main(["retry", "check"]) == 1
    out = capsys.readouterr().out
    assert f"file {named!r} is outside the project" in out


def test_a_malformed_list_is_a_config_error_with_a_hint(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_entries(project, {**_entry(), "reviewby": "2027-01-01"})
    assert main(["retry", "check"]) == 2
    err = capsys.readouterr().err
    assert "unknown key 'reviewby' — did you mean 'review_by'?" in err
    assert "hint: " in err


@pytest.mark.integration
def test_the_self_check_retries_only_the_listed_timeout() -> None:
    pytest.importorskip("pytest_timeout")
    from lanes.retry.selfcheck import run_self_check  # noqa: PLC0415  # spawns ten pytest runs

    result = run_self_check()
    assert result["observed"] == result["expected"]
    assert result["passed"] is True
    # The planted fault: an interrupted run's listed timeout looks retryable.
    assert result["planted"] == [
        {
            "fault": "an interrupted run (pytest exit 2) judged like a finished one: its listed "
            "timeouts become retryable",
            "expected": "refused: session-error",
            "real": "refused: session-error",
            "planted": "retried: tests/test_spawn.py::test_waits_on_a_spawned_process",
            "caught": True,
        }
    ]


def test_the_lane_writes_a_payload_of_its_type(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_entries(project, _entry())
    project.joinpath("tests", "test_plain.py").write_text("def test_b():\n    assert 1 == 2\n")
    code = main(["retry", "run", "--", "-q", "-p", "no:cacheprovider", "tests"])
    assert code == 1, capsys.readouterr().err
    envelope = json.loads((project / "envelopes" / "retry.json").read_text(encoding="utf-8"))
    data = envelope["data"]
    assert (envelope["stage"], payload_problems("retry", data)) == ("complete", [])
    # The report shows this lane as the generic table, in the writer's key order.
    assert list(data) == [
        "pytest_args",
        "first",
        "retried",
        "because",
        "blockers",
        "second",
        "entries_file",
        "entries",
        "self_check",
    ]
    assert data["first"]["failures"] == [
        {
            "nodeid": "tests/test_plain.py::test_b",
            "when": "call",
            "file": "tests/test_plain.py",
            "timeout": False,
        }
    ]
    assert [b["kind"] for b in data["blockers"]] == ["not-a-timeout"]
    assert (data["retried"], data["second"], data["entries"]) == ([], None, 1)


def test_the_payload_type_spells_exactly_the_blockers() -> None:
    # mypy proves every Blocker is a RetryBlockerKind; this proves the converse.
    assert set(typing.get_args(RetryBlockerKind)) == {b.value for b in Blocker}
