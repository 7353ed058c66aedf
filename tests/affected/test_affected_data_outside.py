"""Data files read outside a test's own run, and the tests they shape.

A real recording of a project whose data files are read four ways: while
pytest collects a test module (its parametrize cases), by a session fixture
(once, for every test that uses it), by the root conftest as pytest starts,
and by a test as it runs. Before, only the last was credited: a change to
the cases file selected the one test that read it as it ran and missed the
failing case; a change to the fixture's file selected the first test that
used it alone; a change to the file read at start-up selected its one
in-test reader. Now the collection's module runs whole, the fixture's users
run, and a file read at start-up runs everything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests.affected.recordings import (
    changed_plan,
    edited_map,
    record_once,
    recorded_map,
    selected_reasons,
)

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.integration

HERE = "Path(__file__).parent"
FILES = {
    "pyproject.toml": '[project]\nname = "reads"\nversion = "0"\n',
    ".gitignore": "envelopes/\n",
    "tests/__init__.py": "",
    "tests/cases.txt": "1\n2\n",
    "tests/settings.txt": "on\n",
    "tests/boot.txt": "mode 1\n",
    # A kind of file no rule knows: the map alone can tell who reads it.
    "tests/fixtures/sample.bin": "\x7fELF\n",
    "conftest.py": f"from pathlib import Path\n\nBOOT = ({HERE} / 'tests/boot.txt').read_text()\n",
    "tests/conftest.py": "from pathlib import Path\n\nimport pytest\n\n\n"
    "@pytest.fixture(scope='session')\ndef settings() -> str:\n"
    f"    return ({HERE} / 'settings.txt').read_text()\n",
    "tests/test_params.py": "from pathlib import Path\n\nimport pytest\n\n"
    f"CASES = [int(n) for n in ({HERE} / 'cases.txt').read_text().split()]\n\n\n"
    "@pytest.mark.parametrize('n', CASES)\ndef test_positive(n: int) -> None:\n"
    "    assert n > 0\n",
    "tests/test_reader.py": "from pathlib import Path\n\n\n"
    f"def test_reads() -> None:\n    assert ({HERE} / 'cases.txt').read_text()\n\n\n"
    f"def test_boot() -> None:\n    assert ({HERE} / 'boot.txt').read_text()\n\n\n"
    "def test_binary() -> None:\n"
    f"    assert ({HERE} / 'fixtures/sample.bin').read_bytes().startswith(b'\\x7f')\n\n\n"
    "def test_other() -> None:\n    assert True\n",
    "tests/test_settings.py": "def test_first(settings: str) -> None:\n    assert settings\n\n\n"
    "def test_second(settings: str) -> None:\n    assert settings\n\n\n"
    "def test_unused() -> None:\n    assert True\n",
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("reads")
    assert "recorded 9 tests" in record_once(root, FILES)
    return root


def test_the_map_keeps_each_file_read_outside_tests_with_the_scope_that_read_it(
    recorded: Path,
) -> None:
    outside = recorded_map(recorded).document["data_outside"]
    assert outside is not None
    assert ("tests/cases.txt", "tests/test_params.py") in outside
    assert ("tests/boot.txt", "") in outside  # the root conftest, as pytest starts
    # What the recording only wrote (its own output) is no read.
    assert not [file for file, _ in outside if file.startswith("envelopes/")]


def test_a_data_file_read_while_pytest_collected_a_module_runs_that_module_whole(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = changed_plan(recorded, capsys, "tests/cases.txt", "2\n", "-2\n")
    # Before: tests/test_reader.py::test_reads alone, and the failing case,
    # test_positive[-2], an item the new cases make, ran nowhere.
    assert selected_reasons(plan) == {
        "tests/test_params.py": (
            "tests/cases.txt was read while pytest collected tests/test_params.py "
            "(the collection could produce other items): it runs whole"
        ),
        "tests/test_reader.py::test_reads": "read tests/cases.txt when the map was recorded",
    }


def test_a_data_file_a_shared_fixture_read_selects_every_test_that_uses_the_fixture(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = changed_plan(recorded, capsys, "tests/settings.txt", "on", "")
    # Before: only the test that happened to set the fixture up.
    assert sorted(selected_reasons(plan)) == [
        "tests/test_settings.py::test_first",
        "tests/test_settings.py::test_second",
    ]


def test_a_data_file_read_as_pytest_starts_runs_every_test(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = changed_plan(recorded, capsys, "tests/boot.txt", "mode 1", "mode 2")
    # Before: tests/test_reader.py::test_boot alone, its one in-test reader.
    assert plan["full"]
    [reason] = plan["full_reasons"]
    assert reason["detail"].startswith("read outside every test at start-up")


def test_a_file_of_a_kind_no_rule_knows_under_the_tests_selects_its_recorded_readers(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = changed_plan(recorded, capsys, "tests/fixtures/sample.bin", "ELF", "ELG")
    # Before: "no rule knows which tests read this file kind": the full set.
    assert not plan["full"]
    assert selected_reasons(plan) == {
        "tests/test_reader.py::test_binary": (
            "read tests/fixtures/sample.bin when the map was recorded"
        )
    }


def test_an_older_map_that_did_not_record_reads_outside_tests_narrows_no_data_file(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def as_version_7(document: dict[str, Any]) -> None:
        document["version"] = 7
        del document["data_outside"]

    with edited_map(recorded, as_version_7):
        plan = changed_plan(recorded, capsys, "tests/cases.txt", "2\n", "-2\n")
    # Every test under tests/, the static rule for a file there.
    assert sorted(selected_reasons(plan)) == [
        "tests/test_params.py",
        "tests/test_reader.py",
        "tests/test_settings.py",
    ]
