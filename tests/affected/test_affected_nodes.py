"""The map selects tests, not files: the pytest node ids that executed a change.

A real recording run on a package whose ``__init__`` imports every submodule,
then plans (and ``--run``) narrowed to the tests that executed the changed
function; every static fallback still selects whole files.
"""

from __future__ import annotations

import json
import shutil
from typing import TYPE_CHECKING, Any

import pytest

from lanes.affected.lane import ARGV_ID_BUDGET
from lanes.cli import main
from tests.affected.recordings import NO_HYPOTHESIS, record_once
from tests.support.git import make_repo

if TYPE_CHECKING:
    from pathlib import Path

FILES = {
    "pyproject.toml": '[project]\nname = "np"\nversion = "0"\n',
    ".gitignore": "envelopes/\n",
    "pkg/__init__.py": "from pkg import a, b\n",
    "pkg/a.py": "CONST = 1\n\n\ndef fa() -> int:\n    return CONST\n\n\ndef fa2() -> int:\n    return 2\n",
    "pkg/b.py": "def fb() -> int:\n    return 3\n",
    "tests/__init__.py": "",
    # Two tests of one file execute different functions of pkg/a.py; a third reads a data file.
    "tests/test_a.py": "from pathlib import Path\n\nfrom pkg import a\n\n\n"
    "def test_fa() -> None:\n    assert a.fa() == 1\n\n\n"
    "def test_fa2() -> None:\n    assert a.fa2() == 2\n\n\n"
    "def test_data() -> None:\n    assert Path(__file__).with_name('data.txt').read_text() == 'x\\n'\n",
    "tests/data.txt": "x\n",
    "tests/test_b.py": "import pytest\n\nfrom pkg import a, b\n\n\n"
    "def test_fb() -> None:\n    assert b.fb() == 3\n\n\n"
    "@pytest.mark.parametrize('n', [1, 2])\n"
    "def test_fa_twice(n: int) -> None:\n    assert a.fa() * n == n\n",
}


@pytest.fixture(autouse=True)
def _no_hypothesis_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", NO_HYPOTHESIS)


