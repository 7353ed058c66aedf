"""One walk up for pyproject.toml: the screen, the gate's settings and lanes.config agree."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lanes.config import find_pyproject
from lanes.governor.config_cache import _nearest_pyproject
from lanes.governor.screen.prescreen import pyprojects_above, walk_pyprojects

if TYPE_CHECKING:
    from pathlib import Path


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    (project / "pkg" / "pyproject.toml").mkdir(parents=True)  # a directory, not a config
    (project / "pyproject.toml").write_text("[tool.lanes]\n", encoding="utf-8")
    return project, project / "pkg"


def test_a_directory_named_pyproject_toml_is_no_config_anywhere(tmp_path: Path) -> None:
    project, inner = _tree(tmp_path)
    config = str(project / "pyproject.toml")
    assert find_pyproject(inner) == project / "pyproject.toml"
    nearest = _nearest_pyproject(str(inner))
    assert nearest is not None
    assert nearest[0] == config
    # The screen used to list the directory too, and then pass every command
    # under it to the full path (its config "could not be read").
    listed = pyprojects_above(str(inner))
    assert listed is not None
    assert [path for path, _stamp in listed] == [config]


def test_a_fifo_named_pyproject_toml_is_skipped_without_opening_it(tmp_path: Path) -> None:
    project, inner = _tree(tmp_path)
    (inner / "pyproject.toml").rmdir()
    os.mkfifo(inner / "pyproject.toml")
    found, complete = walk_pyprojects(str(inner))
    assert complete
    assert [path for path, _stamp in found] == [str(project / "pyproject.toml")]


def test_first_stops_at_the_nearest(tmp_path: Path) -> None:
    project, inner = _tree(tmp_path)
    (inner / "pyproject.toml").rmdir()
    (inner / "pyproject.toml").write_text("", encoding="utf-8")
    found, _ = walk_pyprojects(str(inner), first=True)
    assert [path for path, _stamp in found] == [str(inner / "pyproject.toml")]
    everything, _ = walk_pyprojects(str(inner))
    assert [path for path, _ in everything][:2] == [
        str(inner / "pyproject.toml"),
        str(project / "pyproject.toml"),
    ]
