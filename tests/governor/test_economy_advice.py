"""The test economy's advice as an agent reads it, word for word, and the
counting rule driven in-process (the subprocess tests in test_economy.py
prove the hook wiring; these prove the text and the counts)."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

import pytest

from lanes.governor.classify.classifier import classify
from lanes.governor.context import HookContext
from lanes.governor.payload import parse_payload
from lanes.governor.policy import economy
from lanes.governor.state import economy_store as store
from tests.support.git import git_repo
from tests.support.hooks import payload

if TYPE_CHECKING:
    from pathlib import Path

SELECTOR = (
    "Which tests: `lanes affected` lists the tests and checks your change needs, each with "
    "the rule that selected it; `lanes affected --run` runs them once."
)
NO_RERUN = "A suite is never re-run to see whether it passes again."
EXCEPTION = (
    "Exception: deliberate repetition for a named diagnosis (flake triage: a measured "
    "distribution) is fine — state that diagnosis in your response and continue."
)


def test_the_nudge_in_a_project_with_nothing_wired_reads_in_full(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "bare")
    assert economy.message("nudge", 3, 2, str(root)).splitlines() == [
        (
            "Test economy: full-suite run 3 in this session (budget: 2). The budget is one "
            "minimal manual run plus CI: run the tests of the surface you changed (and of what "
            "consumes it) once; the full suite is CI's job on push."
        ),
        SELECTOR,
        NO_RERUN,
        "CI: none found in this repository.",
        (
            "Local gates: none wired (no lefthook, pre-commit, husky or git pre-push hook). "
            "If CI is dead or absent, one manual full-suite run before push is the gate."
        ),
        EXCEPTION,
    ]


def test_the_stop_with_ci_and_a_gate_wired_reads_in_full(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "wired")
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "ci.yml").write_text("on: push\n", encoding="utf-8")
    (root / "lefthook.yml").write_text("pre-push: {}\n", encoding="utf-8")
    assert economy.message("stop", 5, 2, str(root)).splitlines() == [
        (
            "STOP: full-suite run 5 in this session (budget: 2). Stop re-running the whole "
            "suite. Run only the tests of the surface you changed, once, and let CI or the "
            "gates named below prove the push."
        ),
        SELECTOR,
        NO_RERUN,
        (
            "CI: GitHub Actions (.github/workflows/ci.yml). Check the latest run, e.g. "
            "`gh run list --limit 3`, and treat it as the verdict."
        ),
        (
            "Local gates wired: lefthook (lefthook.yml). If CI is dead or absent, they run "
            "once before push — no extra manual full run."
        ),
        EXCEPTION,
    ]


FULL = "pytest -q"
FILTERED = "pytest tests/test_a.py -k smoke"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git project; the per-user store and the debug log under ``tmp_path``."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("LANES_DEBUG", "1")
    for name in ("LANES_MAX_FULL", "LANES_ESCALATE_AT"):
        monkeypatch.delenv(name, raising=False)
    root = git_repo(tmp_path / "project")
    (root / "tests").mkdir()
    return root


def _post(
    root: Path, command: str, *, env: dict[str, str] | None = None, session: str = "s-1"
) -> str | None:
    hook_payload = parse_payload(json.dumps(payload(command, cwd=root, session=session)))
    ctx = HookContext.for_hook(hook_payload, "claude", environ=env or {})
    return economy.on_post_tool_use(ctx, classify(command, root), hook_payload)


def _debug(root: Path) -> list[dict[str, object]]:
    log = root.parent / "state" / "lanekit" / "debug.jsonl"
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_the_counting_rule_in_one_session(project: Path) -> None:
    # Two full runs silent, the third nudges, the fourth is silent, the fifth
    # and sixth STOP; filtered runs in between change nothing but their count.
    before = time.time()
    seen: list[str | None] = []
    for _ in range(6):
        seen.append(_post(project, FULL))
        assert _post(project, FILTERED) is None
    assert [None if s is None else s.split(":")[0] for s in seen] == [
        None, None, "Test economy", None, "STOP", "STOP",
    ]  # fmt: skip
    assert seen[2] == economy.message("nudge", 3, 2, str(project))
    assert seen[5] == economy.message("stop", 6, 2, str(project))
    counters = store.read_session(str(project), "s-1")
    assert counters is not None
    assert (counters.full_runs, counters.filtered_runs, counters.fires) == (6, 6, 3)
    assert counters.first_fire is not None
    assert before <= counters.first_fire <= time.time()


def test_the_first_fire_keeps_its_moment(project: Path) -> None:
    env = {"LANES_MAX_FULL": "0", "LANES_ESCALATE_AT": "2"}
    assert _post(project, FULL, env=env) is not None
    first = store.read_session(str(project), "s-1")
    assert first is not None
    assert _post(project, FULL, env=env) is not None  # the STOP fires too
    again = store.read_session(str(project), "s-1")
    assert again is not None
    assert (again.fires, again.first_fire) == (2, first.first_fire)


def test_only_the_economy_knobs_are_taken_from_the_command(project: Path) -> None:
    # Another variable before the runner is not a knob: the defaults apply.
    assert _post(project, "LANES_DEBUG=1 pytest") is None
    assert _post(project, "LANES_MAX_FULL=0 LANES_ESCALATE_AT=9 PYTHONHASHSEED=0 pytest") == (
        economy.message("nudge", 2, 0, str(project))
    )


def test_the_debug_log_says_why_each_run_was_or_was_not_advised(project: Path) -> None:
    _post(project, "ls -la")
    _post(project, FILTERED)
    _post(project, FULL)
    _post(project, "LANES_MAX_FULL=0 pytest")
    records = [r for r in _debug(project) if str(r["event"]).startswith("economy-")]
    for record_ in records:
        del record_["ts"], record_["pid"]
    state = {"runner": ["pytest"], "project": str(project), "escalate_at": 5}
    assert records == [
        {"event": "economy-skip", "reason": "not a test run"},
        {"event": "economy-skip", "reason": "filtered run", "project": str(project)},
        {
            "event": "economy-skip",
            "reason": "within budget or already nudged",
            **state,
            "full_runs": 1,
            "fires": 0,
            "max_full": 2,
        },
        {
            "event": "economy-fire",
            "escalation": "nudge",
            **state,
            "full_runs": 2,
            "fires": 1,
            "max_full": 0,
        },
    ]


def test_an_unreadable_store_leaves_the_agent_alone_and_says_why(project: Path) -> None:
    path = project.parent / "state" / "lanekit" / "economy.json"
    path.mkdir(parents=True)  # a directory where the store should be
    assert _post(project, "LANES_MAX_FULL=0 pytest") is None
    assert _post(project, FILTERED) is None
    assert economy.session_counters(str(project), "s-1") is None
    skips = [r for r in _debug(project) if r["event"] == "economy-skip"]
    assert sum(str(r["reason"]).startswith("store: ") for r in skips) == 2
    [status] = [r for r in _debug(project) if r["event"] == "economy-status"]
    assert str(path) in str(status["error"])


def test_status_reads_the_counters_of_the_project_containing_the_directory(
    project: Path,
) -> None:
    assert economy.session_counters(str(project), "s-1") is None
    _post(project, FULL)
    _post(project, FILTERED)
    assert economy.session_counters(str(project / "tests"), "s-1") == (
        store.read_session(str(project), "s-1").to_dict()  # type: ignore[union-attr]  # counted just above
    )


def test_escalate_at_one_stops_from_the_first_full_run(project: Path) -> None:
    text = _post(project, FULL, env={"LANES_ESCALATE_AT": "1"})
    assert text is not None
    assert text.startswith("STOP: full-suite run 1 in this session (budget: 2).")


def test_several_ci_systems_and_gates_are_listed_in_one_line_each(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "busy")
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "ci.yml").write_text("on: push\n", encoding="utf-8")
    (root / ".gitlab-ci.yml").write_text("test: {}\n", encoding="utf-8")
    (root / "lefthook.yml").write_text("pre-push: {}\n", encoding="utf-8")
    (root / ".pre-commit-config.yaml").write_text("repos: []\n", encoding="utf-8")
    lines = economy.message("nudge", 3, 2, str(root)).splitlines()
    assert lines[3].startswith(
        "CI: GitHub Actions (.github/workflows/ci.yml); GitLab CI (.gitlab-ci.yml). "
    )
    assert lines[4].startswith(
        "Local gates wired: lefthook (lefthook.yml); pre-commit (.pre-commit-config.yaml). "
    )


def test_runs_are_counted_for_the_repository_from_any_subdirectory(project: Path) -> None:
    _post(project / "tests", FULL)
    counters = store.read_session(str(project), "s-1")
    assert counters is not None
    assert counters.full_runs == 1
    assert store.read_session(str(project / "tests"), "s-1") is None


def test_outside_git_runs_are_counted_for_the_directory(tmp_path: Path, project: Path) -> None:
    del project  # its fixture points the store and the debug log into tmp_path
    plain = tmp_path / "scratch"
    plain.mkdir()
    _post(plain, FULL)
    counters = store.read_session(str(plain), "s-1")
    assert counters is not None
    assert counters.full_runs == 1


def test_a_run_without_a_session_id_is_counted_as_an_unknown_session(project: Path) -> None:
    _post(project, FULL, session="")
    counters = store.read_session(str(project), "unknown-session")
    assert counters is not None
    assert counters.full_runs == 1
