"""`lanes affected --record` and the map: a real recording run, then plans narrowed by it.

The project is the shape measured: a package whose ``__init__`` imports
every submodule, so the static graph selects every test for any change.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from lanes.affected.testmap import read_map
from lanes.cli import main
from lanes.errors import UsageError
from tests.affected.recordings import NO_HYPOTHESIS, own_copy, record_once
from tests.support.git import git, make_repo

FILES = {
    "pyproject.toml": '[project]\nname = "mp"\nversion = "0"\n',
    ".gitignore": "envelopes/\n",
    "pkg/__init__.py": "from pkg import a, b, loader\n",
    # A computed import that could reach any module: the static net selects every
    # test for any change; the map, which saw what each test executed, does not.
    "pkg/loader.py": "import importlib\n\n\ndef load(name: str) -> object:\n"
    "    return importlib.import_module(name)\n",
    "pkg/a.py": "CONST = 1\n\n\ndef fa() -> int:\n    return CONST\n\n\ndef unused() -> int:\n    return 0\n",
    "pkg/b.py": "def fb() -> int:\n    return 2\n",
    "tests/__init__.py": "",
    "tests/test_a.py": "from pkg import a\n\n\ndef test_a() -> None:\n    assert a.fa() == 1\n",
    "tests/test_b.py": "from pathlib import Path\n\nfrom pkg import b\n\n\ndef test_b() -> None:\n"
    "    assert b.fb() == 2\n"
    "    assert Path(__file__).with_name('data.txt').read_text() == 'x\\n'\n",
    "tests/data.txt": "x\n",
    # A child in isolated mode (-I ignores PYTHONPATH, where the recording's
    # bootstrap is) does not record itself: the map cannot see what it ran.
    "tests/test_spawn.py": "import subprocess\nimport sys\n\nimport pkg\n\n\ndef test_spawn() -> None:\n"
    "    assert pkg\n"
    "    subprocess.run([sys.executable, '-I', '-c', 'pass'], check=True)\n",
}


# A recording is a real pytest run under the recorder (the expensive part of
# these tests): made once per module, and each test changes its own copy.
@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("recorded") / "project"
    assert (
        "recorded 3 tests (1 not vouched for: failed, started a process that left no record, "
        "or a Hypothesis test drawing at random)" in record_once(root, FILES)
    )
    return root


@pytest.fixture
def recorded(recording: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return own_copy(recording, tmp_path, monkeypatch)


def _plan(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["affected", "--json", *args]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert isinstance(plan, dict)
    return plan


def _tests(plan: dict[str, Any]) -> dict[str, list[str]]:
    return {t["file"]: [r["rule"] for r in t["reasons"]] for t in plan["tests"]}


@pytest.mark.integration
def test_the_map_is_a_validated_document_of_functions_per_test(recorded: Path) -> None:
    test_map = read_map(recorded / "envelopes/affected-map.json")
    assert test_map is not None
    document = test_map.document
    assert document["commit"] == git(recorded, "rev-parse", "HEAD").strip()
    names = {(node[0], node[1]) for node in document["nodes"]}
    assert {("pkg/a.py", "fa"), ("pkg/b.py", "fb")} <= names
    assert ("pkg/a.py", "unused") not in names  # never executed
    assert document["data"] == ["tests/data.txt"]
    assert test_map.unvouched() == {
        "tests/test_spawn.py": "tests/test_spawn.py::test_spawn: 1 process it started (or "
        f"its children started: {Path(sys.executable).name} -I) left no record of what ran "
        "(a launcher, run with -E, -I or -S, killed before it could record, or still "
        "running when the test ended)"
    }


@pytest.mark.integration
def test_a_function_change_selects_the_tests_that_executed_it(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (recorded / "pkg/a.py").write_text(
        FILES["pkg/a.py"].replace("return CONST", "return CONST + 1")
    )
    plan = _plan(capsys)
    # Static: all three (pkg/__init__ imports a); the map: test_a executed fa,
    # test_spawn's child left no record, so the map does not vouch for it.
    assert _tests(plan) == {"tests/test_a.py": ["map"], "tests/test_spawn.py": ["import graph"]}
    assert plan["map"].startswith("using envelopes/affected-map.json (commit ")
    reasons = {t["file"]: t["reasons"][0]["detail"] for t in plan["tests"]}
    assert reasons["tests/test_a.py"] == "executed pkg/a.py::fa"
    assert "the map does not vouch" in reasons["tests/test_spawn.py"]


@pytest.mark.integration
def test_a_module_level_change_keeps_every_importer(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A module-level call: no name flow follows what it changes (a changed
    # constant selects the tests that executed code reading it).
    (recorded / "pkg/a.py").write_text(FILES["pkg/a.py"].replace("CONST = 1", "print(1)"))
    plan = _plan(capsys)
    assert sorted(_tests(plan)) == ["tests/test_a.py", "tests/test_b.py", "tests/test_spawn.py"]
    assert "a module-level change at line 1" in plan["changed"][0]["detail"]


@pytest.mark.integration
def test_a_data_file_selects_its_readers_and_what_the_map_cannot_vouch_for(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (recorded / "tests/data.txt").write_text("broken\n")
    assert _tests(_plan(capsys)) == {
        "tests/test_b.py": ["map"],
        "tests/test_spawn.py": ["test data"],
    }


@pytest.mark.integration
def test_a_new_file_and_a_foreign_map_fall_back_to_the_static_rules(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (recorded / "pkg/c.py").write_text("def fc() -> int:\n    return 3\n")
    (recorded / "pkg/__init__.py").write_text("from pkg import a, b, c\n")
    git(recorded, "add", "-A")
    plan = _plan(capsys)
    changed = {c["path"]: c["detail"] for c in plan["changed"]}
    assert "new since the map's commit" in changed["pkg/c.py"]
    assert len(plan["tests"]) == 3
    # Another configuration (pytest's config file changed): the map is not used, said once.
    (recorded / "pytest.ini").write_text("[pytest]\n")
    plan = _plan(capsys)
    assert "is from another configuration" in plan["map"]


@pytest.mark.integration
def test_a_damaged_map_is_refused_with_a_hint(recorded: Path) -> None:
    (recorded / "envelopes/affected-map.json").write_text(
        '{"kind": "lanes-affected-map", "version": 9}'
    )
    with pytest.raises(
        UsageError, match="has version 9; this lanekit reads versions 2, 3, 4, 5, 6, 7 and 8"
    ) as caught:
        read_map(recorded / "envelopes/affected-map.json")
    assert caught.value.hint


@pytest.mark.integration
@pytest.mark.parametrize("ms", [-1, True, 1.5, 10**12])
def test_a_recorded_duration_that_is_no_test_s_is_refused(recorded: Path, ms: object) -> None:
    path = recorded / "envelopes/affected-map.json"
    document = json.loads(path.read_text())
    assert all(isinstance(test["ms"], int) for test in document["tests"])
    document["tests"][0]["ms"] = ms
    path.write_text(json.dumps(document))
    with pytest.raises(UsageError, match="has a malformed test entry"):
        read_map(path)


@pytest.mark.integration
@pytest.mark.parametrize(
    ("where", "value"),
    [("map", 7), ("map", "x" * 201), ("test", "yes"), ("test", 1)],
    ids=["seed-not-a-string", "seed-too-long", "seeded-not-a-bool", "seeded-one"],
)
def test_a_seed_that_is_no_recording_s_is_refused(
    recorded: Path, where: str, value: object
) -> None:
    # A seeded test is vouched for: only a real true may say so.
    path = recorded / "envelopes/affected-map.json"
    document = json.loads(path.read_text())
    if where == "map":
        document["hypothesis_seed"] = value
    else:
        document["tests"][0]["seeded"] = value
    path.write_text(json.dumps(document))
    with pytest.raises(UsageError, match=r"hypothesis_seed that is not|malformed test entry"):
        read_map(path)


# A caller the flow trusts leaves tests unselected: only an edge within the
# map counts. A version 8 map without its reads outside tests would leave a
# file read at collection unselected.
_DAMAGED_FIELDS: dict[str, list[object]] = {
    "outside_callers": [
        {"not": "a list"},
        [[0, None]],
        [[10**6, None, ""]],
        [[0, 10**6, ""]],
        [[0, ["pkg/a.py", -1], ""]],
        [[0, ["line", "pkg/a.py", 1], ""]],
        [[0, None, 7]],
    ],
    "data_outside": [None, {"tests/data.txt": ""}, [["tests/data.txt"]], [["tests/data.txt", 0]]],
}


@pytest.mark.integration
@pytest.mark.parametrize(
    ("field", "damaged"),
    [(field, value) for field, values in _DAMAGED_FIELDS.items() for value in values],
    ids=[
        *("callers-" + i for i in ("not-a-list", "no-scope", "callee-out", "caller-out")),
        *("callers-" + i for i in ("bad-line", "bad-site", "bad-scope")),
        *("reads-" + i for i in ("absent", "not-a-list", "no-scope", "bad-scope")),
    ],
)
def test_recorded_calls_and_reads_that_are_no_recording_s_are_refused(
    recorded: Path, field: str, damaged: object
) -> None:
    path = recorded / "envelopes/affected-map.json"
    document = json.loads(path.read_text())
    assert isinstance(document[field], list)
    document[field] = damaged
    path.write_text(json.dumps(document))
    with pytest.raises(UsageError, match=f"has '{field}' that is not a list"):
        read_map(path)


@pytest.mark.integration
def test_a_change_no_recorded_test_executed_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Without the spawning test, nothing keeps a test the map did not see run `unused`.
    make_repo(tmp_path, {k: v for k, v in FILES.items() if k != "tests/test_spawn.py"}, "base")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTEST_ADDOPTS", NO_HYPOTHESIS)
    assert main(["affected", "--record"]) == 0
    (tmp_path / "pkg/a.py").write_text(FILES["pkg/a.py"].replace("return 0", "return 5"))
    capsys.readouterr()
    assert main(["affected"]) == 0
    out = capsys.readouterr().out
    assert "map: using envelopes/affected-map.json (commit " in out
    assert "map: 0 of 2 statically selected test files (0 test ids); changed unused" in out
    assert "none: no recorded test executed what changed, and no static rule adds one" in out


@pytest.mark.integration
@pytest.mark.skipif(
    sys.version_info < (3, 12), reason="sys.monitoring (3.12+): 3.11 records with settrace"
)
def test_recording_leaves_hypothesis_its_monitoring_tool_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Hypothesis traces a failing example with sys.monitoring tool id 3 and
    # warns when another tool holds it; under -W error that warning failed every
    # Hypothesis test of a recording run (lanekit's own fuzz tests among them).
    files = {
        **FILES,
        # A property with a counterexample, found as a user's test would: the
        # explain phase traces it (the default phases), under -W error.
        "tests/test_prop.py": "import pytest\nfrom hypothesis import given, strategies as st\n\n"
        "from pkg import b\n\n\ndef test_prop() -> None:\n"
        "    @given(st.integers())\n    def prop(n: int) -> None:\n        assert b.fb() + n < 12\n\n"
        "    with pytest.raises(AssertionError):\n        prop()\n",
        "pyproject.toml": FILES["pyproject.toml"]
        + '\n[tool.pytest.ini_options]\nfilterwarnings = ["error"]\n',
    }
    make_repo(tmp_path, files, "base")
    monkeypatch.chdir(tmp_path)
    assert main(["affected", "--record"]) == 0
    out = capsys.readouterr().out
    assert "recorded 4 tests (1 not vouched for" in out
