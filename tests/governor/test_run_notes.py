"""The note of the tree a run started on, from PreToolUse to its post event.

- One note per (session, command): two commands of one session, or one
  command of two sessions, never share a note (the later start would
  overwrite the earlier one's tree, and a result would be recorded against a
  tree the run never saw).
- A note is read once: taking it removes it.
- A note that is not one (damaged, or no file at all in its place) reads as
  no note, so the run records nothing; one that cannot be read is left alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.ledger import TreeState
from lanes.governor.state.run_notes import note_start, run_path, take_start

TREE = TreeState("a" * 40, "clean")


def test_each_command_of_each_session_has_its_own_note(tmp_path: Path) -> None:
    paths = {
        run_path(str(tmp_path), session, command)
        for session in ("session-a", "session-b")
        for command in ("pytest tests/unit", "pytest tests/integration")
    }
    assert len(paths) == 4
    assert all(Path(p).parent == tmp_path for p in paths)


def test_the_post_event_finds_the_note_of_its_own_start(tmp_path: Path) -> None:
    first = run_path(str(tmp_path), "session-a", "pytest tests/unit")
    assert run_path(str(tmp_path), "session-a", "pytest tests/unit") == first


def test_a_note_gives_back_its_tree_and_time_once(tmp_path: Path) -> None:
    env = OSEnvironment()
    path = run_path(str(tmp_path), "session-a", "pytest tests/unit")
    before = env.now()
    note_start(env, path, TREE, ["unit"])
    after = env.now()
    taken = take_start(env, path)
    assert taken is not None
    tree, started = taken
    assert tree == TREE
    assert started is not None
    assert before <= started <= after
    assert not Path(path).exists()
    assert take_start(env, path) is None


def test_two_starts_of_one_session_keep_both_trees(tmp_path: Path) -> None:
    env = OSEnvironment()
    unit = run_path(str(tmp_path), "session-a", "pytest tests/unit")
    other = run_path(str(tmp_path), "session-a", "pytest tests/integration")
    note_start(env, unit, TREE, ["unit"])
    note_start(env, other, TreeState("b" * 40, "clean"), ["integration"])
    taken = take_start(env, unit)
    assert taken is not None
    assert taken[0] == TREE


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        '["a list"]',
        '{"tree": "not an object"}',
        '{"tree": {"dirty_digest": "clean"}}',
        '{"tree": {"git_head": "' + "a" * 40 + '"}}',
    ],
)
def test_a_damaged_note_reads_as_no_note_and_is_removed(tmp_path: Path, text: str) -> None:
    path = tmp_path / "run-note.json"
    path.write_text(text)
    assert take_start(OSEnvironment(), str(path)) is None
    assert not path.exists()


def test_a_note_that_cannot_be_read_is_no_note_and_left_alone(tmp_path: Path) -> None:
    # A directory where the note should be: reading fails, and so would removing it.
    path = tmp_path / "run-note.json"
    path.mkdir()
    assert take_start(OSEnvironment(), str(path)) is None
    assert path.is_dir()


def test_a_note_without_a_time_gives_no_time(tmp_path: Path) -> None:
    path = tmp_path / "run-note.json"
    path.write_text('{"tree": {"git_head": "' + "a" * 40 + '", "dirty_digest": "clean"}}')
    assert take_start(OSEnvironment(), str(path)) == (TREE, None)
