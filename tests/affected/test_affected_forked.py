"""A test that forks the pytest process is recorded through the fork.

Signal tests run a lane in ``os.fork()`` and let a signal end it; multiprocessing's
'fork' start method does the same under the hood. The recorder counted the
fork as a spawn and nothing recorded the forked child: the test was unvouched.
The fork now writes a child record for the running test, so a change to what
only the fork executed selects the test by id.

One real recording (``lanes affected --record``) of a planted project.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from lanes.cli import main
from tests.affected.recordings import executed, own_copy, record_once, recorded_map

if TYPE_CHECKING:
    from pathlib import Path

    from lanes.affected.testmap import TestMap

# Run ``{call}`` only in a fork of the test process, which ends by ``{end}``.
_FORK = (
    "    pid = os.fork()\n"
    "    if pid == 0:\n"
    "        try:\n"
    "            {call}\n"
    "        finally:\n"
    "            {end}\n"
    "    _, status = os.waitpid(pid, 0)\n"
    "    assert {status}, status\n"
)
_EXITED = "os.waitstatus_to_exitcode(status) == 0"
_KILLED = "os.WIFSIGNALED(status)"

FILES = {
    "pyproject.toml": '[project]\nname = "fp"\nversion = "0"\n',
    ".gitignore": "envelopes/\n__pycache__/\n",
    "pkg/__init__.py": "from pkg import mod\n",
    "pkg/mod.py": "def f() -> int:\n    return 1\n\n\ndef g() -> int:\n    return 2\n\n\n"
    "def h() -> int:\n    return 3\n\n\ndef m() -> int:\n    return 4\n\n\n"
    "def k() -> int:\n    return 5\n",
    "tests/__init__.py": "",
    # In file order (the recording runs without random order): f runs in the
    # test process first, then only in a fork, in a later test.
    "tests/test_fork.py": "import multiprocessing\nimport os\nimport signal\nimport subprocess\n"
    "import sys\n\nimport pkg\n\n\n"
    "def test_in_process() -> None:\n    assert pkg.mod.f() == 1\n\n\n"
    "def test_fork_exits() -> None:\n"
    + _FORK.format(call="pkg.mod.g()", end="os._exit(0)", status=_EXITED)
    + "\n\ndef test_fork_runs_what_an_earlier_test_ran() -> None:\n"
    + _FORK.format(call="pkg.mod.f()", end="os._exit(0)", status=_EXITED)
    + "\n\ndef test_fork_is_killed() -> None:\n"
    + _FORK.format(call="pkg.mod.h()", end="os.kill(os.getpid(), signal.SIGKILL)", status=_KILLED)
    + "\n\ndef test_multiprocessing_fork() -> None:\n"
    "    child = multiprocessing.get_context('fork').Process(target=pkg.mod.m)\n"
    "    child.start()\n"
    "    child.join()\n"
    "    assert child.exitcode == 0\n"
    # subprocess's own fork runs the at-fork handlers when given a preexec_fn,
    # then execs a shell: a record of that fork would stand for the shell.
    # A recorded Python child that forks: the fork writes its own record.
    "\n\ndef test_a_child_forks() -> None:\n"
    "    code = 'import os, pkg.mod\\npid = os.fork()\\nif pid == 0:\\n    pkg.mod.k()\\n'\n"
    "    code += '    os._exit(0)\\nos.waitpid(pid, 0)\\n'\n"
    "    subprocess.run([sys.executable, '-c', code], check=True)\n"
    "\n\ndef test_preexec_then_a_shell() -> None:\n"
    "    subprocess.run(['sh', '-c', 'exit 0'], check=True, preexec_fn=pkg.mod.h)\n",
}


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("forked")
    record_once(root, FILES)
    return root


def _executed(test_map: TestMap, test: str) -> set[str]:
    """The functions of pkg/mod.py the test of tests/test_fork.py named ``test`` executed."""
    ran = executed(test_map, f"tests/test_fork.py::{test}")
    return {name for file, name in ran if file == "pkg/mod.py"}


@pytest.mark.integration
def test_what_a_fork_of_the_test_process_ran_is_the_tests(recording: Path) -> None:
    test_map = recorded_map(recording)
    # Fails without the fork's record: every forking test was unvouched.
    assert list(test_map.unvouched_tests("tests/test_fork.py")) == [
        "tests/test_fork.py::test_preexec_then_a_shell"
    ]
    assert _executed(test_map, "test_in_process") == {"f"}
    assert _executed(test_map, "test_fork_exits") == {"g"}
    # f ran in the test process during the first test, and so was disabled
    # there (3.12+): re-armed at the next test's start, it fires in the fork.
    assert _executed(test_map, "test_fork_runs_what_an_earlier_test_ran") == {"f"}
    assert _executed(test_map, "test_fork_is_killed") == {"h"}
    assert "m" in _executed(test_map, "test_multiprocessing_fork")
    assert "k" in _executed(test_map, "test_a_child_forks")


@pytest.mark.integration
def test_a_change_to_what_only_a_fork_ran_selects_that_test_by_id(
    recording: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = own_copy(recording, tmp_path, monkeypatch)
    (root / "pkg/mod.py").write_text(FILES["pkg/mod.py"].replace("return 2", "return 20"))
    capsys.readouterr()
    assert main(["affected", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    selected = {t["file"]: sorted(n["id"] for n in t.get("nodes", [])) for t in plan["tests"]}
    # The shell's test is unvouched: it runs beside any selection of its file.
    assert selected == {
        "tests/test_fork.py": [
            "tests/test_fork.py::test_fork_exits",
            "tests/test_fork.py::test_preexec_then_a_shell",
        ]
    }
