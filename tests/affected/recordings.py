"""Recorded planted projects for the map's tests.

A recording is a real pytest run of the planted project under the recorder,
the expensive part of these tests: a module records once and each test
changes its own copy.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from typing import TYPE_CHECKING, Any

import pytest

from lanes.affected.testmap import read_map
from lanes.cli import main
from tests.support.git import make_repo

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from lanes.affected.testmap import TestMap

# The planted suites use no Hypothesis, and its pytest plugin imports the whole
# package for each run's terminal summary (~0.3 s of CPU per pytest process:
# the recording, every suite `--run` and `--recall` starts, xdist's workers).
NO_HYPOTHESIS = "-p no:hypothesispytest"


def record_once(root: Path, files: dict[str, str], addopts: str = NO_HYPOTHESIS) -> str:
    """A real ``lanes affected --record`` of ``files`` committed at ``root``; what it printed."""
    make_repo(root, files, "base")
    out = io.StringIO()
    # Module scope has no capfd: the lane's own lines are Python prints.
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(out):
        patch.chdir(root)
        patch.setenv("PYTEST_ADDOPTS", addopts)
        assert main(["affected", "--record"]) == 0
    return out.getvalue()


def own_copy(recording: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The recorded repository (work tree, .git, envelopes/ and its map) as this test's own."""
    root = tmp_path / "project"
    shutil.copytree(recording, root, symlinks=True)
    monkeypatch.chdir(root)
    return root


def recorded_map(root: Path) -> TestMap:
    """The map a recording at ``root`` wrote (``envelopes/affected-map.json``), read and validated."""
    test_map = read_map(root / "envelopes/affected-map.json")
    assert test_map is not None
    return test_map


def executed(test_map: TestMap, test_id: str) -> set[tuple[str, str]]:
    """(file, qualname) of each function the test ``test_id`` executed, as the map records it."""
    nodes = test_map.document["nodes"]
    (entry,) = (t for t in test_map.document["tests"] if t["id"] == test_id)
    return {(nodes[i][0], nodes[i][1]) for i in entry["nodes"]}


def changed_plan(
    root: Path, capsys: pytest.CaptureFixture[str], path: str, old: str, new: str, *args: str
) -> dict[str, Any]:
    """The JSON plan at ``root`` with ``old`` replaced by ``new`` in ``path``, the file restored after."""
    before = (root / path).read_text()
    (root / path).write_text(before.replace(old, new))
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(root)
            capsys.readouterr()
            assert main(["affected", "--json", *args]) == 0
            plan = json.loads(capsys.readouterr().out)
    finally:
        (root / path).write_text(before)
    assert isinstance(plan, dict)
    return plan


@contextlib.contextmanager
def edited_map(root: Path, edit: Callable[[dict[str, Any]], None]) -> Iterator[None]:
    """The recorded map at ``root`` with ``edit`` applied to its document
    inside the block (an older version, a field someone else wrote), restored after."""
    path = root / "envelopes/affected-map.json"
    saved = path.read_text()
    document = json.loads(saved)
    edit(document)
    path.write_text(json.dumps(document))
    try:
        yield
    finally:
        path.write_text(saved)


def selected_reasons(plan: dict[str, Any]) -> dict[str, str]:
    """Test id (a whole file: its path) -> the reasons a JSON plan selects it by."""
    found: dict[str, str] = {}
    for test in plan["tests"]:
        nodes = test.get("nodes")
        if not nodes:
            found[test["file"]] = "; ".join(r["detail"] for r in test["reasons"])
        for node in nodes or ():
            found[node["id"]] = "; ".join(r["detail"] for r in node["reasons"])
    return found
