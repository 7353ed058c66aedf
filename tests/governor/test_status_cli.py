"""`lanes governor status|record|unlock` in scratch repositories."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from lanes.cli import main
from tests.governor.governor_helpers import SESSION_A, Project
from tests.support.git import git

if TYPE_CHECKING:
    from pathlib import Path


# The CLI reads the working directory and the environment: run it in the project.
pytestmark = pytest.mark.usefixtures("in_project")


def status_json(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["governor", "status", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert isinstance(view, dict)
    return view


def test_status_shows_tree_suites_and_lock(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.run("pytest tests/unit -q")
    project.pre("pytest tests/integ -m 'not slow'")
    view = status_json(capsys)
    assert view["tree"] == {
        "git_head": git(project.root, "rev-parse", "HEAD").strip(),
        "dirty_digest": "clean",
    }
    suites = view["suites"]
    assert isinstance(suites, dict)
    assert (suites["unit"]["fresh"], suites["unit"]["reason"]) == (True, "fresh")
    assert suites["integ"]["reason"] == "no entry"
    lock = view["lock"]
    assert isinstance(lock, dict)
    assert lock["status"] == "held"
    assert lock["holder"]["suite"] == "integ"

    assert main(["governor", "status"]) == 0
    text = capsys.readouterr().out
    assert "unit    fresh  PASS" in text
    assert "run lock   held by claude (session …a1b2" in text


@pytest.mark.parametrize(
    ("change", "reason"),
    [("edit", "tree changed"), ("commit", "HEAD moved"), ("fail", "FAIL")],
)
def test_status_names_why_a_pass_is_stale(
    project: Project, capsys: pytest.CaptureFixture[str], change: str, reason: str
) -> None:
    project.run("pytest tests/unit -q")
    target = project.root / "tests/unit/test_a.py"
    if change == "edit":
        target.write_text("def test_a():\n    assert 1\n", "utf-8")
    elif change == "commit":
        target.write_text("def test_a():\n    assert 1\n", "utf-8")
        git(project.root, "commit", "-qam", "edit")
    else:
        assert main(["governor", "record", "unit", "fail"]) == 0
        capsys.readouterr()
    suites = status_json(capsys)["suites"]
    assert isinstance(suites, dict)
    assert suites["unit"]["reason"] == reason


def test_status_shows_this_sessions_economy_counters(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    from lanes.governor.policy import economy  # noqa: PLC0415

    hook = project.hook_payload("PostToolUse", "pytest tests/unit -q", SESSION_A)
    from lanes.governor.classify.classifier import classify  # noqa: PLC0415
    from lanes.governor.context import HookContext  # noqa: PLC0415

    economy.on_post_tool_use(
        HookContext.for_hook(hook, "claude"), classify(hook.command, project.root), hook
    )
    assert main(["governor", "status", "--session", SESSION_A]) == 0
    assert "economy    session …a1b2: 0 full runs, 1 filtered runs" in capsys.readouterr().out


def test_record_writes_the_ledger_for_make_targets(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["governor", "record", "verify", "pass"]) == 0
    assert capsys.readouterr().out.startswith("recorded verify PASS on ")
    assert project.pre("make verify").step == "dedup"


@pytest.mark.usefixtures("project")
def test_record_refuses_an_unknown_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["governor", "record", "nope", "pass"]) == 2
    err = capsys.readouterr().err
    assert "error: no suite 'nope'" in err
    assert "configured: integ, unit, verify" in err
    assert "hint: " in err


def test_record_outside_git_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.chdir(plain)
    assert main(["governor", "record", "tests", "pass"]) == 2
    assert "hint: run it inside a git work tree" in capsys.readouterr().err


def test_unlock_refuses_a_live_owner_without_force_and_audits_force(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["governor", "unlock"]) == 0
    assert capsys.readouterr().out == "no run lock\n"
    project.pre("pytest tests/unit -q")
    assert main(["governor", "unlock"]) == 2
    assert "pass --force" in capsys.readouterr().err
    assert project.lock_path.exists()
    assert main(["governor", "unlock", "--force"]) == 0
    assert capsys.readouterr().out == "run lock (held) removed\n"
    assert not project.lock_path.exists()
    [audit] = project.audit()
    assert audit["event"] == "forced-unlock"
    assert audit["holder"]["suite"] == "unit"  # type: ignore[index]  # JSON object


def test_unlock_removes_a_dead_owners_lock_without_force(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    from lanes.governor.state.lock import acquire  # noqa: PLC0415

    paths = str(project.lock_path), str(project.lock_path) + ".guard"
    acquire(project.env, *paths, suite="unit", agent="codex", session_tail="x",
            agent_pid=gone.pid, command="pytest tests/unit")  # fmt: skip
    assert main(["governor", "unlock"]) == 0
    assert capsys.readouterr().out == "run lock (owner-dead) removed\n"
    assert project.audit() == []


def test_unlock_removes_an_unreadable_lock(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.lock_path.write_text("garbage", "utf-8")
    assert main(["governor", "unlock"]) == 0
    assert capsys.readouterr().out == "run lock (unreadable) removed\n"
    assert not project.lock_path.exists()
