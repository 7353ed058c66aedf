"""``lanes slow pin``/``unpin`` write the committed pin file inside the project only.

A symlinked ``baselines/`` made ``lanes slow pin`` write through it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.cli import main

if TYPE_CHECKING:
    from pathlib import Path

PIN = [
    "tests/test_a.py::test_slow",
    "--ceiling",
    "2",
    "--reason",
    "spawns a server",
    "--tracking",
    "#7",
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "p"\n', encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def test_pin_writes_the_file_inside_the_project(project: Path) -> None:
    assert main(["slow", "pin", *PIN]) == 0
    assert "test_slow" in (project / "baselines" / "slow-tests.json").read_text(encoding="utf-8")
    assert main(["slow", "unpin", PIN[0]]) == 0


@pytest.mark.parametrize("verb", ["pin", "unpin"])
def test_a_symlinked_baselines_dir_is_refused(
    tmp_path: Path, project: Path, capsys: pytest.CaptureFixture[str], verb: str
) -> None:
    # A real pin file, pinned in the project and then moved out behind a link.
    assert main(["slow", "pin", *PIN]) == 0
    outside = tmp_path / "outside"
    (project / "baselines").rename(outside)
    (project / "baselines").symlink_to(outside)
    theirs = (outside / "slow-tests.json").read_text(encoding="utf-8")
    capsys.readouterr()
    args = PIN if verb == "pin" else PIN[:1]
    assert main(["slow", verb, *args]) == 2
    err = capsys.readouterr().err
    assert "outside the project" in err
    assert "hint: " in err
    assert (outside / "slow-tests.json").read_text(encoding="utf-8") == theirs
    assert sorted(p.name for p in outside.iterdir()) == ["slow-tests.json"]
