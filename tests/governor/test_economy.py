"""The test economy: the counting rule end to end, its knobs, gate and CI
wiring in the message, and a store that fails open."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lanes.governor.classify.classifier import classify
from lanes.governor.config_cache import gate_config
from lanes.governor.context import HookContext
from lanes.governor.payload import parse_payload
from lanes.governor.policy import economy
from lanes.governor.policy.push_gates import ci_systems, local_gates
from lanes.governor.state import economy_store as store
from tests.support.git import git, git_repo
from tests.support.hooks import DEFAULT_SESSION, advice, payload, run_hook

FULL = "pytest -q"
FILTERED = "pytest tests/test_a.py -k smoke"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = git_repo(tmp_path / "project")
    (root / "tests").mkdir()
    return root


def _counters(root: Path, session: str = DEFAULT_SESSION) -> store.SessionCounters | None:
    return store.read_session(str(root), session)


def _post(
    root: Path, command: str, *, session: str = "s-1", env: dict[str, str] | None = None
) -> str | None:
    """One PostToolUse through the in-process economy (the rule, not the process)."""
    hook_payload = parse_payload(json.dumps(payload(command, cwd=root, session=session)))
    ctx = HookContext.for_hook(hook_payload, "claude", environ=env or {})
    return economy.on_post_tool_use(ctx, classify(command, root), hook_payload)


# --------------------------------------------------------------------------- end to end


@pytest.mark.integration
def test_counting_sequence_piped_into_lanes_hook(project: Path, xdg: Path) -> None:
    # Two full runs silent, the third nudges, the fourth is silent, the fifth
    # and sixth STOP — with filtered runs in between that change nothing.
    seen: list[str | None] = []
    for _ in range(6):
        seen.append(advice(run_hook(payload(FULL, cwd=project), xdg=xdg)))
        assert advice(run_hook(payload(FILTERED, cwd=project), xdg=xdg)) is None
    assert [None if s is None else s.split(":")[0] for s in seen] == [
        None,
        None,
        "Test economy",
        None,
        "STOP",
        "STOP",
    ]
    nudge, stop = seen[2], seen[4]
    assert nudge is not None
    assert not nudge.startswith("STOP:")
    assert "full-suite run 3 in this session" in nudge
    assert stop is not None
    assert stop.startswith("STOP: full-suite run 5")
    counters = _counters(project)
    assert counters is not None
    assert (counters.full_runs, counters.filtered_runs, counters.fires) == (6, 6, 3)
    assert counters.first_fire is not None


@pytest.mark.integration
def test_a_new_session_starts_clean(project: Path, xdg: Path) -> None:
    for _ in range(3):
        run_hook(payload(FULL, cwd=project, session="old"), xdg=xdg)
    assert advice(run_hook(payload(FULL, cwd=project, session="new"), xdg=xdg)) is None
    new = store.read_session(str(project), "new")
    assert new is not None
    assert (new.full_runs, new.fires) == (1, 0)


def test_post_tool_use_failure_counts_too(project: Path, xdg: Path) -> None:
    del xdg
    for _ in range(2):
        assert _post(project, FULL) is None
    failed = parse_payload(
        json.dumps(
            payload(
                FULL, cwd=project, session="s-1", event="PostToolUseFailure", error="Exit code 1\n"
            )
        )
    )
    ctx = HookContext.for_hook(failed, "claude", environ={})
    text = economy.on_post_tool_use(ctx, classify(FULL, project), failed)
    assert text is not None
    assert text.startswith("Test economy:")


# --------------------------------------------------------------------------- the rule


@pytest.mark.parametrize(
    ("runs", "fires", "expected"),
    [
        (1, 0, "silent"),
        (2, 0, "silent"),
        (3, 0, "nudge"),
        (4, 1, "silent"),
        (5, 1, "stop"),
        (6, 2, "stop"),
        (40, 9, "stop"),
    ],
)
def test_decide_follows_the_counting_rule(runs: int, fires: int, expected: str) -> None:
    assert economy.decide(runs, fires, max_full=2, escalate_at=5) == expected


def test_the_nudge_fires_once_even_if_the_budget_is_raised_mid_session() -> None:
    assert economy.decide(4, 0, max_full=2, escalate_at=5) == "nudge"
    assert economy.decide(4, 1, max_full=2, escalate_at=5) == "silent"


def test_commands_that_run_no_tests_are_not_counted(project: Path, xdg: Path) -> None:
    del xdg
    for command in ("ls -la", 'git commit -m "run pytest"', "echo pytest", "pip install pytest"):
        assert _post(project, command) is None
    assert store.read_session(str(project), "s-1") is None


def test_filtered_runs_leave_the_full_counters_untouched(project: Path, xdg: Path) -> None:
    del xdg
    _post(project, FULL)
    for command in (
        FILTERED,
        "pytest tests/test_a.py::test_x",
        "python -m pytest tests/test_a.py -x",
        "python -m unittest tests.test_a",
    ):
        assert _post(project, command) is None
    counters = store.read_session(str(project), "s-1")
    assert counters is not None
    assert (counters.full_runs, counters.fires, counters.filtered_runs) == (1, 0, 4)


# --------------------------------------------------------------------------- knobs


def _first_fire(project: Path, env: dict[str, str], session: str) -> int | None:
    for run in range(1, 10):
        if _post(project, FULL, session=session, env=env) is not None:
            return run
    return None


def test_env_knobs(project: Path, xdg: Path) -> None:
    del xdg
    assert _first_fire(project, {"LANES_MAX_FULL": "0"}, "a") == 1
    assert _first_fire(project, {"LANES_MAX_FULL": "4"}, "b") == 5
    # Not a whole number: the default (2) applies.
    assert _first_fire(project, {"LANES_MAX_FULL": "three"}, "c") == 3
    assert _first_fire(project, {"LANES_MAX_FULL": "-1"}, "d") == 3


def test_inline_knobs_win_over_the_environment(project: Path, xdg: Path) -> None:
    del xdg
    env = {"LANES_MAX_FULL": "5"}
    assert _post(project, "LANES_MAX_FULL=0 pytest", session="i", env=env) is not None
    assert _post(project, "pytest", session="j", env=env) is None


def test_escalate_at_from_env(project: Path, xdg: Path) -> None:
    del xdg
    env = {"LANES_MAX_FULL": "0", "LANES_ESCALATE_AT": "3"}
    texts = [_post(project, FULL, session="e", env=env) for _ in range(4)]
    assert texts[0] is not None
    assert not texts[0].startswith("STOP:")
    assert texts[1] is None
    assert texts[2] is not None
    assert texts[2].startswith("STOP:")
    assert texts[3] is not None
    assert texts[3].startswith("STOP:")


def test_config_knobs(project: Path, xdg: Path) -> None:
    del xdg
    (project / "pyproject.toml").write_text(
        "[tool.lanes.governor]\nmax_full = 1\nescalate_at = 3\n", encoding="utf-8"
    )
    governor = gate_config(str(project)).governor
    assert economy.limits({}, governor) == (1, 3)
    assert economy.limits({"LANES_MAX_FULL": "0"}, governor) == (0, 3)
    assert _first_fire(project, {}, "f") == 2


def test_a_broken_config_falls_back_to_the_defaults(project: Path, xdg: Path) -> None:
    del xdg
    (project / "pyproject.toml").write_text(
        "[tool.lanes.governor]\nmax_ful = 1\n", encoding="utf-8"
    )
    assert economy.limits({}, gate_config(str(project)).governor) == (2, 5)


# --------------------------------------------------------------------------- the message


def test_the_message_states_the_economy_and_the_exception(project: Path) -> None:
    nudge = economy.message("nudge", 3, 2, str(project))
    assert "one minimal manual run plus CI" in nudge
    assert "never re-run to see whether it passes again" in nudge
    assert "flake triage" in nudge
    assert "state that diagnosis" in nudge
    stop = economy.message("stop", 5, 2, str(project))
    assert stop.startswith("STOP: full-suite run 5 in this session (budget: 2).")


def test_both_forms_point_to_the_selector(project: Path) -> None:
    for verdict in ("nudge", "stop"):
        text = economy.message(verdict, 5, 2, str(project))
        assert "`lanes affected --run` runs them once" in text


def test_nothing_wired_says_one_manual_full_run_before_push(project: Path) -> None:
    text = economy.message("nudge", 3, 2, str(project))
    assert "CI: none found" in text
    assert "one manual full-suite run before push is the gate" in text


def test_ci_is_named_with_the_check_to_make(project: Path) -> None:
    workflows = project / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "ci.yml").write_text("on: push\n", encoding="utf-8")
    (workflows / "README.md").write_text("not a workflow\n", encoding="utf-8")
    (project / ".gitlab-ci.yml").write_text("test: {}\n", encoding="utf-8")
    assert ci_systems(str(project)) == [
        "GitHub Actions (.github/workflows/ci.yml)",
        "GitLab CI (.gitlab-ci.yml)",
    ]
    text = economy.message("nudge", 3, 2, str(project))
    assert "GitHub Actions (.github/workflows/ci.yml)" in text
    assert "`gh run list --limit 3`" in text
    assert "treat it as the verdict" in text


def test_lanekits_own_workflows_are_not_named_as_the_projects_ci(project: Path) -> None:
    # Regression: in a user's repository, the nudge named the lanes-*.yml
    # workflows `lanes init` writes as the project's CI.
    workflows = project / ".github" / "workflows"
    workflows.mkdir(parents=True)
    for name in ("lanes-pr.yml", "lanes-nightly.yml", "lanes-mutation.yml"):
        (workflows / name).write_text("on: push\n", encoding="utf-8")
    assert ci_systems(str(project)) == []
    assert "CI: none found" in economy.message("nudge", 3, 2, str(project))


def test_a_fresh_repository_has_no_gate_its_samples_do_not_count(project: Path) -> None:
    assert any(p.name.endswith(".sample") for p in (project / ".git" / "hooks").iterdir())
    assert local_gates(str(project)) == []


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"lefthook.yml": "pre-push: {}\n"}, "lefthook (lefthook.yml)"),
        ({".pre-commit-config.yaml": "repos: []\n"}, "pre-commit (.pre-commit-config.yaml)"),
        ({".husky/pre-push": "npm test\n"}, "husky (.husky/pre-push)"),
    ],
)
def test_local_gate_tools_are_detected(project: Path, files: dict[str, str], expected: str) -> None:
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")
    assert local_gates(str(project)) == [expected]
    assert expected in economy.message("nudge", 3, 2, str(project))


def _hook(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexec make test\n", encoding="utf-8")
    path.chmod(0o755)


def test_a_real_pre_push_hook_in_the_git_dir(project: Path) -> None:
    _hook(project / ".git" / "hooks" / "pre-push")
    assert local_gates(str(project)) == ["git pre-push hook (.git/hooks/pre-push)"]


def test_core_hooks_path_is_honoured(project: Path) -> None:
    # With core.hooksPath set, git runs hooks from there only: the one in
    # .git/hooks is inert, the one in .githooks is the gate.
    _hook(project / ".git" / "hooks" / "pre-push")
    _hook(project / ".githooks" / "pre-push")
    git(project, "config", "core.hooksPath", ".githooks")
    assert local_gates(str(project)) == ["git pre-push hook (.githooks/pre-push)"]


def test_a_sample_in_the_configured_hooks_path_is_not_a_gate(project: Path) -> None:
    _hook(project / ".githooks" / "pre-push.sample")
    git(project, "config", "core.hooksPath", ".githooks")
    assert local_gates(str(project)) == []


def test_a_worktree_reads_the_shared_config(project: Path, tmp_path: Path) -> None:
    (project / "README").write_text("x\n", encoding="utf-8")
    git(project, "add", "README")
    git(project, "commit", "-q", "-m", "init")
    _hook(project / ".githooks" / "pre-push")
    git(project, "config", "core.hooksPath", ".githooks")
    worktree = tmp_path / "wt"
    git(project, "worktree", "add", "-q", str(worktree))
    _hook(worktree / ".githooks" / "pre-push")
    assert local_gates(str(worktree)) == ["git pre-push hook (.githooks/pre-push)"]


# --------------------------------------------------------------------------- the store


def _count_full(counters: store.SessionCounters) -> None:
    counters.full_runs += 1


def test_ten_sessions_taking_turns_all_keep_counting(project: Path, xdg: Path) -> None:
    # Ten agents in one project, each running the full suite in turn: an
    # eviction of live sessions would reset counts, and no nudge would fire.
    del xdg
    now = 1_800_000_000.0
    for turn in range(3):
        for agent in range(10):
            now += 60.0
            store.update_session(str(project), f"agent-{agent}", now, _count_full)
        del turn
    counts = [store.read_session(str(project), f"agent-{agent}") for agent in range(10)]
    assert [c.full_runs if c else None for c in counts] == [3] * 10


def test_idle_sessions_and_their_projects_are_pruned(project: Path, xdg: Path) -> None:
    del xdg
    start = 1_800_000_000.0
    for index in range(50):  # an agent in fifty scratch directories outside git
        store.update_session(f"/tmp/scratch-{index}", "old", start + index, _count_full)
    later = start + store.SESSION_IDLE_SECONDS + 100.0
    store.update_session(str(project), "new", later, _count_full)
    document = json.loads(Path(store.store_path()).read_text(encoding="utf-8"))
    assert list(document["projects"]) == [str(project)]


def test_the_store_is_bounded_in_projects_and_sessions(project: Path, xdg: Path) -> None:
    del xdg
    now = 1_800_000_000.0
    for index in range(store.MAX_SESSIONS + 5):
        store.update_session(str(project), f"s{index}", now + index, _count_full)
    for index in range(store.MAX_PROJECTS + 5):
        store.update_session(f"/p/{index}", "s", now + 100 + index, _count_full)
    document = json.loads(Path(store.store_path()).read_text(encoding="utf-8"))
    assert len(document["projects"]) == store.MAX_PROJECTS
    assert str(project) not in document["projects"]  # the least recently seen went first
    assert "/p/0" not in document["projects"]
    assert f"/p/{store.MAX_PROJECTS + 4}" in document["projects"]


def test_past_the_session_bound_the_least_recently_seen_session_goes(
    project: Path, xdg: Path
) -> None:
    # One agent more than the bound: the one that ran just now keeps counting
    # towards its nudge; the one seen longest ago is the one forgotten.
    del xdg
    now = 1_800_000_000.0
    for index in range(store.MAX_SESSIONS + 1):
        store.update_session(str(project), f"s{index}", now + index, _count_full)
    newest = f"s{store.MAX_SESSIONS}"
    store.update_session(str(project), newest, now + 1_000.0, _count_full)
    counters = store.read_session(str(project), newest)
    assert counters is not None
    assert counters.full_runs == 2
    assert store.read_session(str(project), "s0") is None
    assert store.read_session(str(project), "s1") is not None


def test_a_corrupt_store_fails_open_and_is_set_aside(project: Path, xdg: Path) -> None:
    path = xdg / "lanekit" / "economy.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    proc = run_hook(payload(FULL, cwd=project), xdg=xdg, env={"LANES_MAX_FULL": "0"})
    assert (proc.returncode, proc.stdout) == (0, "")
    assert (xdg / "lanekit" / "economy.json.corrupt").read_text(encoding="utf-8") == "{not json"
    # Counting starts again with the next run.
    assert (
        advice(run_hook(payload(FULL, cwd=project), xdg=xdg, env={"LANES_MAX_FULL": "0"}))
        is not None
    )


@pytest.mark.parametrize("kind", ["directory", "symlink", "other-version"])
def test_an_unreadable_store_is_left_alone_and_the_hook_is_silent(
    project: Path, xdg: Path, tmp_path: Path, kind: str
) -> None:
    path = xdg / "lanekit" / "economy.json"
    path.parent.mkdir(parents=True)
    if kind == "directory":
        path.mkdir()
    elif kind == "symlink":
        target = tmp_path / "elsewhere.json"
        target.write_text(
            '{"format": "lanekit.economy", "version": 1, "projects": {}}', encoding="utf-8"
        )
        path.symlink_to(target)
    else:
        path.write_text('{"format": "lanekit.economy", "version": 2}', encoding="utf-8")
    proc = run_hook(payload(FULL, cwd=project), xdg=xdg, env={"LANES_MAX_FULL": "0"})
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert not (path.parent / "economy.json.corrupt").exists()
    if kind == "directory":
        assert path.is_dir()
    elif kind == "symlink":
        assert path.is_symlink()
        assert json.loads(path.read_text(encoding="utf-8"))["projects"] == {}
    else:
        assert json.loads(path.read_text(encoding="utf-8")) == {
            "format": "lanekit.economy",
            "version": 2,
        }


def test_session_counters_for_status(project: Path, xdg: Path) -> None:
    del xdg
    assert economy.session_counters(str(project), "s-1") is None
    _post(project, FULL)
    _post(project, FILTERED)
    counters = economy.session_counters(str(project / "tests"), "s-1")
    assert counters is not None
    assert (counters["full_runs"], counters["filtered_runs"], counters["fires"]) == (1, 1, 0)


def test_debug_log_records_skips_and_fires(project: Path, xdg: Path) -> None:
    run_hook(payload("ls -la", cwd=project), xdg=xdg, env={"LANES_DEBUG": "1"})
    run_hook(payload(FILTERED, cwd=project), xdg=xdg, env={"LANES_DEBUG": "1"})
    run_hook(payload(FULL, cwd=project), xdg=xdg, env={"LANES_DEBUG": "1", "LANES_MAX_FULL": "0"})
    records = [
        json.loads(line)
        for line in (xdg / "lanekit" / "debug.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    reasons = [r.get("reason", "") for r in records if r["event"] in ("skip", "economy-skip")]
    assert any(reason.startswith("pre-screen:") for reason in reasons)
    assert "filtered run" in reasons
    fires = [r for r in records if r["event"] == "economy-fire"]
    assert len(fires) == 1
    assert fires[0]["runner"] == ["pytest"]
    assert fires[0]["escalation"] == "nudge"
    assert (fires[0]["full_runs"], fires[0]["max_full"]) == (1, 0)
