"""write_atomic_under: a write inside a project tree stays inside it.

a symlinked ``envelopes/``, ``.github/``, ``.claude/`` or
``baselines/`` made ``lanes init``, ``lanes report`` and ``lanes slow pin``
write through it (``init --force`` overwrote an outside ``README.md``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes._atomic import OutsideTreeError, write_atomic_under

if TYPE_CHECKING:
    from pathlib import Path


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "README.md").write_text("theirs\n", encoding="utf-8")
    return project, outside


def test_a_write_creates_missing_directories_inside_the_tree(tmp_path: Path) -> None:
    project, _ = _tree(tmp_path)
    write_atomic_under(project, project / ".github" / "workflows" / "ci.yml", "on: push\n")
    assert (project / ".github" / "workflows" / "ci.yml").read_text() == "on: push\n"
    assert sorted(p.name for p in (project / ".github" / "workflows").iterdir()) == [
        "ci.yml"
    ]  # no temp left


@pytest.mark.parametrize("depth", [1, 2])
def test_a_symlinked_directory_on_the_way_down_is_refused(tmp_path: Path, depth: int) -> None:
    project, outside = _tree(tmp_path)
    if depth == 1:
        (project / "envelopes").symlink_to(outside)
        target = project / "envelopes" / "README.md"
    else:
        (project / ".github").mkdir()
        (project / ".github" / "workflows").symlink_to(outside)
        target = project / ".github" / "workflows" / "README.md"
    with pytest.raises(OutsideTreeError):
        write_atomic_under(project, target, "ours\n")
    assert (outside / "README.md").read_text() == "theirs\n"
    assert sorted(p.name for p in outside.iterdir()) == ["README.md"]


def test_a_symlink_at_the_file_itself_is_replaced_not_followed(tmp_path: Path) -> None:
    project, outside = _tree(tmp_path)
    (project / "README.md").symlink_to(outside / "README.md")
    write_atomic_under(project, project / "README.md", "ours\n")
    assert (outside / "README.md").read_text() == "theirs\n"
    assert not (project / "README.md").is_symlink()
    assert (project / "README.md").read_text() == "ours\n"


@pytest.mark.parametrize("relative", ["../outside/README.md", "envelopes/../../outside/README.md"])
def test_a_path_that_climbs_out_is_refused(tmp_path: Path, relative: str) -> None:
    project, outside = _tree(tmp_path)
    with pytest.raises(OutsideTreeError, match="is not inside"):
        write_atomic_under(project, project / relative, "ours\n")
    assert (outside / "README.md").read_text() == "theirs\n"


def test_a_file_where_a_directory_goes_is_refused(tmp_path: Path) -> None:
    project, _ = _tree(tmp_path)
    (project / "baselines").write_text("", encoding="utf-8")
    with pytest.raises(OutsideTreeError, match="not a directory"):
        write_atomic_under(project, project / "baselines" / "timing.json", "{}")
