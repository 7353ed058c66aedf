"""``lanes governor install`` and the paths around it: a symlinked settings file stays a link, ``--absolute`` writes the
installed script's path (replacing a bare registration, never doubling it),
a missing ``lanes`` on PATH is warned about, a FIFO is refused."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lanes.cli import main

if TYPE_CHECKING:
    import pytest


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


def test_a_symlinked_settings_file_stays_a_link_and_its_target_is_updated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "dotfiles" / "claude-settings.json"
    shared.parent.mkdir()
    shared.write_text('{"model": "opus"}\n', encoding="utf-8")
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    link = project / ".claude" / "settings.json"
    link.symlink_to(shared)
    assert _install(project) == 0
    capsys.readouterr()
    assert link.is_symlink()
    document = json.loads(shared.read_text(encoding="utf-8"))
    assert document["model"] == "opus"
    assert _commands(shared) == ["lanes hook"] * 3


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
