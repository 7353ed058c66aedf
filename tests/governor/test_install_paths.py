"""``lanes governor install`` and the paths around it: a symlinked settings file or agent directory is refused, ``--absolute`` writes the
installed script's path into Claude Code's personal ``settings.local.json``
(never the committed ``settings.json``, never doubling a registration of
either file), a missing ``lanes`` on PATH is warned about, a FIFO is refused."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from lanes.cli import main
from tests.support.git import git_repo


def _install(root: Path, *extra: str) -> int:
    return main(["governor", "install", "--root", str(root), *extra])


def _commands(path: Path) -> list[str]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return [
        handler["command"]
        for groups in document["hooks"].values()
        for group in groups
        for handler in group["hooks"]
    ]


def test_a_symlinked_settings_file_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A link can point anywhere the user can write: install writes agent
    # settings inside the project only, and says what to do instead.
    shared = tmp_path / "dotfiles" / "claude-settings.json"
    shared.parent.mkdir()
    shared.write_text('{"model": "opus"}\n', encoding="utf-8")
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    link = project / ".claude" / "settings.json"
    link.symlink_to(shared)
    assert _install(project) == 2
    err = capsys.readouterr().err
    assert f"{str(link)!r} is a symlink (to {str(shared)!r})" in err
    assert "replace" in err  # the hint
    assert link.is_symlink()
    assert shared.read_text(encoding="utf-8") == '{"model": "opus"}\n'


@pytest.mark.parametrize("agent_dir", [".claude", ".codex"])
def test_a_symlinked_agent_directory_is_refused_before_any_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], agent_dir: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    (project / agent_dir).symlink_to(elsewhere, target_is_directory=True)
    assert _install(project, "--codex") == 2
    err = capsys.readouterr().err
    assert f"{str(project / agent_dir)!r} is a symlink" in err
    assert list(elsewhere.iterdir()) == []
    # All or nothing: the other agent's file was not written either.
    assert not (project / ".claude" / "settings.json").is_file() or agent_dir == ".claude"
    assert not (project / ".codex").is_dir() or agent_dir == ".codex"


SHARED = Path(".claude") / "settings.json"
LOCAL = Path(".claude") / "settings.local.json"


def test_absolute_writes_the_installed_script_into_the_personal_settings_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Regression: the absolute path went to the committed settings.json, so a
    # teammate's agent ran a hook that does not exist on their machine.
    assert _install(tmp_path, "--absolute") == 0
    out = capsys.readouterr().out
    assert not (tmp_path / SHARED).exists()
    commands = _commands(tmp_path / LOCAL)
    assert len(commands) == 3
    script = shlex.split(commands[0])[0]
    assert Path(script).is_absolute()
    assert Path(script).name == "lanes"
    assert os.access(script, os.X_OK)
    assert Path(script).parent == Path(sys.executable).parent
    assert ".claude/settings.local.json: registered" in out
    assert _install(tmp_path, "--absolute") == 0
    assert "already registered; nothing changed" in capsys.readouterr().out
    assert len(_commands(tmp_path / LOCAL)) == 3


def test_an_absolute_path_committed_by_an_older_install_moves_to_the_personal_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = str(Path(sys.executable).parent / "lanes")
    (tmp_path / ".claude").mkdir()
    legacy = {
        "model": "opus",
        "hooks": {
            event: [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": f"{script} hook"}]}
            ]
            for event in ("PreToolUse", "PostToolUse", "PostToolUseFailure")
        },
    }
    (tmp_path / SHARED).write_text(json.dumps(legacy), encoding="utf-8")
    assert _install(tmp_path, "--absolute") == 0
    assert "removed this machine's `lanes hook` path" in capsys.readouterr().out
    shared = json.loads((tmp_path / SHARED).read_text(encoding="utf-8"))
    assert shared["model"] == "opus"  # the rest of the team's file is kept
    assert _commands(tmp_path / SHARED) == []
    assert _commands(tmp_path / LOCAL) == [f"{shlex.quote(script)} hook"] * 3


def test_a_registration_in_either_file_is_never_doubled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Claude Code runs the hooks of both files: two registrations would run
    # the hook twice per command and count everything twice.
    assert _install(tmp_path) == 0  # the team's portable, bare registration
    assert _install(tmp_path, "--absolute") == 0
    out = capsys.readouterr().out
    assert "is registered in .claude/settings.json; not registered twice" in out
    assert _commands(tmp_path / SHARED) == ["lanes hook"] * 3
    assert not (tmp_path / LOCAL).exists()
    # And the other way round: a personal absolute one stands for the bare one.
    other = tmp_path / "other"
    other.mkdir()
    assert _install(other, "--absolute") == 0
    assert _install(other) == 0
    assert "is registered in .claude/settings.local.json; not registered twice" in (
        capsys.readouterr().out
    )
    assert not (other / SHARED).exists()
    assert len(_commands(other / LOCAL)) == 3


def test_a_symlinked_personal_settings_file_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "dotfiles.json"
    elsewhere.write_text("{}\n", encoding="utf-8")
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / LOCAL).symlink_to(elsewhere)
    assert _install(project, "--absolute") == 2
    assert f"{str(project / LOCAL)!r} is a symlink" in capsys.readouterr().err
    assert elsewhere.read_text(encoding="utf-8") == "{}\n"
    # Checked before any write: the shared file was not written either.
    assert not (project / SHARED).exists()


def test_an_unignored_personal_file_is_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git_repo(tmp_path)
    assert _install(tmp_path, "--absolute") == 0
    assert "settings.local.json is not git-ignored" in capsys.readouterr().err
    other = tmp_path / "ignored"
    git_repo(other)
    (other / ".gitignore").write_text(".claude/settings.local.json\n", encoding="utf-8")
    assert _install(other, "--absolute") == 0
    assert "git-ignored" not in capsys.readouterr().err


def test_install_warns_when_lanes_is_not_on_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert _install(tmp_path) == 0
    err = capsys.readouterr().err
    assert "warning: `lanes` is not on PATH" in err
    assert "--absolute" in err


def test_a_fifo_as_settings_is_refused_without_blocking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".claude").mkdir()
    os.mkfifo(tmp_path / ".claude" / "settings.json")
    assert _install(tmp_path) == 2
    err = capsys.readouterr().err
    assert "not a regular file" in err
    assert "hint: " in err
