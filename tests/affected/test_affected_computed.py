"""The computed-import net with a recorded map: it applies only where a computed import ran.

Real recording runs (``lanes affected --record``: a pytest session under the
recorder) over a package shaped like toolz: its ``__init__`` imports every
submodule, one computed import runs in one test (a loader), another sits in a
function run at import whose branch never reaches it (toolz's signature
registry), and a module is reached only through the loader. The suite runs on
the interpreter nox runs under; on 3.11 that is the ``settrace`` path, on
3.12+ ``sys.monitoring``.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import pytest

from lanes.affected import testmap
from lanes.affected.testmap import read_map
from lanes.cli import main
from tests.affected.recordings import NO_HYPOTHESIS, own_copy
from tests.support.git import make_repo

if TYPE_CHECKING:
    from pathlib import Path

REGISTRY = (
    "import importlib\nimport sys\n\n\n"
    "def build(table: dict[object, int]) -> list[object]:\n"
    "    found = []\n"
    "    for key in table:\n"
    "        if isinstance(key, str):\n"
    "            key = importlib.import_module(key)\n"  # line 9: never runs, the keys are modules
    "        found.append(key)\n"
    "    return found\n\n\n"
    "BUILT = build({sys: 1})\n"
)
FILES = {
    "pyproject.toml": '[project]\nname = "cp"\nversion = "0"\n',
    ".gitignore": "envelopes/\n",
    "pkg/__init__.py": "from pkg import loader, other, registry\n",
    # Runs in one test: the module it loads is the one that test gets.
    "pkg/loader.py": "import importlib\n\n\ndef load(name: str) -> object:\n"
    "    return importlib.import_module(name)\n",
    "pkg/registry.py": REGISTRY,
    # Reached only through the loader: no file imports it by name.
    "pkg/target.py": "VALUE = 1\n\n\ndef get() -> int:\n    return VALUE\n",
    "pkg/other.py": "def f() -> int:\n    return 2\n",
    "tests/__init__.py": "",
    "tests/test_loader.py": "from pkg import loader\n\n\ndef test_load() -> None:\n"
    "    module = loader.load('.'.join(['pkg', 'target']))\n"
    "    assert getattr(module, 'VALUE') == 1\n\n\n"
    "def test_beside() -> None:\n    assert loader\n",
    "tests/test_other.py": "from pkg import other\n\n\ndef test_other() -> None:\n"
    "    assert other.f() == 2\n",
}


def _record(root: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> None:
    make_repo(root, files, "base")
    monkeypatch.chdir(root)
    monkeypatch.setenv("PYTEST_ADDOPTS", NO_HYPOTHESIS)
    assert main(["affected", "--record"]) == 0


def _plan(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["affected", "--json", *args]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert isinstance(plan, dict)
    return plan


def _selected(plan: dict[str, Any]) -> dict[str, list[str] | None]:
    """Test file -> its selected test ids, or None when it runs whole."""
    return {
        t["file"]: [n["id"] for n in t["nodes"]] if "nodes" in t else None for t in plan["tests"]
    }


def _change_target(root: Path) -> None:
    # A module-level change: the static graph sees no importer of pkg/target.py.
    (root / "pkg/target.py").write_text(FILES["pkg/target.py"].replace("VALUE = 1", "VALUE = 3"))


# A recording is a real pytest run under the recorder (the expensive part of
# these tests): the shared project's is made once per module, and each test
# changes its own copy.
@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("recorded") / "project"
    with pytest.MonkeyPatch.context() as patch:
        _record(root, patch, FILES)
    return root


@pytest.fixture
def recorded(recording: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return own_copy(recording, tmp_path, monkeypatch)


@pytest.mark.integration
def test_the_map_records_which_computed_imports_ran_and_in_which_tests(recorded: Path) -> None:
    test_map = read_map(recorded / "envelopes/affected-map.json")
    assert test_map is not None
    assert test_map.document["version"] == testmap.MAP_VERSION
    assert test_map.document["sites"] == [("pkg/loader.py", 5), ("pkg/registry.py", 9)]
    assert test_map.site_runs("pkg/loader.py", 5) == (
        False,
        {"tests/test_loader.py::test_load": "tests/test_loader.py"},
    )
    # build() ran at import, but its import_module line never did.
    assert test_map.site_runs("pkg/registry.py", 9) == (False, {})
    assert test_map.site_runs("pkg/registry.py", 4) is None  # no site there


@pytest.mark.integration
def test_a_change_reached_by_a_computed_import_selects_the_tests_that_ran_it(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _change_target(recorded)
    plan = _plan(capsys)
    # Only the test that ran the loader, by id; the registry's import never ran.
    assert _selected(plan) == {"tests/test_loader.py": ["tests/test_loader.py::test_load"]}
    (node,) = plan["tests"][0]["nodes"]
    assert node["reasons"][0]["rule"] == "computed import"
    assert (
        "executed the computed import at pkg/loader.py:5 when the map was recorded"
        in (node["reasons"][0]["detail"])
    )
    (changed,) = plan["changed"]
    assert "computed import at pkg/registry.py:9 never ran in the recording" in changed["detail"]
    assert "computed import at pkg/loader.py:5 ran in 1 recorded test" in changed["detail"]
    spots = {(b["file"], b["line"]): b["what"] for b in plan["blind_spots"]}
    assert spots[("pkg/registry.py", 9)].endswith(
        "; computed import at pkg/registry.py:9 never ran in the recording"
    )
    capsys.readouterr()
    assert main(["affected"]) == 0
    text = capsys.readouterr().out
    assert "computed import at pkg/registry.py:9 never ran in the recording" in text
    assert "tests/test_other.py" not in text


@pytest.mark.integration
def test_without_a_map_every_computed_import_fails_open(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (recorded / "envelopes/affected-map.json").unlink()
    _change_target(recorded)
    plan = _plan(capsys)
    assert _selected(plan) == {"tests/test_loader.py": None, "tests/test_other.py": None}
    assert all(r["rule"] == "computed import" for t in plan["tests"] for r in t["reasons"]), plan[
        "tests"
    ]


@pytest.mark.integration
def test_a_change_to_the_file_holding_a_computed_import_fails_open(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The registry's lines moved, and its branch may now run: the recording cannot say.
    (recorded / "pkg/registry.py").write_text("# moved\n" + REGISTRY)
    _change_target(recorded)
    plan = _plan(capsys)
    selected = _selected(plan)
    assert selected["tests/test_other.py"] is None
    assert selected["tests/test_loader.py"] is None
    target = next(c for c in plan["changed"] if c["path"] == "pkg/target.py")
    assert (
        "computed import at pkg/registry.py:10: its file changed since the map's commit"
        in (target["detail"])
    )


@pytest.mark.integration
def test_a_computed_import_run_at_import_keeps_its_whole_net(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Run outside every test: what it loaded was there for every test
    # (through __import__, whose fromlist may import more: what it imported is unknown).
    registry = REGISTRY.replace("BUILT = build({sys: 1})", "BUILT = build({'json': 1})")
    files = {
        **FILES,
        "pkg/registry.py": registry.replace("importlib.import_module(key)", "__import__(key)"),
    }
    _record(tmp_path, monkeypatch, files)
    test_map = read_map(tmp_path / "envelopes/affected-map.json")
    assert test_map is not None
    assert test_map.site_runs("pkg/registry.py", 9) == (True, {})
    _change_target(tmp_path)
    plan = _plan(capsys)
    assert _selected(plan) == {"tests/test_loader.py": None, "tests/test_other.py": None}
    (changed,) = plan["changed"]
    assert (
        "computed import at pkg/registry.py:9 ran outside every test in the recording"
        in changed["detail"]
    )


@pytest.mark.integration
def test_a_computed_import_a_child_process_ran_counts_for_its_test(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The child is not line traced: the function holding the site ran there, so the site did.
    files = {
        **FILES,
        "tests/test_child.py": "import subprocess\nimport sys\n\n\ndef test_child() -> None:\n"
        "    code = \"from pkg import loader; loader.load('.'.join(['pkg', 'other']))\"\n"
        "    subprocess.run([sys.executable, '-c', code], check=True)\n",
    }
    _record(tmp_path, monkeypatch, files)
    test_map = read_map(tmp_path / "envelopes/affected-map.json")
    assert test_map is not None
    runs = test_map.site_runs("pkg/loader.py", 5)
    assert runs is not None
    assert "tests/test_child.py::test_child" in runs[1]
    _change_target(tmp_path)
    plan = _plan(capsys)
    assert _selected(plan) == {
        "tests/test_child.py": ["tests/test_child.py::test_child"],
        "tests/test_loader.py": ["tests/test_loader.py::test_load"],
    }


@pytest.mark.integration
def test_a_map_that_did_not_watch_a_computed_import_fails_open(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A map recorded before the site existed knows nothing of it (here: its list emptied).
    path = recorded / "envelopes/affected-map.json"
    document = json.loads(path.read_text())
    document["sites"], document["outside_sites"], document["site_imports"] = [], [], []
    for test in document["tests"]:
        test.pop("sites", None)
    path.write_text(json.dumps(document))
    _change_target(recorded)
    plan = _plan(capsys)
    assert _selected(plan) == {"tests/test_loader.py": None, "tests/test_other.py": None}
    (changed,) = plan["changed"]
    assert (
        "computed import at pkg/registry.py:9: the recording did not watch it"
        in (changed["detail"])
    )


@pytest.mark.integration
def test_a_computed_import_that_imported_other_files_selects_nothing_on_3_12(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The loader ran and imported pkg/target.py: a change to pkg/extra.py, which
    # nothing imports, cannot reach a test through it. 3.11 sees no call's
    # arguments, so what a site imported stays unknown there: its tests run.
    _record(tmp_path, monkeypatch, {**FILES, "pkg/extra.py": "EXTRA = 1\n"})
    test_map = read_map(tmp_path / "envelopes/affected-map.json")
    assert test_map is not None
    imported = test_map.site_imports("pkg/loader.py", 5)
    (tmp_path / "pkg/extra.py").write_text("EXTRA = 2\n")
    plan = _plan(capsys)
    if sys.version_info >= (3, 12):
        assert imported == ["pkg/target.py"]
        assert _selected(plan) == {}
        (changed,) = plan["changed"]
        assert (
            "computed import at pkg/loader.py:5 ran in the recording and imported only pkg/target.py"
            in changed["detail"]
        )
    else:
        assert imported is None
        assert _selected(plan) == {"tests/test_loader.py": ["tests/test_loader.py::test_load"]}


@pytest.mark.integration
def test_a_name_the_change_binds_in_a_module_a_computed_import_got_keeps_its_tests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The loader got pkg (loaded already) and read X, which pkg takes from pkg/sub.py:
    # a change to sub.py's X changes what the loader's callers read.
    files = {
        **FILES,
        "pkg/__init__.py": FILES["pkg/__init__.py"] + "from pkg.sub import X\n",
        "pkg/sub.py": "X = 1\n",
        "tests/test_reexport.py": "from pkg import loader\n\n\ndef test_x() -> None:\n"
        "    assert getattr(loader.load('pkg'), 'X') == 1\n",
    }
    _record(tmp_path, monkeypatch, files)
    (tmp_path / "pkg/sub.py").write_text("X = 2\n")
    plan = _plan(capsys)
    selected = _selected(plan)
    assert "tests/test_reexport.py::test_x" in (selected.get("tests/test_reexport.py") or [])
