"""What ``lane_run`` writes into an envelope, field by field, for each way a lane ends.

The report, the merge and CI all read these fields; a wrong one is a wrong
answer downstream, not a crash. Lane names here ("probe", "x") have no data
schema of their own.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import platform
import sys
import time
from typing import TYPE_CHECKING, Any

import pytest

from lanes import __version__
from lanes.config import parse_config
from lanes.envelope import Envelope, Subject, _rfc3339, git_subject, lane_run, read_envelope
from lanes.errors import EnvelopeError, StateError
from tests.support.git import git, head, make_repo

if TYPE_CHECKING:
    from pathlib import Path

CI_NAMES = (
    "GITHUB_RUN_ID",
    "GITHUB_RUN_ATTEMPT",
    "LANES_GROUP_ID",
    "GITHUB_HEAD_REF",
    "GITHUB_REF_NAME",
)


@pytest.fixture(autouse=True)
def _outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CI_NAMES:
        monkeypatch.delenv(name, raising=False)


def _envelope(root: Path, lane: str = "x") -> dict[str, Any]:
    return read_envelope(root / "envelopes" / f"{lane}.json")


def _lane(root: Path, data: dict[Any, Any], *, error: BaseException | None = None) -> None:
    """A lane that sets ``data`` and passes, or raises ``error`` after its verdict."""
    with lane_run("x", config=parse_config({}, root=root)) as run:
        run.data.update(data)
        run.verdict(passed=True)  # a verdict given before a crash does not count
        if error is not None:
            raise error


def test_the_file_is_indented_json_in_the_documents_own_order(tmp_path: Path) -> None:
    with lane_run("x", config=parse_config({}, root=tmp_path)) as run:
        run.data["b"] = 1
        run.data["a"] = 2
        run.verdict(passed=True)
    text = (tmp_path / "envelopes" / "x.json").read_text(encoding="utf-8")
    document = json.loads(text)
    # Readable in a diff and in a CI log: two spaces, one newline at the end,
    # format first and data last, the data's keys as the lane set them.
    assert text == json.dumps(document, indent=2) + "\n"
    assert list(document)[:3] == ["format", "schema_version", "lane"]
    assert list(document)[-1] == "data"
    assert list(document["data"]) == ["b", "a"]


def test_generated_by_names_this_lanekit_python_and_platform(tmp_path: Path) -> None:
    with lane_run("x", config=parse_config({}, root=tmp_path)) as run:
        run.tools["mutmut"] = "3.8.1"
        run.verdict(passed=True)
    assert _envelope(tmp_path)["generated_by"] == {
        "name": "lanekit",
        "version": __version__,
        "python": platform.python_version(),
        "platform": f"{sys.platform}-{platform.machine()}",
        "tools": {"mutmut": "3.8.1"},
    }


def test_started_at_is_the_lanes_start_in_utc_milliseconds(tmp_path: Path) -> None:
    before = time.time()
    with lane_run("x", config=parse_config({}, root=tmp_path)) as run:
        run.verdict(passed=True)
    after = time.time()
    started_at = _envelope(tmp_path)["started_at"]
    assert len(started_at) == len("2026-01-01T00:00:00.000Z")
    assert started_at.endswith("Z")
    started = dt.datetime.fromisoformat(started_at)
    assert started.utcoffset() == dt.timedelta(0)
    # Milliseconds are truncated, never rounded up past the moment itself.
    assert int(before * 1000) <= int(started.timestamp() * 1000 + 0.5) <= int(after * 1000)


def test_the_start_is_written_to_the_millisecond_never_rounded_up() -> None:
    # 2026-01-01T00:00:00.9999 UTC: the envelope says .999, not the next second.
    assert _rfc3339(1_767_225_600.9999) == "2026-01-01T00:00:00.999Z"
    assert _rfc3339(1_767_225_600.0005) == "2026-01-01T00:00:00.000Z"


def test_started_at_keeps_the_milliseconds_of_the_moment(tmp_path: Path) -> None:
    # Two lanes started within a second are still told apart and ordered.
    stamps = []
    for _ in range(3):
        with lane_run("x", config=parse_config({}, root=tmp_path)) as run:
            run.verdict(passed=True)
        stamps.append(_envelope(tmp_path)["started_at"])
        time.sleep(0.002)
    assert stamps == sorted(stamps)
    assert len(set(stamps)) == 3


def test_duration_is_the_lanes_own_time_in_milliseconds(tmp_path: Path) -> None:
    # Bounds from the test's own monotonic clock: true under any load.
    outer = time.monotonic()
    with lane_run("x", config=parse_config({}, root=tmp_path)) as run:
        inner = time.monotonic()
        time.sleep(0.05)
        slept = time.monotonic() - inner
        run.verdict(passed=True)
    total = time.monotonic() - outer
    duration = _envelope(tmp_path)["duration_ms"]
    assert int(slept * 1000) <= duration <= int(total * 1000) + 1


def test_a_lane_without_a_verdict_ends_in_an_error_naming_the_lane(tmp_path: Path) -> None:
    with lane_run("x", config=parse_config({}, root=tmp_path)) as run:
        run.data["n"] = 1
    assert run.passed is None
    envelope = _envelope(tmp_path)
    assert (envelope["stage"], envelope["result"]) == ("error", "fail")
    assert envelope["error"] == {
        "type": "LanesError",
        "message": "lane 'x' finished without a verdict",
    }
    assert envelope["data"] == {"n": 1}


@pytest.mark.parametrize("passed", [True, False])
def test_a_verdict_completes_the_lane_with_that_result(tmp_path: Path, passed: bool) -> None:
    with lane_run("x", config=parse_config({}, root=tmp_path), seed=11) as run:
        run.verdict(passed=passed)
    assert run.passed is passed
    envelope = _envelope(tmp_path)
    assert (envelope["stage"], envelope["result"], envelope["error"]) == (
        "complete",
        "pass" if passed else "fail",
        None,
    )
    assert envelope["seed"] == 11


@pytest.mark.parametrize(
    ("raised", "message"),
    [
        (KeyboardInterrupt(), "interrupted by SIGINT"),
        (KeyboardInterrupt("stopped by the user"), "stopped by the user"),
        (RuntimeError("boom"), "boom"),
    ],
    ids=["bare-interrupt", "worded-interrupt", "runtime-error"],
)
def test_an_exception_ends_the_lane_in_an_error_with_its_type_and_words(
    tmp_path: Path, raised: BaseException, message: str
) -> None:
    with pytest.raises(type(raised)):
        _lane(tmp_path, {}, error=raised)
    envelope = _envelope(tmp_path)
    assert (envelope["stage"], envelope["result"]) == ("error", "fail")
    assert envelope["error"] == {"type": type(raised).__name__, "message": message}


def test_a_lanes_error_inside_the_lane_is_marked_as_after_work_began(tmp_path: Path) -> None:
    # Its exit status is then "could not complete" (3), never "nothing ran" (2).
    error = StateError("the baseline is unreadable", hint="re-record it")
    assert not error.work_began
    with pytest.raises(StateError) as caught:
        _lane(tmp_path, {}, error=error)
    assert caught.value.work_began


def test_data_with_a_key_json_cannot_hold_is_dropped_and_named(tmp_path: Path) -> None:
    with pytest.raises(EnvelopeError) as caught:
        _lane(tmp_path, {("a", "b"): 1})  # the mistake under test: a tuple key
    why = "data cannot be written as JSON: keys must be str, int, float, bool or None, not tuple"
    assert caught.value.message == f"lane 'x': {why}"
    assert caught.value.hint == (
        "put only JSON values in run.data: str, int, bool, None, finite floats, "
        "and lists and dicts (str keys) of them"
    )
    envelope = _envelope(tmp_path)
    assert envelope["data"] == {"dropped": why}
    assert envelope["error"] == {"type": "EnvelopeError", "message": why}


def test_data_with_a_value_json_cannot_hold_names_the_key(tmp_path: Path) -> None:
    with pytest.raises(EnvelopeError) as caught:
        _lane(tmp_path, {"ok": 1, "when": dt.date(2026, 12, 2)})
    why = "data['when'] cannot be written as JSON: Object of type date is not JSON serializable"
    assert caught.value.message == f"lane 'x': {why}"
    assert _envelope(tmp_path)["data"] == {"dropped": why}


def test_an_explicit_config_hash_is_written_as_given(tmp_path: Path) -> None:
    digest = "sha256:" + "0" * 64
    config = parse_config({"torture": {"runs": 3}}, root=tmp_path)
    with lane_run("x", config=config, sections=("torture",), config_hash=digest) as run:
        run.verdict(passed=True)
    assert _envelope(tmp_path)["config_hash"] == digest


def test_an_envelope_named_outside_the_project_is_written_where_named(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    target = tmp_path / "elsewhere" / "deep" / "x.json"
    for passed in (True, False):  # the second run finds its directory there
        with lane_run("x", config=parse_config({}, root=project), path=target) as run:
            run.verdict(passed=passed)
    assert read_envelope(target)["result"] == "fail"
    assert not (project / "envelopes").exists()


def test_the_project_directory_is_created_for_its_first_envelope(tmp_path: Path) -> None:
    project = tmp_path / "new" / "project"
    with lane_run("x", config=parse_config({}, root=project)) as run:
        run.verdict(passed=True)
    assert _envelope(project)["result"] == "pass"


def test_a_github_run_without_an_attempt_number_is_attempt_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_RUN_ID", "77")
    monkeypatch.setenv("LANES_GROUP_ID", "ignored-in-ci")
    with lane_run("x", config=parse_config({}, root=tmp_path)) as run:
        run.verdict(passed=True)
    assert _envelope(tmp_path)["group_id"] == "github-77-1"


def test_lanes_group_id_groups_local_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANES_GROUP_ID", "sweep-7")
    with lane_run("x", config=parse_config({}, root=tmp_path)) as run:
        run.verdict(passed=True)
    envelope = _envelope(tmp_path)
    assert envelope["group_id"] == "sweep-7"
    assert envelope["run_id"] != "sweep-7"


def test_the_subject_is_the_projects_commit_read_in_the_lane(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"}, branch="trunk")
    (repo / ".gitignore").write_text("envelopes/\n", encoding="utf-8")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "ignore")
    with lane_run("x", config=parse_config({}, root=repo)) as run:
        run.verdict(passed=True)
    envelope = _envelope(repo)
    assert envelope["subject"] == {"commit": head(repo), "dirty": False, "branch": "trunk"}
    assert Envelope.from_dict(envelope).subject == Subject(head(repo), False, "trunk")


def test_a_detached_checkout_names_the_ref_github_checked_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A push build has no GITHUB_HEAD_REF, only the ref it ran for.
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    git(repo, "checkout", "-q", "--detach")
    monkeypatch.setenv("GITHUB_HEAD_REF", "")
    monkeypatch.setenv("GITHUB_REF_NAME", "main")
    assert git_subject(repo).branch == "main"
    monkeypatch.setenv("GITHUB_REF_NAME", "")
    assert git_subject(repo).branch is None


def test_publish_sets_the_whole_data(tmp_path: Path) -> None:
    with lane_run("x", config=parse_config({}, root=tmp_path)) as run:
        run.data["draft"] = True
        run.publish({"kind": "final", "n": 2})
        run.verdict(passed=True)
    assert _envelope(tmp_path)["data"] == {"kind": "final", "n": 2}


def test_an_error_envelope_of_a_group_reads_back_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANES_GROUP_ID", "sweep-3")
    with pytest.raises(RuntimeError):
        _lane(tmp_path, {"n": 1}, error=RuntimeError("boom"))
    document = _envelope(tmp_path)
    assert document["error"] == {"type": "RuntimeError", "message": "boom"}
    envelope = Envelope.from_dict(document)
    assert (envelope.group_id, envelope.error) == ("sweep-3", document["error"])
    assert envelope.to_dict() == document


def test_the_lanes_handle_names_its_lane(tmp_path: Path) -> None:
    with lane_run("probe", config=parse_config({}, root=tmp_path)) as run:
        run.verdict(passed=True)
    assert run.lane == "probe"


def test_an_envelope_never_writes_a_number_json_does_not_have(tmp_path: Path) -> None:
    # Written directly, without lane_run's screening of the data: NaN is
    # refused, never written as the bare token strict readers reject.
    envelope = Envelope(
        lane="x",
        subject=Subject(None, False, None),
        config_hash="sha256:" + "0" * 64,
        started_at="2026-12-02T00:00:00.000Z",
        duration_ms=1,
        result="pass",
        stage="complete",
        data={"ratio": float("nan")},
    )
    target = tmp_path / "x.json"
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        envelope.write(target)
    assert not target.exists()


def test_a_write_out_of_the_project_names_the_envelope_and_the_fix(tmp_path: Path) -> None:
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "envelopes").symlink_to(outside, target_is_directory=True)
    with pytest.raises(EnvelopeError) as caught:
        _lane(project, {})
    target = project / "envelopes" / "x.json"
    assert caught.value.message.startswith(
        f"the envelope {str(target)!r} would be written outside the project: "
    )
    assert caught.value.hint == (
        "a directory on its way is a symlink (or not a directory); make envelope_dir a real "
        "directory inside the project, or pass --envelope"
    )
    assert list(outside.iterdir()) == []


def test_a_key_that_is_not_a_number_is_refused_like_such_a_value(tmp_path: Path) -> None:
    with pytest.raises(EnvelopeError) as caught:
        _lane(tmp_path, {math.nan: 1})
    # The json module's own words; Python 3.12 appends the value (": nan").
    assert caught.value.message.startswith(
        "lane 'x': data cannot be written as JSON: Out of range float values are not JSON compliant"
    )


def test_the_start_is_in_utc_whatever_the_machines_time_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        assert _rfc3339(1_767_225_600.25) == "2026-01-01T00:00:00.250Z"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_an_untracked_file_is_dirty_even_where_git_is_told_to_hide_them(tmp_path: Path) -> None:
    # A user's `status.showUntrackedFiles = no` must not make new files invisible
    # to the envelope: a measurement of a tree with unadded files is not of HEAD.
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    git(repo, "config", "status.showUntrackedFiles", "no")
    assert not git_subject(repo).dirty
    (repo / "new.py").write_text("x = 1\n", encoding="utf-8")
    assert git_subject(repo).dirty
