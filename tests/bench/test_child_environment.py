"""A measured child process runs from bytecode, as an installed lanekit does,
whatever the caller's environment says.

This machine's sandbox sets ``PYTHONDONTWRITEBYTECODE=1``. Inherited by the
hook children of ``hook-large-commands`` (a regular install by uv, which
compiles nothing), every one of them compiled the classifier from source:
120-190 ms above the interpreter for each shape in the main job, failing the
100 ms goal, against 25-50 ms for the same commands run from bytecode.
"""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

from lanes.bench.registry import child_environment

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def test_a_measured_child_writes_bytecode_though_the_caller_forbids_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    # A private cache prefix: the child's bytecode lands here, or nowhere.
    env = child_environment() | {"PYTHONPYCACHEPREFIX": str(tmp_path)}
    subprocess.run(
        [sys.executable, "-c", "import lanes.governor.classify.shell_lexer"], env=env, check=True
    )
    assert [path.name for path in tmp_path.rglob("shell_lexer*.pyc")]


def test_the_variables_a_benchmark_drops_stay_out_and_the_rest_pass_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LANES_DEBUG", "1")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", "/somewhere")
    monkeypatch.setenv("LANES_BENCH_KEPT", "kept")
    env = child_environment(drop=("LANES_DEBUG",), drop_prefixes=("CLAUDE",))
    assert "LANES_DEBUG" not in env
    assert not [name for name in env if name.startswith("CLAUDE")]
    assert env["LANES_BENCH_KEPT"] == "kept"
