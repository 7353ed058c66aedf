"""``lanes governor install`` and the paths around it: a symlinked settings file or agent directory is refused, ``--absolute`` writes the
installed script's path (replacing a bare registration, never doubling it),
a missing ``lanes`` on PATH is warned about, a FIFO is refused."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from lanes.cli import main


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


def test_absolute_writes_the_installed_script_and_replaces_a_bare_registration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _install(tmp_path) == 0
    assert _install(tmp_path, "--absolute") == 0
    capsys.readouterr()
    commands = _commands(tmp_path / ".claude" / "settings.json")
    assert len(commands) == 3  # rewritten in place, not registered twice
    script = shlex.split(commands[0])[0]
    assert Path(script).is_absolute()
    assert Path(script).name == "lanes"
    assert os.access(script, os.X_OK)
    assert Path(script).parent == Path(sys.executable).parent
    assert _install(tmp_path, "--absolute") == 0
    assert "already registered; nothing changed" in capsys.readouterr().out


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
