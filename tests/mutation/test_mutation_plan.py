"""matrix and affected: what CI mutates."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.config import parse_config
from lanes.errors import UsageError
from lanes.mutation.plan import affected_modules, changed_files, matrix, select_modules
from tests.support.git import git

if TYPE_CHECKING:
    from pathlib import Path

REGISTRY = {
    "canary": "lock",
    "modules": {
        "lock": {"paths": ["pkg/lock.py"], "tests": ["tests/test_lock.py"], "shards": 2},
        "ledger": {"paths": ["pkg/ledger.py"], "tests": ["tests/ledger/", "-k", "fast"]},
    },
}


def test_matrix_has_one_entry_per_module_and_shard() -> None:
    config = parse_config({"mutation": REGISTRY}, root=__import__("pathlib").Path("/p"))
    modules = select_modules(config.mutation, [])
    assert matrix(modules) == {
        "include": [
            {"module": "lock", "shard": "1/2"},
            {"module": "lock", "shard": "2/2"},
            {"module": "ledger", "shard": "1/1"},
        ]
    }
    assert matrix(modules, whole=True)["include"][1] == {"module": "ledger", "shard": "1/1"}
    with pytest.raises(UsageError, match="'lok' is not in the registry"):
        select_modules(config.mutation, ["lok"])


def test_affected_reads_the_diff_and_falls_back_to_the_canary(tmp_path: Path) -> None:
    config = parse_config({"mutation": REGISTRY}, root=tmp_path)
    for name in (
        "pkg/lock.py",
        "pkg/ledger.py",
        "tests/ledger/test_a.py",
        "README.md",
        "pyproject.toml",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n", encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "init")

    def touch(name: str) -> list[str]:
        (tmp_path / name).write_text(
            (tmp_path / name).read_text(encoding="utf-8") + "y = 2\n", encoding="utf-8"
        )
        names, _ = affected_modules(config, changed_files(tmp_path, "HEAD"))
        git(tmp_path, "checkout", "-q", "--", ".")
        return names

    assert touch("README.md") == []
    assert touch("tests/ledger/test_a.py") == ["ledger"]
    assert touch("pkg/lock.py") == ["lock"]
    assert touch("pyproject.toml") == ["lock"]  # only the tooling changed: the canary
    with pytest.raises(UsageError, match="--base 'nope'"):
        changed_files(tmp_path, "nope")


@pytest.mark.parametrize("base", ["--output=written-by-git.txt", "-p"])
def test_a_base_that_looks_like_an_option_never_reaches_git_as_one(
    tmp_path: Path, base: str
) -> None:
    # `lanes mutation affected --base=--output=FILE` made git write FILE
    # and answered "no modules" (exit 0).
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "init")
    (tmp_path / "a.py").write_text("x = 2\n", encoding="utf-8")
    with pytest.raises(UsageError, match=f"--base {base!r}"):
        changed_files(tmp_path, base)
    assert not (tmp_path / "written-by-git.txt").exists()
