"""``lanes governor install``: idempotent merges that keep the user's settings."""

from __future__ import annotations

import json
import subprocess
from typing import TYPE_CHECKING

import pytest

from lanes.cli import main
from tests.support.documents import read_json
from tests.support.git import git_repo
from tests.support.hooks import clean_env
from tests.support.processes import lanes_command

if TYPE_CHECKING:
    from pathlib import Path

CLAUDE_HOOK = {"matcher": "Bash", "hooks": [{"type": "command", "command": "lanes hook"}]}
CODEX_HOOK = {
    "matcher": "Bash",
    "hooks": [{"type": "command", "command": "lanes hook --agent codex"}],
}


def _install(root: Path, *extra: str) -> int:
    return main(["governor", "install", "--root", str(root), *extra])


def test_a_fresh_project_gets_the_three_claude_registrations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _install(tmp_path) == 0
    settings = read_json(tmp_path / ".claude" / "settings.json")
    assert settings == {
        "hooks": {
            "PreToolUse": [CLAUDE_HOOK],
            "PostToolUse": [CLAUDE_HOOK],
            "PostToolUseFailure": [CLAUDE_HOOK],
        }
    }
    assert not (tmp_path / ".codex").exists()
    out = capsys.readouterr().out
    assert "registered `lanes hook` for PreToolUse, PostToolUse, PostToolUseFailure" in out


def test_twice_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _install(tmp_path, "--codex") == 0
    claude = (tmp_path / ".claude" / "settings.json").read_bytes()
    codex = (tmp_path / ".codex" / "hooks.json").read_bytes()
    capsys.readouterr()
    assert _install(tmp_path, "--codex") == 0
    assert (tmp_path / ".claude" / "settings.json").read_bytes() == claude
    assert (tmp_path / ".codex" / "hooks.json").read_bytes() == codex
    assert capsys.readouterr().out.count("already registered; nothing changed") == 2


def test_codex_gets_pre_and_post_only(tmp_path: Path) -> None:
    assert _install(tmp_path, "--codex") == 0
    # Codex sends failed commands to PostToolUse; it has no PostToolUseFailure.
    assert read_json(tmp_path / ".codex" / "hooks.json") == {
        "hooks": {"PreToolUse": [CODEX_HOOK], "PostToolUse": [CODEX_HOOK]}
    }


def test_the_users_settings_and_hooks_are_kept_in_order(tmp_path: Path) -> None:
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "./audit.sh"}]}
    edit = {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "ruff format"}]}
    original = {
        "permissions": {"allow": ["Bash(git status)"]},
        "hooks": {
            "PreToolUse": [mine, edit],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        },
        "env": {"FOO": "1"},
    }
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(original, indent=4), encoding="utf-8")
    assert _install(tmp_path) == 0
    settings = read_json(path)
    assert list(settings) == ["permissions", "hooks", "env"]
    assert settings["permissions"] == original["permissions"]
    assert settings["env"] == original["env"]
    hooks = settings["hooks"]
    assert isinstance(hooks, dict)
    assert hooks["PreToolUse"] == [mine, edit, CLAUDE_HOOK]
    assert hooks["Stop"] == original["hooks"]["Stop"]  # type: ignore[index]  # a literal above
    assert hooks["PostToolUse"] == [CLAUDE_HOOK]


def test_an_existing_registration_inside_a_users_group_is_recognised(tmp_path: Path) -> None:
    shared = {
        "matcher": "Bash",
        "hooks": [
            {"type": "command", "command": "./audit.sh"},
            {"type": "command", "command": "lanes hook"},
        ],
    }
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {"PreToolUse": [shared]}}), encoding="utf-8")
    assert _install(tmp_path) == 0
    hooks = read_json(path)["hooks"]
    assert isinstance(hooks, dict)
    assert hooks["PreToolUse"] == [shared]
    assert hooks["PostToolUse"] == [CLAUDE_HOOK]


@pytest.mark.parametrize(
    "text",
    [
        "{ not json",
        "[" * 100_000,  # nested past json's decoder: a typed error, not a crash
        "[]",
        '{"hooks": []}',
        '{"hooks": {"PreToolUse": {"matcher": "Bash"}}}',
    ],
)
def test_a_malformed_file_is_an_error_and_is_never_overwritten(
    tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    assert _install(tmp_path) == 2
    assert path.read_text(encoding="utf-8") == text
    err = capsys.readouterr().err
    assert f"error: {path}" in err
    assert "hint: fix or move" in err


def test_a_malformed_codex_file_leaves_claude_untouched(tmp_path: Path) -> None:
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "hooks.json").write_text("{", encoding="utf-8")
    assert _install(tmp_path, "--codex") == 2
    assert not (tmp_path / ".claude").exists()


def test_root_must_be_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _install(tmp_path / "missing") == 2
    assert "is not a directory" in capsys.readouterr().err


def test_the_real_command_defaults_to_the_git_top_level(tmp_path: Path) -> None:
    project = git_repo(tmp_path / "p")
    (project / "src" / "deep").mkdir(parents=True)
    proc = subprocess.run(
        [*lanes_command(), "governor", "install"],
        cwd=project / "src" / "deep",
        env=clean_env(tmp_path / "s"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert (project / ".claude" / "settings.json").is_file()
    assert ".claude/settings.json: registered `lanes hook`" in proc.stdout
