"""The plan's directory is an artifact someone else wrote: read under the registry's names, verified."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from lanes.config import parse_config
from lanes.mutation.planfile import (
    PlanError,
    module_dir,
    read_plan,
    restore_files,
    save_files,
    tree_differences,
)
from tests.mutation.mutation_fixtures import MUTATED, ORIGINAL, shard_data, write_shard_envelope

MODULE = parse_config(
    {"mutation": {"modules": {"calc": {"paths": ["pkg/calc.py"]}}}}, root=Path("/project")
).mutation.modules["calc"]


def _work_copy(root: Path) -> Path:
    """A work copy as mutmut leaves it after generating and mapping."""
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "calc.py").write_text(ORIGINAL, encoding="utf-8")
    mutants = root / "mutants" / "pkg"
    mutants.mkdir(parents=True)
    (mutants / "calc.py").write_text(MUTATED, encoding="utf-8")
    (mutants / "calc.py.meta").write_text('{"exit_code_by_key": {}}', encoding="utf-8")
    (root / "mutants" / "mutmut-stats.json").write_text("{}", encoding="utf-8")
    return root


def test_saved_files_come_back_verified_and_newer_than_their_source(tmp_path: Path) -> None:
    files = save_files(_work_copy(tmp_path / "made"), tmp_path / "plan", MODULE)
    assert sorted(files) == ["mutmut-stats.json", "pkg/calc.py", "pkg/calc.py.meta"]
    assert files["pkg/calc.py"] == "sha256:" + hashlib.sha256(MUTATED.encode()).hexdigest()
    shard = tmp_path / "shard"
    (shard / "pkg").mkdir(parents=True)
    (shard / "pkg" / "calc.py").write_text(ORIGINAL, encoding="utf-8")
    os.utime(shard / "pkg" / "calc.py", (4e9, 4e9))  # a source dated in the future
    restore_files(tmp_path / "plan", MODULE, files, shard)
    assert (shard / "mutants" / "pkg" / "calc.py").read_text(encoding="utf-8") == MUTATED
    # mutmut regenerates a file whose mutants are not newer than the source.
    assert (shard / "mutants" / "pkg" / "calc.py").stat().st_mtime > 4e9


def test_names_the_registry_does_not_give_are_refused(tmp_path: Path) -> None:
    files = save_files(_work_copy(tmp_path / "made"), tmp_path / "plan", MODULE)
    with pytest.raises(PlanError, match=r"names \['\.\./\.\./etc/passwd'\]") as caught:
        restore_files(
            tmp_path / "plan", MODULE, {**files, "../../etc/passwd": files["pkg/calc.py"]}, tmp_path
        )
    assert "make the plan again" in caught.value.hint
    del files["mutmut-stats.json"]
    with pytest.raises(PlanError, match=r"lacks \['mutmut-stats.json'\]"):
        restore_files(tmp_path / "plan", MODULE, files, tmp_path)


def test_a_linked_file_is_not_followed(tmp_path: Path) -> None:
    files = save_files(_work_copy(tmp_path / "made"), tmp_path / "plan", MODULE)
    stats = tmp_path / "plan" / module_dir("calc") / "mutants" / "mutmut-stats.json"
    stats.unlink()
    stats.symlink_to(tmp_path / "made" / "mutants" / "mutmut-stats.json")
    with pytest.raises(PlanError, match=r"mutmut-stats\.json' cannot be read"):
        restore_files(tmp_path / "plan", MODULE, files, tmp_path / "shard")


def test_a_linked_directory_leading_out_of_the_plan_is_refused(tmp_path: Path) -> None:
    files = save_files(_work_copy(tmp_path / "made"), tmp_path / "plan", MODULE)
    (tmp_path / "plan" / module_dir("calc")).rename(tmp_path / "elsewhere")
    (tmp_path / "plan" / module_dir("calc")).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(PlanError, match="outside the plan directory"):
        restore_files(tmp_path / "plan", MODULE, files, tmp_path / "shard")


def test_a_module_directory_is_safe_for_any_registry_key() -> None:
    assert module_dir("lock") == "lock-" + hashlib.sha256(b"lock").hexdigest()[:8]
    odd = module_dir("../../x y")
    assert "/" not in odd
    assert not odd.startswith(".")
    assert module_dir("a/b") != module_dir("a_b")  # the hash keeps them apart


def test_a_shard_envelope_or_a_missing_plan_is_not_a_plan(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match=r"no mutation plan at"):
        read_plan(tmp_path)
    write_shard_envelope(tmp_path / "plan.json", [shard_data("calc", "1/1", [], generated=0)])
    with pytest.raises(PlanError, match=r"is not a mutation plan .* kind 'shard'"):
        read_plan(tmp_path)


def test_tree_differences_name_the_files() -> None:
    planned = {"a.py": "1", "b.py": "2", "gone.py": "3"}
    assert tree_differences(planned, planned) == ""
    assert tree_differences(planned, {"a.py": "1", "b.py": "9", "new.py": "4"}) == (
        "1 changed: b.py; 1 not in the plan: new.py; 1 missing: gone.py"
    )
