"""A fuzz input read from a file is data: it never writes outside the worker's scratch.

a committed ``baselines/fuzz-regressions.json`` entry for the
built-in ``state-files`` target named a user file by an absolute path (or with
``..``); a plain ``pytest`` truncated that file to 65 MiB of NULs and said
"passed". A corpus entry or a ``--input-file`` artifact is now checked against
what the target's strategy could have generated before any worker sees it, the
built-in targets replay in a user's project only when asked, and a plant is
made only inside the worker's scratch directory.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

LANES = str(Path(sys.executable).with_name("lanes"))
PRECIOUS = "the user's own file\n"


def _env() -> dict[str, str]:
    blocked = ("PYTHONPATH", "GITHUB_", "LANES_", "PYTEST_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(blocked)}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _project(root: Path, *, name: str = "victim") -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "{name}"\nversion = "0.1"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        encoding="utf-8",
    )
    (root / "tests" / "test_ok.py").write_text("def test_ok():\n    pass\n", encoding="utf-8")
    return root


def _hostile_inputs(outside: Path) -> list[list[object]]:
    return [
        [str(outside), "oversized", 3],  # absolute: `directory / name` is `name`
        ["../../../../../../../../.." + str(outside), "text", 5],
        ["verify-ledger.json/../../x", "deep", 2],
    ]


def _corpus(root: Path, inputs: list[list[object]], target: str = "state-files") -> None:
    entries = [
        {"id": f"evil{index}", "target": target, "kind": "untyped", "note": "", "input": value}
        for index, value in enumerate(inputs)
    ]
    document = {"format": "lanekit.fuzz-regressions", "version": 1, "entries": entries}
    (root / "baselines").mkdir(exist_ok=True)
    (root / "baselines" / "fuzz-regressions.json").write_text(
        json.dumps(document), encoding="utf-8"
    )


def test_a_corpus_entry_naming_an_outside_file_in_a_users_project_leaves_it_untouched(
    tmp_path: Path,
) -> None:
    # A built-in target is not the user's code: not replayed unless asked.
    out = _replay_hostile(tmp_path, [], passed=1)
    assert "lanes_fuzz_builtin" in out


def test_asked_for_the_builtin_targets_a_hostile_plant_is_still_refused(tmp_path: Path) -> None:
    # The good plant replays; the three hostile ones are malformed entries.
    out = _replay_hostile(
        tmp_path, [["test-run.lock", "text", 3]], "-o", "lanes_fuzz_builtin=true", passed=2
    )
    assert "plain file name" in out


def test_lanes_fuzz_input_file_refuses_a_hostile_plant(tmp_path: Path) -> None:
    outside = tmp_path / "precious.txt"
    outside.write_text(PRECIOUS, encoding="utf-8")
    root = _project(tmp_path / "project")
    artifact = tmp_path / "downloaded.json"
    artifact.write_text(
        json.dumps(
            {
                "format": "lanekit.fuzz-case",
                "version": 1,
                "target": "state-files",
                "kind": "untyped",
                "input": [str(outside), "oversized", 3],
            }
        ),
        encoding="utf-8",
    )
    proc = subprocess.run(
        [LANES, "fuzz", "--input-file", str(artifact)],
        cwd=root,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert outside.read_text(encoding="utf-8") == PRECIOUS
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "plain file name" in proc.stderr
    assert "Traceback" not in proc.stderr


def _replay_hostile(tmp_path: Path, extra: list[list[object]], *args: str, passed: int) -> str:
    """Replay the hostile corpus (plus ``extra``) in a real pytest; its stdout.

    The file outside the project is untouched, the three hostile entries fail
    as malformed, each named once (under CI=true pytest's summary repeats
    every message in full), and ``passed`` tests pass.
    """
    outside = tmp_path / "precious.txt"
    outside.write_text(PRECIOUS, encoding="utf-8")
    root = _project(tmp_path / "project")
    _corpus(root, [*_hostile_inputs(outside), *extra])
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "lanes.fuzz", *args],
        cwd=root,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert outside.read_text(encoding="utf-8") == PRECIOUS
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{passed} passed" in proc.stdout, proc.stdout
    assert "3 failed" in proc.stdout, proc.stdout
    assert set(re.findall(r"malformed fuzz corpus entry (evil\d)", proc.stdout)) == {
        "evil0",
        "evil1",
        "evil2",
    }, proc.stdout
    return proc.stdout
