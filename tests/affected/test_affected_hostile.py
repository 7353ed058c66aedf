"""``lanes affected`` over tracked files someone else wrote: bounded, never a crash.

RecursionError and MemoryError on hostile sources crashed the plan, and a test
file symlinked to ``/dev/zero`` got the process OOM-killed at 23.6 GB. Each is
now a file the graph cannot read, named in the plan (which fails open for it).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from lanes.affected.selfcheck import FILES
from lanes.cli import main
from tests.support.git import make_repo

if TYPE_CHECKING:
    from pathlib import Path

HOSTILE = {
    "pkg/deep_attributes.py": "x = a" + ".b" * 200_000 + "\n",
    "pkg/deep_sum.py": "x = " + "1+" * 200_000 + "1\n",
    "pkg/deep_unary.py": "x = " + "-" * 200_000 + "1\n",
}


def _bounded_memory() -> None:
    # 2 GiB of address space: an unbounded read fails fast instead of taking the machine.
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def _affected(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lanes", "affected", "--json"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        preexec_fn=_bounded_memory,  # a single-threaded test process
    )


@pytest.mark.integration
def test_hostile_sources_and_a_dev_zero_test_file_are_named_not_a_crash(tmp_path: Path) -> None:
    make_repo(tmp_path, {**FILES, **HOSTILE}, "base")
    # Untracked, so it is one of the changes the graph must read.
    (tmp_path / "tests" / "test_zero.py").symlink_to("/dev/zero")
    (tmp_path / "pkg" / "leaf.py").write_text("def f(x: int) -> int:\n    return x\n")
    for path in HOSTILE:  # changed too, so the graph must read them
        with (tmp_path / path).open("a", encoding="utf-8") as handle:
            handle.write("# touched\n")
    proc = _affected(tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    plan = json.loads(proc.stdout)
    text = json.dumps(plan)
    for path in [*HOSTILE, "tests/test_zero.py"]:
        assert path in text, path
    assert "not a regular file" in text
    assert (tmp_path / "tests" / "test_zero.py").is_symlink()


@pytest.mark.parametrize("base", ["--output=written-by-git.txt", "-p"])
def test_a_base_that_looks_like_an_option_is_not_a_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], base: str
) -> None:
    make_repo(tmp_path, FILES, "base")
    monkeypatch.chdir(tmp_path)
    assert main(["affected", f"--base={base}"]) == 2
    assert f"--base {base!r} is not a commit" in capsys.readouterr().err
    assert not (tmp_path / "written-by-git.txt").exists()
