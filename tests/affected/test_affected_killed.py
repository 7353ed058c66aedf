"""A child a test kills on purpose is recorded up to the kill.

Lock tests start a holder and SIGKILL it; signal tests end a child with
SIGTERM. Such a child never reaches its exit, and a record written at exit
was lost with it: the test was unvouched. The record is written as the child
runs, so what it executed before the kill is in the map, and its test is
selected by id by a change to that code. A child still running when its test
ends may yet run code: its test stays unvouched.

One real recording (``lanes affected --record``) of a planted project.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from lanes.affected.records import process_ended, read_record
from lanes.cli import main
from tests.affected.recordings import executed, own_copy, record_once, recorded_map

if TYPE_CHECKING:
    from pathlib import Path


# A child that runs a project function, says so, and waits to be killed.
_HOLDER = (
    "child = subprocess.Popen([sys.executable, '-c', "
    "'import sys, time, pkg.mod; {before}pkg.mod.{function}(); print(1, flush=True); "
    "time.sleep(60)'], "
    "stdout=subprocess.PIPE)\n"
    "    try:\n"
    "        assert child.stdout is not None and child.stdout.readline()\n"
    "        child.send_signal(signal.{signal})\n"
    "    finally:\n"
    "        child.kill()\n"
    "        child.wait()\n"
)

FILES = {
    "pyproject.toml": '[project]\nname = "kp"\nversion = "0"\n',
    ".gitignore": "envelopes/\n__pycache__/\n",
    # Every submodule imported by the package: the static graph selects every
    # test for any change; only the map can narrow.
    "pkg/__init__.py": "from pkg import mod, other\n",
    "pkg/mod.py": "def f() -> int:\n    return 1\n\n\ndef g() -> int:\n    return 2\n\n\n"
    "def h() -> int:\n    return 3\n",
    "pkg/other.py": "def o() -> int:\n    return 4\n",
    "tests/__init__.py": "",
    "tests/test_inprocess.py": "from pkg import other\n\n\ndef test_o() -> None:\n"
    "    assert other.o() == 4\n",
    # It imports the package, so the static graph selects it for any change.
    "tests/test_killed.py": "import signal\nimport subprocess\nimport sys\n\nimport pkg\n\n"
    "RUNNING = []\n\n\n"
    "def test_sigkilled() -> None:\n    "
    + _HOLDER.format(before="", function="f", signal="SIGKILL")
    + "\n\ndef test_sigtermed() -> None:\n    "
    + _HOLDER.format(before="", function="g", signal="SIGTERM")
    # On 3.11 the child records through its trace function: replaced, the
    # calls after it go unseen, and only the record's end would vouch for it.
    + "\n\ndef test_retraced() -> None:\n    "
    + _HOLDER.format(before="sys.settrace(None); ", function="f", signal="SIGKILL")
    + "\n\n"
    # Still running at the test's end (it ends with the session: its stdin closes).
    "def test_running() -> None:\n"
    "    child = subprocess.Popen([sys.executable, '-c', "
    "'import sys, pkg.mod; pkg.mod.h(); print(1, flush=True); sys.stdin.read()'], "
    "stdin=subprocess.PIPE, stdout=subprocess.PIPE)\n"
    "    RUNNING.append(child)\n"
    "    assert child.stdout is not None and child.stdout.readline()\n",
}


# Still running at its end; on 3.11 also the child whose trace function was replaced.
_UNVOUCHED = [
    *(["tests/test_killed.py::test_retraced"] if sys.version_info < (3, 12) else []),
    "tests/test_killed.py::test_running",
]


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("killed")
    record_once(root, FILES)
    return root


@pytest.mark.integration
def test_a_child_killed_after_it_ran_project_code_is_recorded_up_to_the_kill(
    recording: Path,
) -> None:
    test_map = recorded_map(recording)
    # Fails with a record written only at exit: the killed children left none.
    assert sorted(test_map.unvouched_tests("tests/test_killed.py")) == _UNVOUCHED
    assert ("pkg/mod.py", "f") in executed(test_map, "tests/test_killed.py::test_sigkilled")
    assert ("pkg/mod.py", "g") in executed(test_map, "tests/test_killed.py::test_sigtermed")
    assert ("pkg/mod.py", "g") not in executed(test_map, "tests/test_killed.py::test_sigkilled")
    if sys.version_info >= (3, 12):  # sys.monitoring: another trace function hides nothing
        assert ("pkg/mod.py", "f") in executed(test_map, "tests/test_killed.py::test_retraced")


def _selected(root: Path, capsys: pytest.CaptureFixture[str], old: str, new: str) -> dict[str, Any]:
    """Each selected file's test ids after ``old`` becomes ``new`` in ``pkg/mod.py``."""
    (root / "pkg/mod.py").write_text(FILES["pkg/mod.py"].replace(old, new))
    capsys.readouterr()
    assert main(["affected", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    return {t["file"]: sorted(n["id"] for n in t.get("nodes", [])) for t in plan["tests"]}


@pytest.mark.integration
def test_a_change_to_what_a_killed_child_ran_selects_its_test_by_id(
    recording: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = own_copy(recording, tmp_path, monkeypatch)
    # The unvouched tests run beside any selection of their file.
    assert _selected(root, capsys, "return 1", "return 10") == {
        "tests/test_killed.py": sorted(
            {
                *_UNVOUCHED,
                "tests/test_killed.py::test_retraced",
                "tests/test_killed.py::test_sigkilled",
            }
        )
    }


def _record(path: Path, *lines: bytes) -> Path:
    path.write_bytes(b"".join(lines))
    return path


def _header(pid: int) -> bytes:
    header = {"test": "0", "pid": pid, "ppid": os.getpid(), "spawned": 0, "exec": False}
    fields = {**header, "code": [], "opened": []}
    return json.dumps(fields).encode() + b"\n"


def _ended_pid() -> int:
    """The pid of a process that ended (reaped: reuse within the test is negligible)."""
    ended = subprocess.Popen(["true"])
    ended.wait()
    return ended.pid


def test_a_torn_last_line_is_skipped_and_a_torn_middle_line_drops_the_record(
    tmp_path: Path,
) -> None:
    pid = _ended_pid()
    code = b'{"code":[["pkg/mod.py",1]]}\n'
    # Killed in the middle of a write: the event it was about (a call about
    # to run) had not happened; what was written before it stands.
    torn = _record(tmp_path / f"0-{pid}-aa.jsonl", _header(pid), code, b'{"code":[["pkg/mo')
    record = read_record(str(torn))
    assert record is not None
    assert record["code"] == [["pkg/mod.py", 1]]
    # A bad line followed by others is no kill: the record cannot be trusted.
    broken = _record(tmp_path / f"0-{pid}-bb.jsonl", _header(pid), b'{"code":[\n', code)
    assert read_record(str(broken)) is None


def test_counters_flags_and_lists_fold_whatever_their_name(tmp_path: Path) -> None:
    pid = _ended_pid()
    path = _record(
        tmp_path / f"0-{pid}-cc.jsonl",
        _header(pid),
        b'{"spawned":1}\n{"foreign":2}\n{"foreign":1}\n{"opened":["data.txt"]}\n',
        b'{"exec":true}\n',
    )
    record = read_record(str(path))
    assert record is not None
    assert (record["spawned"], record["foreign"], record["exec"]) == (1, 3, True)
    assert record["opened"] == ["data.txt"]


def test_a_record_is_whole_when_it_ended_or_its_process_did(tmp_path: Path) -> None:
    alive = os.getpid()
    # Still running and no end: it may yet run code.
    running = _record(tmp_path / f"0-{alive}-dd.jsonl", _header(alive))
    assert read_record(str(running)) is None
    ended = _record(tmp_path / f"0-{alive}-ee.jsonl", _header(alive), b'{"end":true}\n')
    assert read_record(str(ended)) is not None
    # A zombie (ended, not yet reaped by its parent) runs nothing more.
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
        assert process_ended(child.pid)
        zombie = _record(tmp_path / f"0-{child.pid}-ff.jsonl", _header(child.pid))
        assert read_record(str(zombie)) is not None
    finally:
        child.wait()
    # Another trace function (3.11: a debugger, coverage) may have hidden calls
    # after it: only an end, with the recorder's function back, makes that record whole.
    retraced = _record(
        tmp_path / f"0-{child.pid}-gg.jsonl", _header(child.pid), b'{"retraced":true}\n'
    )
    assert read_record(str(retraced)) is None
