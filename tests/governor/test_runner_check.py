"""Where the governor's pytest plugin cannot load, `lanes governor status`
says so and `lanes governor install` tells how to add it."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from lanes.cli import main
from tests.support.git import make_repo

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def _project_without_lanekit(root: Path) -> Path:
    """A project whose .venv is a python without site-packages: pytest there
    would never see lanekit's pytest11 entry points."""
    make_repo(root, {"pyproject.toml": "[project]\nname = 'x'\n"})
    python = root / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n', encoding="utf-8")
    python.chmod(0o755)
    return root


def test_status_says_where_the_plugin_cannot_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project_without_lanekit(tmp_path / "repo")
    monkeypatch.chdir(root)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    assert main(["governor", "status"]) == 0
    out = capsys.readouterr().out
    assert f"NOT installed            {root}/.venv/bin/python — .venv/" in out
    assert f"loads                    {sys.executable}" in out
    assert "the hook's shell judgement is the only gate for pytest" in out


def test_install_tells_how_to_add_the_plugin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project_without_lanekit(tmp_path / "repo")
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:lanes.governor\n")
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    assert main(["governor", "install", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert f"add it: {root}/.venv/bin/python -m pip install lanekit" in out
    assert "DISABLED                 pytest.ini says -p no:lanes.governor" in out


def test_the_environment_can_disable_it_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    make_repo(tmp_path / "repo", {"pyproject.toml": "[project]\nname = 'x'\n"})
    assert main(["governor", "install", "--root", str(tmp_path / "repo")]) == 0
    assert "PYTEST_DISABLE_PLUGIN_AUTOLOAD is set" in capsys.readouterr().out