def _copy(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The recorded repository (work tree, .git, envelopes/ and its map) as this test's own."""
    root = tmp_path / "project"
    shutil.copytree(template, root, symlinks=True)
    monkeypatch.chdir(root)
    return root


# A recording is a real pytest run under the recorder (the expensive part of
# these tests): made once per module, and each test changes its own copy.
@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("recorded") / "project"
    assert "recorded 6 tests (0 not vouched for" in record_once(root, FILES)
    return root


@pytest.fixture
def recorded(recording: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return _copy(recording, tmp_path, monkeypatch)


def _plan(capfd: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["affected", "--json", *args]) == 0
    plan = json.loads(capfd.readouterr().out)
    assert isinstance(plan, dict)
    return plan


def _nodes(plan: dict[str, Any]) -> dict[str, list[tuple[str, str, str]]]:
    """file -> [(test id, rule, detail)]; a file run whole maps to []."""
    return {
        t["file"]: [
            (n["id"], n["reasons"][0]["rule"], n["reasons"][0]["detail"])
            for n in t.get("nodes", [])
        ]
        for t in plan["tests"]
    }


@pytest.mark.integration
def test_a_function_change_selects_the_test_ids_that_executed_it(
    recorded: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (recorded / "pkg/a.py").write_text(
        FILES["pkg/a.py"].replace("return CONST", "return CONST + 1")
    )
    plan = _plan(capfd)
    # Before: both files whole (6 tests) though only 3 tests executed fa.
    assert _nodes(plan) == {
        "tests/test_a.py": [("tests/test_a.py::test_fa", "map", "executed pkg/a.py::fa")],
        "tests/test_b.py": [
            ("tests/test_b.py::test_fa_twice[1]", "map", "executed pkg/a.py::fa"),
            ("tests/test_b.py::test_fa_twice[2]", "map", "executed pkg/a.py::fa"),
        ],
    }
    assert plan["counts"]["narrowed_files"] == 2
    assert plan["counts"]["node_ids"] == 3
    (suite,) = plan["suites"]
    assert suite["command"][-3:] == [
        "tests/test_a.py::test_fa",
        "tests/test_b.py::test_fa_twice[1]",
        "tests/test_b.py::test_fa_twice[2]",
    ]
    assert suite["nodes"] == suite["command"][-3:]
    # The text names each test with the function it executed.
    assert main(["affected"]) == 0
    out = capfd.readouterr().out
    assert "tests (2/2 test files; 2 of them narrowed by the map to 3 tests):" in out
    assert "  tests/test_a.py::test_fa  <- map: pkg/a.py (executed pkg/a.py::fa)" in out
    assert "tests/test_a.py::test_fa2" not in out


@pytest.mark.integration
def test_run_runs_only_the_selected_test_ids(
    recorded: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (recorded / "pkg/a.py").write_text(
        FILES["pkg/a.py"].replace("return CONST", "return CONST + 1")
    )
    assert main(["affected", "--run"]) == 1  # the changed fa breaks the tests that run it
    out = capfd.readouterr().out
    assert "3 failed" in out
    assert "passed" not in out  # test_fa2, test_data and test_fb did not run


@pytest.mark.integration
def test_a_static_fallback_selects_whole_files_with_the_import_chain(
    recorded: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # A module-level call: what it changes, no name flow can follow.
    (recorded / "pkg/a.py").write_text(FILES["pkg/a.py"] + "\nprint('loaded')\n")
    plan = _plan(capfd)
    assert _nodes(plan) == {"tests/test_a.py": [], "tests/test_b.py": []}
    details = {t["file"]: t["reasons"][0]["detail"] for t in plan["tests"]}
    assert "a module-level call changed at line 11" in details["tests/test_a.py"]
    assert details["tests/test_a.py"].endswith("imports it: tests/test_a.py -> pkg/a.py")
    assert "node_ids" not in plan["counts"]


@pytest.mark.integration
def test_a_changed_constant_selects_the_tests_that_executed_code_reading_it(
    recorded: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # Before: a module-level change selected every importer whole (6 tests);
    # only fa reads CONST, and three tests executed fa.
    (recorded / "pkg/a.py").write_text(FILES["pkg/a.py"].replace("CONST = 1", "CONST = 2"))
    reason = "pkg/a.py::fa reads CONST, which the change binds (line 1)"
    assert _nodes(_plan(capfd)) == {
        "tests/test_a.py": [("tests/test_a.py::test_fa", "map", reason)],
        "tests/test_b.py": [
            ("tests/test_b.py::test_fa_twice[1]", "map", reason),
            ("tests/test_b.py::test_fa_twice[2]", "map", reason),
        ],
    }


@pytest.mark.integration
def test_a_data_file_selects_the_test_ids_that_read_it(
    recorded: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (recorded / "tests/data.txt").write_text("broken\n")
    assert _nodes(_plan(capfd)) == {
        "tests/test_a.py": [
            ("tests/test_a.py::test_data", "map", "read tests/data.txt when the map was recorded")
        ]
    }


@pytest.mark.integration
def test_a_changed_test_file_runs_whole_beside_the_ids(
    recorded: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (recorded / "pkg/a.py").write_text(
        FILES["pkg/a.py"].replace("return CONST", "return CONST + 1")
    )
    (recorded / "tests/test_a.py").write_text(
        FILES["tests/test_a.py"] + "\n\ndef test_new() -> None:\n    pass\n"
    )
    plan = _plan(capfd)
    # test_a.py changed: it runs whole (its new test included); test_b.py stays narrowed.
    assert _nodes(plan)["tests/test_a.py"] == []
    assert [n for n, _, _ in _nodes(plan)["tests/test_b.py"]] == [
        "tests/test_b.py::test_fa_twice[1]",
        "tests/test_b.py::test_fa_twice[2]",
    ]
    assert "tests/test_a.py" in plan["suites"][0]["command"]


# Test ids of ~130 bytes each (pytest keeps a parameter's own text as its id up
# to 100 characters): past the command-line budget with half the tests (each
# one recorded and run) that ~70-byte ids would need.
MANY = 560


@pytest.mark.integration
def test_test_ids_past_the_command_line_budget_go_through_an_argument_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    files = {
        **FILES,
        "tests/test_many.py": "import pytest\n\nfrom pkg import a\n\n\n"
        f"@pytest.mark.parametrize('case', ['case-number-' + str(i).zfill(88) for i in range({MANY})])\n"
        "def test_many(case: str) -> None:\n    assert a.fa2() == 2\n",
    }
    make_repo(tmp_path, files, "base")
    monkeypatch.chdir(tmp_path)
    assert main(["affected", "--record"]) == 0
    (tmp_path / "pkg/a.py").write_text(FILES["pkg/a.py"].replace("return 2", "return 2 + 0"))
    capfd.readouterr()
    plan = _plan(capfd)
    assert plan["counts"]["node_ids"] == MANY + 1  # test_fa2 and every case
    assert sum(len(n) + 1 for n in plan["suites"][0]["nodes"]) > ARGV_ID_BUDGET
    assert main(["affected", "--run"]) == 0
    captured = capfd.readouterr()
    assert f"{MANY + 1} passed" in captured.out
    # The command ran names an argument file, not the ids.
    assert " @" in captured.err
    assert "case-number-" not in captured.err


@pytest.mark.integration
@pytest.mark.usefixtures("recorded")
def test_a_module_query_names_the_tests_that_executed_its_functions(
    capfd: pytest.CaptureFixture[str],
) -> None:
    assert main(["affected", "pkg.a"]) == 0
    out = capfd.readouterr().out
    assert "map: using envelopes/affected-map.json (commit " in out
    assert "tests that executed its functions when the map was recorded (4 tests in 2 files" in out
    assert "  tests/test_a.py::test_fa2  <- fa2" in out
    assert main(["affected", "pkg.a", "--json"]) == 0
    view = json.loads(capfd.readouterr().out)
    assert {"id": "tests/test_b.py::test_fa_twice[1]", "functions": ["fa"]} in view["executed"]


@pytest.mark.integration
def test_the_lane_records_the_map_when_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pyproject = FILES["pyproject.toml"] + "\n[tool.lanes.affected]\nrecord_map = true\n"
    make_repo(tmp_path, {**FILES, "pyproject.toml": pyproject}, "base")
    monkeypatch.chdir(tmp_path)
    assert not (tmp_path / "envelopes/affected-map.json").exists()
    assert main(["affected", "--run"]) == 0  # nothing changed: nothing to run, then the map
    envelope = json.loads((tmp_path / "envelopes/affected.json").read_text())
    record = envelope["data"]["record"]
    assert record["tests"] == 6
    assert record["exit_code"] == 0
    assert "skipped" not in record
    assert (tmp_path / "envelopes/affected-map.json").is_file()
    # An uncommitted Python change: no commit keys the map, said in the envelope.
    (tmp_path / "pkg/b.py").write_text(FILES["pkg/b.py"] + "\n")
    assert main(["affected", "--run"]) == 0
    envelope = json.loads((tmp_path / "envelopes/affected.json").read_text())
    assert (
        "needs committed Python files; uncommitted: pkg/b.py"
        in envelope["data"]["record"]["skipped"]
    )


@pytest.mark.integration
def test_recall_uses_the_map_and_counts_failing_tests_by_id(recorded: Path) -> None:
    # Every function of the package planted in turn (fa, fa2, fb): each plan is
    # narrowed to test ids, and every failing test must be one of them.
    assert main(["affected", "--recall", "3"]) == 0
    recall = json.loads((recorded / "envelopes/affected.json").read_text())["data"]["recall"]
    assert recall["map"].startswith("using ")
    assert recall["recall"] == 1.0
    assert recall["missed"] == []
    planted = {p["function"]: p for p in recall["plants"]}
    assert planted["fa"]["failing"] == [
        "tests/test_a.py::test_fa",
        "tests/test_b.py::test_fa_twice[1]",
        "tests/test_b.py::test_fa_twice[2]",
    ]
    assert planted["fa"]["node_ids"] == 3
    assert planted["fb"]["failing"] == ["tests/test_b.py::test_fb"]


@pytest.mark.integration
def test_a_line_inserted_at_the_top_of_a_body_is_a_function_change(
    recorded: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # `--recall` plants a raise before a function's first statement: that is the
    # function's change, not module level (the plan selected every importer).
    (recorded / "pkg/a.py").write_text(
        FILES["pkg/a.py"].replace("def fa() -> int:\n", "def fa() -> int:\n    print('x')\n")
    )
    assert [n for n, _, _ in _nodes(_plan(capfd))["tests/test_a.py"]] == [
        "tests/test_a.py::test_fa"
    ]
    # A new decorator line is module level: a plain wrapper changes fa only, so
    # the tests that executed fa run; one that may register fa elsewhere (any
    # other decorator) cannot be followed: every importer runs whole.
    (recorded / "pkg/a.py").write_text(
        FILES["pkg/a.py"].replace("def fa() -> int:\n", "@staticmethod\ndef fa() -> int:\n")
    )
    assert [n for ns in _nodes(_plan(capfd)).values() for n, _, _ in ns] == [
        "tests/test_a.py::test_fa",
        "tests/test_b.py::test_fa_twice[1]",
        "tests/test_b.py::test_fa_twice[2]",
    ]
    # functools.cache wraps fa in place: every caller went through fa's code in
    # the recording, so the tests that executed fa are still the ones it reaches.
    (recorded / "pkg/a.py").write_text(
        "import functools\n\n"
        + FILES["pkg/a.py"].replace("def fa() -> int:\n", "@functools.cache\ndef fa() -> int:\n")
    )
    assert [n for ns in _nodes(_plan(capfd)).values() for n, _, _ in ns] == [
        "tests/test_a.py::test_fa",
        "tests/test_b.py::test_fa_twice[1]",
        "tests/test_b.py::test_fa_twice[2]",
    ]
    # atexit.register hands fa to someone else: what that caller does with it the
    # flow cannot follow, so every importer runs whole.
    (recorded / "pkg/a.py").write_text(
        "import atexit\n\n"
        + FILES["pkg/a.py"].replace("def fa() -> int:\n", "@atexit.register\ndef fa() -> int:\n")
    )
    assert _nodes(_plan(capfd)) == {"tests/test_a.py": [], "tests/test_b.py": []}


SHARED = {
    "pyproject.toml": '[project]\nname = "sp"\nversion = "0"\n',
    ".gitignore": "envelopes/\n",
    "pkg/__init__.py": "from pkg import table, work\n",
    # build() runs once, at import: no test executes it, every importer uses its result.
    "pkg/table.py": "def build() -> dict[str, int]:\n    return {'a': 1}\n\n\nTABLE = build()\n",
    "pkg/work.py": "def prepare() -> int:\n    return 5\n\n\ndef other() -> int:\n    return 0\n",
    "tests/__init__.py": "",
    # A module-scoped fixture runs prepare() once, inside the first test that uses it.
    "tests/conftest.py": "import pytest\n\nfrom pkg import work\n\n\n"
    "@pytest.fixture(scope='module')\ndef prepared() -> int:\n    return work.prepare()\n",
    "tests/test_shared.py": "from pkg import table, work\n\n\n"
    "def test_first(prepared: int) -> None:\n    assert prepared == 5\n\n\n"
    "def test_second(prepared: int) -> None:\n    assert prepared == 5\n\n\n"
    "def test_table() -> None:\n    assert table.TABLE == {'a': 1}\n\n\n"
    "def test_other() -> None:\n    assert work.other() == 0\n",
}


@pytest.fixture(scope="module")
def shared_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("shared") / "project"
    record_once(root, SHARED)
    return root


@pytest.fixture
def shared(shared_recording: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return _copy(shared_recording, tmp_path, monkeypatch)


@pytest.mark.integration
def test_a_function_run_only_at_import_selects_the_readers_of_what_it_built(
    shared: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # Before: no recorded test executed build(), so the plan selected nothing
    # while test_table failed (boltons' urlutils builds its quote maps so);
    # then every importer ran whole. build() runs only to make TABLE, and only
    # test_table reads TABLE.
    (shared / "pkg/table.py").write_text(SHARED["pkg/table.py"].replace("'a': 1", "'a': 2"))
    plan = _plan(capfd)
    assert _nodes(plan) == {
        "tests/test_shared.py": [
            (
                "tests/test_shared.py::test_table",
                "map",
                (
                    "tests/test_shared.py::test_table reads TABLE, which changed "
                    "(line 5 of pkg/table.py builds it from build)"
                ),
            )
        ]
    }
    changed = next(c for c in plan["changed"] if c["path"] == "pkg/table.py")
    assert "followed the names it changes (TABLE, build)" in changed["detail"]


@pytest.mark.integration
def test_a_shared_fixtures_code_is_credited_to_every_test_using_it(
    shared: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # Before: prepare() ran inside test_first's setup only, so test_second
    # (which fails too) was left out.
    (shared / "pkg/work.py").write_text(SHARED["pkg/work.py"].replace("return 5", "return 6"))
    assert [n for n, _, _ in _nodes(_plan(capfd))["tests/test_shared.py"]] == [
        "tests/test_shared.py::test_first",
        "tests/test_shared.py::test_second",
    ]


@pytest.mark.integration
def test_a_test_that_only_starts_git_is_vouched_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    # git runs none of the project's code: before, such a test (most of lanekit's
    # tests build a temporary repository) was "not vouched for" and ran whenever
    # the static graph reached it.
    files = {
        **FILES,
        "tests/test_git.py": "import subprocess\n\nfrom pkg import a\n\n\n"
        "def test_git() -> None:\n"
        "    subprocess.run(['git', '--version'], check=True, capture_output=True)\n"
        "    assert a.fa2() == 2\n",
    }
    make_repo(tmp_path, files, "base")
    monkeypatch.chdir(tmp_path)
    assert main(["affected", "--record"]) == 0
    assert "recorded 7 tests (0 not vouched for" in capfd.readouterr().out
