"""Code run while pytest collects belongs to the tests it collected.

A real recording run (``lanes affected --record``) over a project where
project code runs at three moments outside every test: while one test
module is imported (a parametrize table), while one directory's
``conftest.py`` is imported, and in ``pytest_configure``. A change to the
first selects that module's tests, to the second the tests under that
directory, to the third what it selected before (the session's).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from lanes.affected import testmap
from lanes.affected.testmap import read_map
from lanes.cli import main
from lanes.errors import UsageError
from tests.affected.recordings import changed_plan
from tests.support.git import make_repo

if TYPE_CHECKING:
    from pathlib import Path

FILES = {
    "pyproject.toml": '[project]\nname = "cs"\nversion = "0"\n',
    ".gitignore": "envelopes/\n",
    # Every submodule on the way: the static graph selects every test for any change.
    "pkg/__init__.py": "from pkg import conf, plug, shared, sizes, table\n",
    "pkg/table.py": "def rows() -> list[int]:\n    return [1, 2]\n",
    "pkg/shared.py": "def build() -> list[int]:\n    return [3]\n",
    "pkg/conf.py": "def value() -> int:\n    return 5\n",
    "pkg/plug.py": "SEEN: list[str] = []\n\n\ndef configure() -> None:\n    SEEN.append('x')\n",
    "conftest.py": "def pytest_configure(config: object) -> None:\n"
    "    from pkg import plug\n\n    plug.configure()\n",
    # Built while pytest imports this module alone: its tests only.
    "tests/test_table.py": "import pytest\n\nfrom pkg import table\n\nROWS = table.rows()\n\n\n"
    "@pytest.mark.parametrize('row', ROWS)\n"
    "def test_row(row: int) -> None:\n    assert row > 0\n",
    # Collected after test_table.py, it reads the table that collection built.
    "tests/test_zreuse.py": "from tests.test_table import ROWS\n\n\n"
    "def test_reuse() -> None:\n    assert ROWS == [1, 2]\n",
    # Built when the helper is first imported, shared by both importers: the session's.
    "tests/__init__.py": "",
    "tests/helpers.py": "from pkg import shared\n\nTABLE = shared.build()\n",
    "tests/test_h1.py": "from tests import helpers\n\n\ndef test_h1() -> None:\n    assert helpers.TABLE == [3]\n",
    "tests/test_h2.py": "from tests import helpers\n\n\ndef test_h2() -> None:\n    assert helpers.TABLE == [3]\n",
    # Built while pytest collects tests/sub/ (its conftest): the tests under it.
    "tests/sub/conftest.py": "import pytest\n\nfrom pkg import conf\n\nVALUE = conf.value()\n\n\n"
    "@pytest.fixture\ndef value() -> int:\n    return VALUE\n",
    "tests/sub/test_s1.py": "def test_s1(value: int) -> None:\n    assert value == 5\n",
    "tests/sub/test_s2.py": "def test_s2(value: int) -> None:\n    assert value == 5\n",
    "tests/test_plain.py": "import pkg\n\n\ndef test_plain() -> None:\n    assert pkg.plug.SEEN\n",
    # A constant read by a function that ran only while pytest imported one test
    # module (its module-level table), and by one test of another.
    "pkg/sizes.py": "LIMIT = 3\n\n\ndef sizes() -> list[int]:\n    return list(range(LIMIT))\n",
    "tests/test_sized.py": "import pytest\n\nfrom pkg import sizes\n\nSIZES = sizes.sizes()\n\n\n"
    "@pytest.mark.parametrize('size', SIZES)\n"
    "def test_size(size: int) -> None:\n    assert size >= 0\n",
    "tests/test_zlimit.py": "from pkg import sizes\n\n\ndef test_limit() -> None:\n"
    "    assert sizes.sizes()\n\n\ndef test_other() -> None:\n    assert True\n",
    # A file no Python imports, turned into tests by a collector (a fuzz corpus):
    # what its collect() runs is that file's.
    "pkg/cases.py": "def parse(text: str) -> list[str]:\n    return text.split()\n",
    "tests/cases/conftest.py": "import pytest\n\nfrom pkg import cases\n\n\n"
    "class CaseFile(pytest.File):\n"
    "    def collect(self):  # type: ignore[no-untyped-def]\n"
    "        for word in cases.parse(self.path.read_text()):\n"
    "            yield CaseItem.from_parent(self, name=word)\n\n\n"
    "class CaseItem(pytest.Item):\n"
    "    def runtest(self) -> None:\n        assert self.name.isalpha()\n\n\n"
    "def pytest_collect_file(file_path, parent):  # type: ignore[no-untyped-def]\n"
    "    if file_path.suffix == '.case':\n"
    "        return CaseFile.from_parent(parent, path=file_path)\n"
    "    return None\n",
    "tests/cases/words.case": "alpha beta\n",
}

EVERY_TEST = [
    "tests/sub/test_s1.py",
    "tests/sub/test_s2.py",
    "tests/test_h1.py",
    "tests/test_h2.py",
    "tests/test_plain.py",
    "tests/test_sized.py",
    "tests/test_table.py",
    "tests/test_zlimit.py",
    "tests/test_zreuse.py",
]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("scopes")
    make_repo(root, FILES, "base")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        assert main(["affected", "--record"]) == 0
    return root


def _reasons(plan: dict[str, Any]) -> dict[str, list[str]]:
    return {t["file"]: [r["detail"] for r in t["reasons"]] for t in plan["tests"]}


@pytest.mark.integration
def test_the_map_keeps_each_collection_scope_apart_from_the_session(recorded: Path) -> None:
    test_map = read_map(recorded / "envelopes/affected-map.json")
    assert test_map is not None
    assert test_map.document["version"] == testmap.MAP_VERSION
    assert test_map.collected_by("pkg/table.py", {"rows"}) == {"rows": ["tests/test_table.py"]}
    assert test_map.collected_by("pkg/conf.py", {"value"}) == {"value": ["tests/sub/"]}
    # Run by a helper's import: shared by its importers, the session's.
    assert "build" in test_map.session_outside("pkg/shared.py")
    assert test_map.collected_by("pkg/shared.py", {"build"}) == {}
    assert "configure" in test_map.session_outside("pkg/plug.py")
    assert "rows" not in test_map.session_outside("pkg/table.py")
    # The name flow still sees every function that ran outside a test.
    assert "rows" in test_map.outside("pkg/table.py")
    assert test_map.scope_tests("tests/sub/") == ["tests/sub/test_s1.py", "tests/sub/test_s2.py"]


@pytest.mark.integration
def test_a_table_built_at_one_modules_import_selects_that_module_and_its_importers(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = changed_plan(recorded, capsys, "pkg/table.py", "[1, 2]", "[1, 0]")
    ran = "pkg/table.py::rows ran while pytest collected tests/test_table.py"
    assert _reasons(plan) == {
        "tests/test_table.py": [f"{ran} (the collection could produce other items): it runs whole"],
        # What that import built lives on in the module another test imports.
        "tests/test_zreuse.py": [f"{ran}, and it imports tests/test_table.py: it runs whole"],
    }
    assert "ran while pytest collected tests/test_table.py" in plan["changed"][0]["detail"]


@pytest.mark.integration
def test_a_value_built_at_a_conftests_import_selects_the_tests_under_it(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = changed_plan(recorded, capsys, "pkg/conf.py", "return 5", "return 6")
    why = (
        "pkg/conf.py::value ran while pytest collected tests/sub/ (its conftest.py or "
        "__init__.py): every test under it (the collection could produce other items): "
        "it runs whole"
    )
    assert _reasons(plan) == {"tests/sub/test_s1.py": [why], "tests/sub/test_s2.py": [why]}


@pytest.mark.integration
def test_a_constant_read_while_one_module_was_collected_selects_that_module_and_its_readers(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = changed_plan(recorded, capsys, "pkg/sizes.py", "LIMIT = 3", "LIMIT = 0")
    # `sizes` ran while pytest collected test_sized.py, called by its
    # module-level `SIZES = sizes.sizes()`: the flow follows it into SIZES,
    # which test_size's parametrize decorator reads as pytest collects the
    # file: its items run, by the test's own id (with LIMIT = 0, its one item
    # is `test_size[NOTSET]`, an id the recording never saw).
    assert _reasons(plan) == {
        "tests/test_sized.py": [
            "a parametrize decorator at line 8 reads SIZES, run when it is collected: its items run"
        ],
        "tests/test_zlimit.py": [
            "pkg/sizes.py::sizes reads LIMIT, which the change binds (line 1)"
        ],
    }
    nodes = {t["file"]: [n["id"] for n in t.get("nodes", [])] for t in plan["tests"]}
    assert nodes == {
        "tests/test_sized.py": ["tests/test_sized.py::test_size"],
        "tests/test_zlimit.py": ["tests/test_zlimit.py::test_limit"],
    }
    assert "followed the names it changes (LIMIT" in plan["changed"][0]["detail"]


@pytest.mark.integration
def test_a_table_a_shared_helper_builds_at_import_keeps_every_importer(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The first importer's collection ran it, the second reads what it built:
    # crediting the first alone would miss test_h2.
    plan = changed_plan(recorded, capsys, "pkg/shared.py", "[3]", "[4]")
    selected = _reasons(plan)
    assert {"tests/test_h1.py", "tests/test_h2.py"} <= set(selected)
    # The session's: followed by the name flow, as before, not by a collection scope.
    assert "followed the names it changes (build)" in plan["changed"][0]["detail"]
    assert "ran while pytest collected" not in plan["changed"][0]["detail"]


@pytest.mark.integration
def test_code_run_at_pytest_configure_selects_every_importer_as_before(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = changed_plan(recorded, capsys, "pkg/plug.py", "SEEN.append('x')", "SEEN.append('y')")
    assert sorted(_reasons(plan)) == EVERY_TEST
    detail = plan["changed"][0]["detail"]
    assert "configure ran outside every test when the map was recorded" in detail
    assert detail.endswith("every test that imports it")


@pytest.mark.integration
def test_a_version_2_map_without_scopes_plans_as_it_did(
    recorded: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    document = json.loads((recorded / "envelopes/affected-map.json").read_text())
    # Version 2: what ran at any collection was all the session's.
    scoped = [i for indices in document.pop("collected").values() for i in indices]
    document["outside"] = sorted({*document["outside"], *scoped})
    old = tmp_path / "v2-map.json"
    old.write_text(json.dumps({**document, "version": 2}))
    plan = changed_plan(recorded, capsys, "pkg/table.py", "[1, 2]", "[1, 0]", "--map", str(old))
    # The session's: followed by the name flow, as a version 2 map was.
    assert "followed the names it changes (rows)" in plan["changed"][0]["detail"]
    assert "ran while pytest collected" not in plan["changed"][0]["detail"]


@pytest.mark.integration
def test_what_a_collector_runs_for_a_non_python_file_selects_that_files_tests(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = changed_plan(recorded, capsys, "pkg/cases.py", "text.split()", "text.split()[:1]")
    why = (
        "pkg/cases.py::parse ran while pytest collected tests/cases/words.case (the "
        "collection could produce other items): it runs whole"
    )
    assert _reasons(plan) == {"tests/cases/words.case": [why]}


@pytest.mark.integration
def test_a_version_3_map_without_valid_scopes_is_refused_with_a_hint(
    recorded: Path, tmp_path: Path
) -> None:
    document = json.loads((recorded / "envelopes/affected-map.json").read_text())
    missing = tmp_path / "missing.json"
    missing.write_text(json.dumps({k: v for k, v in document.items() if k != "collected"}))
    with pytest.raises(UsageError, match="must hold 'collected', an object") as caught:
        read_map(missing)
    assert caught.value.hint
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**document, "collected": {"tests/x.py": [10**6]}}))
    with pytest.raises(UsageError, match=r"collection scope 'tests/x\.py' without a list"):
        read_map(bad)
