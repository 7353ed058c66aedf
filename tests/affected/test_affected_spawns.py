"""What a test starts decides what the map can vouch for.

One real recording of a project whose tests start processes the ways real
suites do: a Python child given an environment of the test's own making (no
``PYTHONPATH``, or nothing at all), a native program, a shell that starts
Python, and an interpreter in isolated mode. The recording carries itself
into a built environment, so that child records; a native program that is
not a launcher runs none of the project's code, so its test is vouched for
code changes, not for data files (what the program read is unseen); what a
shell starts, and ``-I``, cannot be followed.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from lanes.affected.spawns import FOREIGN, IGNORED, PYTHON, classify_spawn
from lanes.cli import main
from tests.affected.recordings import own_copy, record_once, recorded_map

_PYTHON = "[sys.executable, '-c', 'import pkg.mod; pkg.mod.{}()']"

FILES = {
    "pyproject.toml": '[project]\nname = "sp"\nversion = "0"\n',
    ".gitignore": "envelopes/\n__pycache__/\n",
    # The package imports every submodule: the static graph selects every test.
    "pkg/__init__.py": "from pkg import mod\n",
    "pkg/mod.py": "def f() -> int:\n    return 1\n\n\ndef g() -> int:\n    return 2\n\n\n"
    "def h() -> int:\n    return 3\n",
    "tests/__init__.py": "",
    "tests/data.txt": "x\n",
    "tests/test_reader.py": "from pathlib import Path\n\nimport pkg\n\n\ndef test_reader() -> None:\n"
    "    assert pkg.mod.h() == 3\n"
    "    assert Path(__file__).with_name('data.txt').read_text() == 'x\\n'\n",
    "tests/test_built_env.py": "import os\nimport subprocess\nimport sys\n\n\n"
    # A copy of the environment without PYTHONPATH (kept from a source checkout).
    "def test_copied() -> None:\n"
    "    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}\n"
    f"    subprocess.run({_PYTHON.format('f')}, check=True, env=env)\n\n\n"
    "def test_empty() -> None:\n"
    f"    subprocess.run({_PYTHON.format('g')}, check=True, env={{}})\n",
    "tests/test_programs.py": "import subprocess\nimport sys\n\nimport pkg\n\n\n"
    # A native program reads the data file: unseen by the recording.
    "def test_cat_reads() -> None:\n"
    "    subprocess.run(['cat', 'tests/data.txt'], check=True, capture_output=True)\n\n\n"
    # A shell could start Python with -I or a cleared environment, unseen.
    "def test_shell_starts_python() -> None:\n"
    "    code = 'import pkg.mod; pkg.mod.g()'\n"
    "    subprocess.run(['sh', '-c', f'{sys.executable} -c \"{code}\"'], check=True)\n\n\n"
    # -I ignores PYTHONPATH: the child is unseen.
    "def test_isolated() -> None:\n"
    "    assert pkg\n"
    "    subprocess.run([sys.executable, '-I', '-c', 'pass'], check=True)\n",
}


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("spawns") / "project"
    assert "recorded 6 tests (2 not vouched for" in record_once(root, FILES)
    return root


@pytest.fixture
def recorded(recording: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return own_copy(recording, tmp_path, monkeypatch)


def _selected(capsys: pytest.CaptureFixture[str]) -> dict[str, list[str]]:
    """Test file -> the ids it runs ("*" for the whole file)."""
    capsys.readouterr()
    assert main(["affected", "--json"]) == 0
    plan: dict[str, Any] = json.loads(capsys.readouterr().out)
    return {
        t["file"]: sorted(n["id"].split("::")[1] for n in t["nodes"]) if "nodes" in t else ["*"]
        for t in plan["tests"]
    }


@pytest.mark.integration
def test_a_child_in_an_environment_the_test_built_is_recorded(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    test_map = recorded_map(recorded)
    # Both fail without carrying the recording into the built environment:
    # their children recorded nothing, and the map vouched for neither.
    assert test_map.vouches("tests/test_built_env.py")
    (recorded / "pkg/mod.py").write_text(FILES["pkg/mod.py"].replace("return 1", "return 10"))
    assert _selected(capsys) == {
        "tests/test_built_env.py": ["test_copied"],
        "tests/test_programs.py": ["test_isolated", "test_shell_starts_python"],
    }


@pytest.mark.integration
def test_a_native_program_is_vouched_for_code_and_a_launcher_is_not(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # g ran in test_empty's child; cat ran none of the project's code; what the
    # shell started cannot be vouched for.
    (recorded / "pkg/mod.py").write_text(FILES["pkg/mod.py"].replace("return 2", "return 20"))
    assert _selected(capsys) == {
        "tests/test_built_env.py": ["test_empty"],
        "tests/test_programs.py": ["test_isolated", "test_shell_starts_python"],
    }


@pytest.mark.integration
def test_a_data_file_keeps_the_tests_whose_programs_may_have_read_it(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    test_map = recorded_map(recorded)
    why = test_map.unvouched_tests("tests/test_programs.py", data=True)
    assert why["tests/test_programs.py::test_cat_reads"] == (
        "it started cat, not Python: the recording cannot see which files it read"
    )
    assert "tests/test_programs.py::test_cat_reads" not in test_map.unvouched_tests(
        "tests/test_programs.py"
    )
    # cat read data.txt unseen: a change to it selects that test beside the
    # one the recording saw read it.
    (recorded / "tests/data.txt").write_text("broken\n")
    selected = _selected(capsys)
    assert selected["tests/test_reader.py"] == ["test_reader"]
    assert "test_cat_reads" in selected["tests/test_programs.py"]


@pytest.mark.integration
def test_what_the_map_cannot_follow_is_named_in_the_reason(recorded: Path) -> None:
    test_map = recorded_map(recorded)
    why = test_map.unvouched_tests("tests/test_programs.py")
    assert why["tests/test_programs.py::test_isolated"] == (
        f"1 process it started (or its children started: {Path(sys.executable).name} -I) "
        "left no record of what ran (a launcher, run with -E, -I or -S, killed before it "
        "could record, or still running when the test ended)"
    )
    assert "sh (it starts programs)" in why["tests/test_programs.py::test_shell_starts_python"]


def _popen(argv: list[str], env: dict[str, str] | None = None) -> tuple[str, str]:
    kind, name, _ = classify_spawn("subprocess.Popen", (argv[0], argv, None, env))
    return kind, name


def test_spawns_are_told_apart_by_what_the_program_is(tmp_path: Path) -> None:
    python = Path(sys.executable).name
    assert _popen([sys.executable, "-c", "pass"]) == (PYTHON, python)
    assert _popen([sys.executable, "-I", "-c", "pass"]) == (PYTHON, f"{python} -I")
    assert _popen([sys.executable, "-X", "dev", "-Sc", "pass"]) == (PYTHON, f"{python} -S")
    # Options after the script are the script's.
    assert _popen([sys.executable, "script.py", "-I"]) == (PYTHON, python)
    assert _popen(["cat", "x"]) == (FOREIGN, "cat")
    assert _popen(["git", "status"]) == (IGNORED, "git")
    assert _popen(["sh", "-c", "true"]) == (PYTHON, "sh (it starts programs)")
    assert _popen(["sudo", "python3"]) == (PYTHON, "sudo (it starts programs)")
    assert _popen(["env", "-i", "python3"]) == (PYTHON, "env (it starts programs)")
    # A console script, and pip's /bin/sh trampoline for a long interpreter path.
    script = tmp_path / "tool"
    script.write_text("#!/usr/bin/env python3\nprint(1)\n")
    trampoline = tmp_path / "long"
    trampoline.write_text("#!/bin/sh\n'''exec' \"/very/long/python3\" \"$0\" \"$@\"\n' '''\n")
    # A shell script runs what the recording cannot see.
    shell_script = tmp_path / "job.sh"
    shell_script.write_text("#!/bin/sh\necho hi\n")
    for path in (script, trampoline, shell_script):
        path.chmod(0o755)
    assert _popen([str(script)])[0] == PYTHON
    assert _popen([str(trampoline)])[0] == PYTHON
    assert _popen([str(shell_script)]) == (PYTHON, "job.sh")
    # A launcher under another name is known by what it is.
    bash = shutil.which("bash")
    assert bash is not None
    (tmp_path / "renamed").symlink_to(bash)
    assert _popen([str(tmp_path / "renamed")])[0] == PYTHON
    # Found on the PATH the child is given, not this process's.
    cat = shutil.which("cat")
    assert cat is not None
    (tmp_path / "kitty").symlink_to(cat)
    assert _popen(["kitty"], {"PATH": str(tmp_path)}) == (FOREIGN, "kitty")
    # A program that is not there cannot start: nothing runs.
    assert _popen(["kitty"]) == (IGNORED, "kitty (not found: it cannot start)")
    assert classify_spawn("os.system", ("git status",))[:2] == (IGNORED, "git")
    assert classify_spawn("os.system", ("make all",))[:2] == (PYTHON, "sh (it starts programs)")
    assert classify_spawn("os.fork", ())[:2] == (PYTHON, "a fork")
