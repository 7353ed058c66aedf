"""The gate's config cache: hits, invalidation, fail-open, and no lanes.config import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lanes.config import Config
from lanes.governor.config_cache import CachedConfig, cache_path, gate_config
from tests.governor.governor_helpers import PYPROJECT, make_repo


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    return make_repo(tmp_path / "repo")


def test_a_miss_loads_strictly_and_the_next_call_hits(repo: Path) -> None:
    first = gate_config(str(repo / "tests" / "unit"))
    assert isinstance(first, Config)
    second = gate_config(str(repo))
    assert isinstance(second, CachedConfig)
    assert second.root == str(first.root)
    assert set(second.suites) == set(first.suites)
    for name, suite in first.suites.items():
        cached = second.suites[name]
        assert (cached.paths, cached.command, cached.max_age, cached.runner, cached.lock) == (
            suite.paths, suite.command, suite.max_age, suite.runner, suite.lock,
        )  # fmt: skip
    assert second.governor.gate_runners == first.governor.gate_runners
    assert second.governor.lock_ttl == first.governor.lock_ttl


def test_an_edited_config_is_read_again(repo: Path) -> None:
    gate_config(str(repo))
    (repo / "pyproject.toml").write_text(
        PYPROJECT + "\n[tool.lanes.governor]\nlock_ttl = 77\n", encoding="utf-8"
    )
    reread = gate_config(str(repo))
    assert isinstance(reread, Config)
    assert reread.governor.lock_ttl == 77
    assert gate_config(str(repo)).governor.lock_ttl == 77


def test_a_broken_config_fails_open_to_defaults_and_is_not_cached(repo: Path) -> None:
    (repo / "pyproject.toml").write_text("[tool.lanes]\nbogus = 1\n", encoding="utf-8")
    config = gate_config(str(repo))
    assert set(config.suites) == {"tests"}
    assert not isinstance(gate_config(str(repo)), CachedConfig)


@pytest.mark.parametrize("text", ["", "{", "[]", '{"format": "other"}'])
def test_a_damaged_cache_is_a_miss(repo: Path, text: str) -> None:
    gate_config(str(repo))
    Path(cache_path()).write_text(text, encoding="utf-8")
    assert isinstance(gate_config(str(repo)), Config)
    assert isinstance(gate_config(str(repo)), CachedConfig)


def test_a_bad_row_is_a_miss(repo: Path) -> None:
    gate_config(str(repo))
    data = json.loads(Path(cache_path()).read_text(encoding="utf-8"))
    for row in data["projects"].values():
        row["config"]["suites"]["unit"]["paths"] = "tests/unit"
    Path(cache_path()).write_text(json.dumps(data), encoding="utf-8")
    assert isinstance(gate_config(str(repo)), Config)


@pytest.mark.integration
def test_a_cached_gate_call_never_imports_lanes_config(repo: Path, tmp_path: Path) -> None:
    script = (
        "import io, sys, json\n"
        "from lanes.governor.hook import run_hook\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps({"
        "'hook_event_name': 'PreToolUse', 'tool_name': 'Bash', 'session_id': 's-1',"
        f"'cwd': {str(repo)!r}, 'tool_input': {{'command': 'pytest tests/unit -q'}}}}).encode()))\n"
        "run_hook([])\n"
        "print('lanes.config' in sys.modules, 'subprocess' in sys.modules)\n"
    )
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "xdg")}
    runs = [
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env=env,
            cwd=repo,
            check=True,
        ).stdout.split()
        for _ in range(3)
    ]
    # The first call fills the caches; later ones load neither lanes.config nor subprocess.
    assert runs[-1] == ["False", "False"]


def test_one_strict_load_fills_both_cached_views(repo: Path) -> None:
    # The gate's rows and the screen's suite words derive from one locked
    # cache: a gate miss also writes the words of the same file with the
    # same stamp, so the next unrelated command takes the screen's fast path
    # without a second strict load.
    from lanes.governor.config_cache import refresh_words as refresh  # noqa: PLC0415
    from lanes.governor.screen.prescreen import read_suite_words, walk_pyprojects  # noqa: PLC0415

    gate_config(str(repo))
    ((path, stamp),) = walk_pyprojects(str(repo), first=True)[0]
    words = read_suite_words()
    assert words is not None
    assert words[path][0] == stamp
    assert b"verify" in words[path][1]  # PYPROJECT's `make verify` suite
    # ... and the other way round: a refresh from the screen's side fills the gate row.
    (repo / "pyproject.toml").write_text(PYPROJECT + "\n", encoding="utf-8")
    refresh(str(repo))
    assert isinstance(gate_config(str(repo)), CachedConfig)
