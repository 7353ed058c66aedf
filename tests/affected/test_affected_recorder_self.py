"""On lanekit's own repository the recorder is project code, and no test's.

The recording's plugin runs around every test: counted as the tests' code, a
change to one of its hooks selected every test by id. One real recording of a
repository holding a copy of the running ``lanes`` package, run by that copy
(as on lanekit itself): the recorder's own module is credited to no test,
and a test that calls lanekit's code in-process is still seen calling it.
"""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from lanes.affected.testmap import read_map
from tests.affected.recordings import executed
from tests.affected.test_affected_selfplan import RUN_COPY, _copy_lanes
from tests.support.git import commit_all, make_repo

if TYPE_CHECKING:
    from lanes.affected import testmap

FILES = {
    ".gitignore": "__pycache__/\nenvelopes/\n",
    "pyproject.toml": '[project]\nname = "selfrecord"\nversion = "0"\n\n'
    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "tests/__init__.py": "",
    "tests/test_calls.py": "from lanes.affected.spawns import classify_spawn\n\n\n"
    "def test_calls() -> None:\n"
    "    assert classify_spawn('os.fork', ())[0] == 'python'\n",
    "tests/test_plain.py": "def test_plain() -> None:\n    assert True\n",
    # Its spawn and its import run the recorder's audit hook, which calls lanekit's code.
    "tests/test_spawns.py": "import subprocess\nimport sys\n\n\ndef test_spawns() -> None:\n"
    "    import tests.helper\n\n"
    "    subprocess.run([sys.executable, '-c', 'pass'], check=True)\n",
    "tests/helper.py": "VALUE = 1\n",
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> testmap.TestMap:
    root = tmp_path_factory.mktemp("selfrecord")
    make_repo(root, FILES)
    _copy_lanes(root)
    commit_all(root, "lanekit inside")
    proc = subprocess.run(
        [sys.executable, "-I", "-c", RUN_COPY, "affected", "--record"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    test_map = read_map(root / "envelopes/affected-map.json")
    assert test_map is not None
    return test_map


@pytest.mark.integration
def test_the_recorders_own_hooks_are_no_tests_code(recorded: testmap.TestMap) -> None:
    for test in ("tests/test_plain.py::test_plain", "tests/test_calls.py::test_calls"):
        ran = executed(recorded, test)
        own = ("lanes/affected/recorder.py", "lanes/affected/tracker.py")
        assert not {node for node in ran if node[0] in own}, test
    assert ("lanes/affected/spawns.py", "classify_spawn") not in executed(
        recorded, "tests/test_plain.py::test_plain"
    )


@pytest.mark.integration
def test_what_the_recorder_calls_around_a_test_is_no_tests_code(
    recorded: testmap.TestMap,
) -> None:
    # Regression: SiteWatch.take, called at each test's start, was credited
    # to every test. (CPython runs audit hooks untraced, so classify_spawn and
    # ProjectCode.code_path, which the hook calls for this test's spawn and
    # import, never were: kept as a guard.)
    ran = executed(recorded, "tests/test_spawns.py::test_spawns")
    assert ("tests/helper.py", "<module>") in ran
    assert not {node for node in ran if node[0].startswith("lanes/")}, ran


@pytest.mark.integration
def test_lanekits_code_a_test_calls_in_process_is_still_seen(recorded: testmap.TestMap) -> None:
    assert ("lanes/affected/spawns.py", "classify_spawn") in executed(
        recorded, "tests/test_calls.py::test_calls"
    )


@pytest.mark.integration
def test_what_the_recorder_calls_to_set_itself_up_ran_outside_no_test(
    recorded: testmap.TestMap,
) -> None:
    # Regression: at start-up (3.12+) the recorder arms the project's code
    # already loaded, asking ProjectCode of each function, and SiteWatch which
    # hold a computed import: recorded as run outside every test, a change to
    # ProjectCode.__call__ selected every test whole on lanekit itself.
    ran = {
        name
        for file in ("lanes/affected/projectcode.py", "lanes/affected/sitewatch.py")
        for name in recorded.session_outside(file)
    }
    assert ran <= {"<module>"}, ran
