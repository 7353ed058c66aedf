"""The map sees into the Python processes a test starts, and says when it cannot.

One real recording (``lanes affected --record``) of a project whose tests run
the package in child processes the way real suites do (``python -c``, a
grandchild, an ``exec``), beside children the recorder cannot see into: an
interpreter in isolated mode, a child still running when its test ends.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from lanes.affected.records import unrecorded_spawns
from lanes.cli import main
from tests.affected.recordings import executed, recorded_map
from tests.support.git import git, make_repo

if TYPE_CHECKING:
    from collections.abc import Iterator


_RUN = "subprocess.run([sys.executable, '-c', {code!r}], check=True{extra})"


def _test(name: str, body: str) -> str:
    return f"\n\ndef test_{name}() -> None:\n    {body}\n"


FILES = {
    "pyproject.toml": '[project]\nname = "cp"\nversion = "0"\n',
    ".gitignore": "envelopes/\n__pycache__/\n",
    # Every submodule imported by the package: the static graph selects every
    # test for any change; only the map can narrow.
    "pkg/__init__.py": "from pkg import mod, other\n",
    "pkg/mod.py": "def f() -> int:\n    return 1\n\n\ndef g() -> int:\n    return 2\n\n\n"
    "def h() -> int:\n    return 3\n",
    "pkg/other.py": "def o() -> int:\n    return 4\n\n\ndef p() -> int:\n    return 5\n",
    # A shared fixture whose setup runs the project in a child (a server, a
    # recording run): set up in the first test that uses it, run for both.
    "tests/test_shared_child.py": "import subprocess\nimport sys\n\nimport pytest\n\n\n"
    "@pytest.fixture(scope='module')\ndef served() -> int:\n    "
    + _RUN.format(code="import pkg.other; pkg.other.p()", extra="")
    + "\n    return 5\n\n\ndef test_first(served: int) -> None:\n    assert served == 5\n"
    "\n\ndef test_second(served: int) -> None:\n    assert served == 5\n",
    "tests/__init__.py": "",
    "tests/test_inprocess.py": "from pkg import other\n" + _test("o", "assert other.o() == 4"),
    "tests/test_child.py": "import subprocess\nimport sys\n"
    + _test("child", _RUN.format(code="import pkg.mod; pkg.mod.f()", extra=""))
    # A grandchild: the child's environment is inherited, so it records too.
    + _test(
        "grandchild",
        _RUN.format(
            code="import subprocess, sys; subprocess.run([sys.executable, '-c', "
            "'import pkg.mod; pkg.mod.g()'], check=True)",
            extra="",
        ),
    )
    # An exec keeps the pid: what ran before it and what it became both count.
    + _test(
        "exec",
        _RUN.format(
            code="import os, sys, pkg.mod; pkg.mod.f(); "
            "os.execv(sys.executable, [sys.executable, '-c', 'import pkg.other; pkg.other.o()'])",
            extra="",
        ),
    )
    # A child that starts a system utility (pytest-xdist's workers run `uname -p`)
    # is still fully seen: such programs run no project code.
    + _test(
        "utility",
        _RUN.format(
            code="import platform, subprocess; import pkg.mod; pkg.mod.g(); "
            "subprocess.run(['uname', '-p'], check=True, capture_output=True)",
            extra="",
        ),
    )
    # The user's own sitecustomize (on PYTHONPATH while recording) still runs.
    + _test(
        "chained",
        _RUN.format(
            code="import builtins; assert builtins.CHAINED; import pkg; pkg.mod.h()", extra=""
        ),
    ),
    # It imports the package, so the static graph selects it for any change.
    "tests/test_unseen.py": "import subprocess\nimport sys\n\nimport pkg\n\nRUNNING = []\n"
    # -I ignores PYTHONPATH, where the recording's bootstrap is.
    + _test(
        "isolated",
        "subprocess.run([sys.executable, '-I', '-c', 'import time'], check=True)",
    )
    # Still running when the test ends: it may yet run code. It ends with the
    # session (its stdin closes), kept alive till then by the module's list.
    + _test(
        "running",
        "RUNNING.append(subprocess.Popen([sys.executable, '-c', "
        "'import sys; sys.stdin.read()'], stdin=subprocess.PIPE))",
    ),
    "site/sitecustomize.py": "import builtins\n\nbuiltins.CHAINED = True\n",
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("children")
    make_repo(root, FILES, "base")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        patch.setenv("PYTHONPATH", str(root / "site"))
        assert main(["affected", "--record"]) == 0
        yield root


@pytest.mark.integration
def test_a_python_child_is_recorded_into_its_test(recorded: Path) -> None:
    test_map = recorded_map(recorded)
    # Fails without the child recorder: the test spawned a process and was unvouched.
    assert test_map.vouches("tests/test_child.py")
    assert ("pkg/mod.py", "f") in executed(test_map, "tests/test_child.py::test_child")
    assert ("pkg/mod.py", "g") not in executed(test_map, "tests/test_child.py::test_child")


@pytest.mark.integration
def test_grandchildren_exec_and_a_users_sitecustomize_are_recorded(recorded: Path) -> None:
    test_map = recorded_map(recorded)
    assert ("pkg/mod.py", "g") in executed(test_map, "tests/test_child.py::test_grandchild")
    exec_ran = executed(test_map, "tests/test_child.py::test_exec")
    assert {("pkg/mod.py", "f"), ("pkg/other.py", "o")} <= exec_ran
    assert ("pkg/mod.py", "h") in executed(test_map, "tests/test_child.py::test_chained")
    assert ("pkg/mod.py", "g") in executed(test_map, "tests/test_child.py::test_utility")


@pytest.mark.integration
def test_what_a_shared_fixtures_child_ran_is_credited_to_every_test_using_it(
    recorded: Path,
) -> None:
    # Regression: credited to the first test only (the one that set it up), so
    # a change to what the child ran selected the first test and missed the rest.
    test_map = recorded_map(recorded)
    for test in ("test_first", "test_second"):
        assert ("pkg/other.py", "p") in executed(test_map, f"tests/test_shared_child.py::{test}")
    assert test_map.vouches("tests/test_shared_child.py")


@pytest.mark.integration
def test_children_it_cannot_see_into_leave_the_test_unvouched(recorded: Path) -> None:
    unvouched = recorded_map(recorded).unvouched_tests("tests/test_unseen.py")
    assert sorted(unvouched) == [
        "tests/test_unseen.py::test_isolated",
        "tests/test_unseen.py::test_running",
    ]
    python = Path(sys.executable).name
    assert unvouched["tests/test_unseen.py::test_isolated"] == (
        f"1 process it started (or its children started: {python} -I) left no record of "
        "what ran (a launcher, run with -E, -I or -S, killed before it could record, or "
        "still running when the test ended)"
    )


def _plan(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["affected", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert isinstance(plan, dict)
    return plan


@pytest.mark.integration
def test_a_change_to_what_a_child_ran_selects_that_test_by_id(
    recorded: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(recorded)
    capsys.readouterr()
    mod = recorded / "pkg/mod.py"
    mod.write_text(FILES["pkg/mod.py"].replace("return 1", "return 10"))
    try:
        plan = _plan(capsys)
    finally:
        git(recorded, "checkout", "--", "pkg/mod.py")
    selected = {
        t["file"]: sorted((n["id"], n["reasons"][0]["detail"]) for n in t.get("nodes", []))
        for t in plan["tests"]
    }
    # f ran in test_child's and test_exec's children; test_unseen's tests are
    # kept because the map cannot see into their children; test_inprocess is not run.
    assert selected["tests/test_child.py"] == [
        ("tests/test_child.py::test_child", "executed pkg/mod.py::f"),
        ("tests/test_child.py::test_exec", "executed pkg/mod.py::f"),
    ]
    assert "tests/test_inprocess.py" not in selected
    assert [node for node, _ in selected["tests/test_unseen.py"]] == [
        "tests/test_unseen.py::test_isolated",
        "tests/test_unseen.py::test_running",
    ]


@pytest.mark.parametrize(
    ("spawned", "records", "missing"),
    [
        # The test's process (pid 1) spawned two; both wrote.
        (2, [{"pid": 2, "ppid": 1}, {"pid": 3, "ppid": 1}], 0),
        (2, [{"pid": 2, "ppid": 1}], 1),
        # A grandchild that never wrote is missing, though its parent did.
        (1, [{"pid": 2, "ppid": 1, "spawned": 1}], 1),
        # Two records of one pid: the image before an exec and the one it became.
        (1, [{"pid": 2, "ppid": 1, "exec": True}, {"pid": 2, "ppid": 1}], 0),
        # An exec into something that left no record (not Python).
        (1, [{"pid": 2, "ppid": 1, "exec": True}], 1),
    ],
)
def test_every_spawn_at_every_level_needs_a_record(
    spawned: int, records: list[dict[str, Any]], missing: int
) -> None:
    full = [{"spawned": 0, "exec": False, **record} for record in records]
    assert unrecorded_spawns(1, spawned, full) == missing
