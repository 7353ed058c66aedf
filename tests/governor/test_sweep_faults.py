"""No fault upstream of the full-sweep rule turns a gated full sweep into
"allow", and payloads past the hook's caps are judged
by the rule instead of waved through (the hard-cap policy). Real ``lanes hook``
processes, because the faults live in the process's path to the gate."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from lanes.config import GovernorConfig
from lanes.governor.payload import MAX_PAYLOAD
from lanes.governor.policy.sweep import (
    DEFAULT_GATE_RUNNERS,
    DEFAULT_SWEEP_MIN_PATHS,
    last_resort,
)
from tests.governor.governor_helpers import make_repo
from tests.support.hooks import payload, run_hook

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.integration


def pre(command: str, cwd: Path) -> bytes:
    return json.dumps(payload(command, event="PreToolUse", cwd=cwd)).encode()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _deep_cache(xdg: Path) -> None:
    cache = xdg / "lanekit" / "gate-config.json"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")


def _deep_pyproject(repo: Path) -> None:
    with (repo / "pyproject.toml").open("a", encoding="utf-8") as handle:
        handle.write("\n[tool.deep]\nx = " + "[" * 3000 + "]" * 3000 + "\n")


def test_a_deeply_nested_config_cache_keeps_the_gate_closed(repo: Path, tmp_path: Path) -> None:
    xdg = tmp_path / "xdg"
    _deep_cache(xdg)
    for _ in range(2):  # persistently: the second call meets the same cache
        result = run_hook(pre("pytest", repo), xdg=xdg, cwd=repo)
        assert result.returncode == 2, result.stderr
        assert "full sweep blocked" in result.stderr


def test_a_deeply_nested_pyproject_keeps_the_gate_closed(repo: Path, tmp_path: Path) -> None:
    _deep_pyproject(repo)
    result = run_hook(pre("pytest -q", repo), xdg=tmp_path / "xdg", cwd=repo)
    assert result.returncode == 2, result.stderr
    # ...and a filtered run is still allowed: everything else fails open.
    result = run_hook(pre("pytest tests/unit/test_a.py", repo), xdg=tmp_path / "xdg", cwd=repo)
    assert result.returncode == 0, result.stderr


def test_a_nul_in_cwd_keeps_the_gate_closed(repo: Path, tmp_path: Path) -> None:
    raw = json.dumps(payload("pytest", event="PreToolUse", cwd=repo)).replace(
        json.dumps(str(repo)), json.dumps(str(repo) + "\0x")
    )
    result = run_hook(raw.encode(), xdg=tmp_path / "xdg", cwd=repo)
    assert result.returncode == 2, result.stderr


@pytest.mark.parametrize("quote", ['"', ""], ids=["string", "number"])
def test_a_huge_exit_code_keeps_the_gate_closed(repo: Path, tmp_path: Path, quote: str) -> None:
    data = payload("pytest", event="PreToolUse", cwd=repo, tool_response={"exit_code": "CODE"})
    raw = json.dumps(data).replace('"CODE"', quote + "9" * 4400 + quote)
    result = run_hook(raw.encode(), xdg=tmp_path / "xdg", cwd=repo)
    assert result.returncode == 2, result.stderr


@pytest.mark.parametrize("spelling", [b"pytest", b"\\u0070ytest", b'p\\"\\"ytest'])
def test_a_payload_past_the_cap_that_could_sweep_is_blocked(
    repo: Path, tmp_path: Path, spelling: bytes
) -> None:
    command = "RUNNER; : " + "x" * (MAX_PAYLOAD + 1024)
    raw = pre(command, repo).replace(b"RUNNER", spelling)
    result = run_hook(raw, xdg=tmp_path / "xdg", cwd=repo)
    assert result.returncode == 2
    assert "full sweep blocked" in result.stderr


def test_a_payload_past_the_cap_that_cannot_sweep_runs(repo: Path, tmp_path: Path) -> None:
    command = "echo test && " * ((MAX_PAYLOAD // 13) + 100)
    result = run_hook(pre(command, repo), xdg=tmp_path / "xdg", cwd=repo)
    assert result.returncode == 0, result.stderr[:500]


def test_a_long_command_past_the_classifier_cap_is_judged_by_its_text(
    repo: Path, tmp_path: Path
) -> None:
    xdg = tmp_path / "xdg"
    sweep = "pytest; : " + "word " * 120_000  # ~600 KB: parsed, not lexed
    assert run_hook(pre(sweep, repo), xdg=xdg, cwd=repo).returncode == 2
    harmless = "echo test && " * 50_000
    assert run_hook(pre(harmless, repo), xdg=xdg, cwd=repo).returncode == 0


def test_post_events_never_block_even_when_the_full_path_faults(repo: Path, tmp_path: Path) -> None:
    xdg = tmp_path / "xdg"
    _deep_cache(xdg)
    raw = json.dumps(payload("pytest", event="PostToolUse", cwd=repo)).encode()
    assert run_hook(raw, xdg=xdg, cwd=repo).returncode == 0


def test_the_last_resort_applies_the_configured_defaults() -> None:
    defaults = GovernorConfig()
    assert defaults.gate_runners == DEFAULT_GATE_RUNNERS
    assert defaults.sweep_min_paths == DEFAULT_SWEEP_MIN_PATHS


def test_the_last_resort_reads_only_what_it_must() -> None:
    raw = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"content": "pytest"},
        }
    ).encode()
    assert last_resort(raw, {}, "test") is None
    sweep = json.dumps(
        {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "pytest"}}
    ).encode()
    assert last_resort(sweep, {}, "test") is not None
    post = sweep.replace(b"PreToolUse", b"PostToolUse")
    assert last_resort(post, {}, "test") is None
