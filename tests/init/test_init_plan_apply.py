"""Applying ``lanes init``'s plan: the diff it shows, the targets it refuses, all or nothing.

These call the plan module directly (the CLI's tests in test_init.py and
test_init_boundaries.py drive the same code through ``lanes init``): a
write that fails half-way puts back every file written before it, and each
refusal names the file, what is wrong with it and the fix.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lanes.errors import StateError
from lanes.init.plan import FileChange, apply, check_targets

APPLY_HINT = (
    "fix the path (a symlinked directory, permissions, free space) and run it again; "
    "the files written before it were restored"
)
REFUSE_HINT = (
    "lanes init writes only inside the project: replace the symlink with a real directory "
    "(or move the file aside), then run it again; nothing was written"
)


def test_a_created_file_diffs_from_dev_null_line_by_line() -> None:
    change = FileChange(Path("ci/lanes.yml"), None, "one\ntwo\n", "create")
    assert change.diff() == "--- /dev/null\n+++ b/ci/lanes.yml\n@@ -0,0 +1,2 @@\n+one\n+two\n"


def test_an_updated_file_diffs_from_its_current_text() -> None:
    change = FileChange(Path("noxfile.py"), "keep\nold\n", "keep\nnew\n", "update", "--force")
    assert change.diff() == (
        "--- a/noxfile.py\n+++ b/noxfile.py\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n"
    )


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\n", encoding="utf-8")
    return root


def test_apply_writes_creates_and_updates_and_leaves_the_rest(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "kept.py").write_text("# theirs\n", encoding="utf-8")
    plan = [
        FileChange(Path("pyproject.toml"), "[project]\n", "[project]\n[tool.lanes]\n", "update"),
        FileChange(Path(".github/workflows/lanes.yml"), None, "on: push\n", "create"),
        FileChange(Path("kept.py"), "# theirs\n", "# ours\n", "kept"),
        FileChange(Path("same.txt"), "x\n", "x\n", "unchanged"),
    ]
    apply(root, plan)
    assert (root / "pyproject.toml").read_text(encoding="utf-8") == "[project]\n[tool.lanes]\n"
    assert (root / ".github/workflows/lanes.yml").read_text(encoding="utf-8") == "on: push\n"
    assert (root / "kept.py").read_text(encoding="utf-8") == "# theirs\n"
    assert not (root / "same.txt").exists()


def _failing_plan(last: FileChange) -> list[FileChange]:
    return [
        FileChange(Path("pyproject.toml"), "[project]\n", "[project]\n[tool.lanes]\n", "update"),
        FileChange(Path("noxfile.py"), None, "import nox\n", "create"),
        last,
    ]


def test_a_write_that_fails_puts_back_every_file_written_before_it(tmp_path: Path) -> None:
    root = _project(tmp_path)
    # A directory where init writes a file: the rename onto it fails.
    (root / "envelopes" / "README.md").mkdir(parents=True)
    last = FileChange(Path("envelopes/README.md"), None, "# envelopes/\n", "create")
    with pytest.raises(StateError) as caught:
        apply(root, _failing_plan(last))
    target = root / "envelopes" / "README.md"
    assert caught.value.message.startswith(
        f"lanes init could not write {str(target)!r} (it failed: [Errno 21] Is a directory"
    )
    assert caught.value.hint == APPLY_HINT
    # The update is undone to the user's text, the created file is gone.
    assert (root / "pyproject.toml").read_text(encoding="utf-8") == "[project]\n"
    assert not (root / "noxfile.py").exists()


def test_a_write_that_would_leave_the_project_is_named_so(tmp_path: Path) -> None:
    root = _project(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".github").symlink_to(outside)  # swapped in after the targets were checked
    last = FileChange(Path(".github/dependabot.yml"), None, "version: 2\n", "create")
    with pytest.raises(StateError) as caught:
        apply(root, _failing_plan(last))
    target = root / ".github" / "dependabot.yml"
    assert caught.value.message.startswith(
        f"lanes init could not write {str(target)!r} (it would leave the project: "
    )
    assert "'.github' under" in caught.value.message
    assert list(outside.iterdir()) == []
    assert (root / "pyproject.toml").read_text(encoding="utf-8") == "[project]\n"
    assert not (root / "noxfile.py").exists()


def test_the_targets_check_names_a_symlinked_directory_and_where_it_points(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".github").mkdir()
    (root / ".github" / "workflows").symlink_to(outside)
    with pytest.raises(StateError) as caught:
        check_targets(root, [Path("noxfile.py"), Path(".github/workflows/lanes-pr.yml")])
    link = root / ".github" / "workflows"
    assert caught.value.message == (
        f"lanes init will not write {str(link / 'lanes-pr.yml')!r}: "
        f"{str(link)!r} is a symlink to {str(outside)!r}"
    )
    assert caught.value.hint == REFUSE_HINT


def test_the_targets_check_names_a_file_where_a_directory_must_be(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / ".github").write_text("", encoding="utf-8")
    with pytest.raises(StateError) as caught:
        check_targets(root, [Path(".github/workflows/lanes-pr.yml")])
    assert caught.value.message == (
        f"lanes init will not write {str(root / '.github/workflows/lanes-pr.yml')!r}: "
        f"{str(root / '.github')!r} is not a directory"
    )


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_the_targets_check_refuses_a_target_that_is_not_a_regular_file(
    tmp_path: Path, kind: str
) -> None:
    root = _project(tmp_path)
    target = root / "noxfile.py"
    if kind == "directory":
        target.mkdir()
    else:
        os.mkfifo(target)
    with pytest.raises(StateError) as caught:
        check_targets(root, [Path("noxfile.py")])
    assert caught.value.message == (
        f"lanes init will not write {str(target)!r}: it is not a regular file"
    )
    assert caught.value.hint == REFUSE_HINT


def test_the_targets_check_lets_init_replace_a_symlinked_file_and_create_directories(
    tmp_path: Path,
) -> None:
    # A link at the final name is replaced by the write, never followed;
    # directories that do not exist yet are created by it.
    root = _project(tmp_path)
    (root / "noxfile.py").symlink_to(tmp_path / "elsewhere.py")
    check_targets(root, [Path("noxfile.py"), Path(".github/workflows/lanes-pr.yml")])


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into any directory")
def test_the_targets_check_refuses_a_directory_it_cannot_write(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / ".github").mkdir(mode=0o500)
    try:
        with pytest.raises(StateError) as caught:
            check_targets(root, [Path(".github/workflows/lanes-pr.yml")])
    finally:
        (root / ".github").chmod(0o700)
    assert caught.value.message == (
        f"lanes init will not write {str(root / '.github/workflows/lanes-pr.yml')!r}: "
        f"{str(root / '.github')!r} is not writable"
    )
