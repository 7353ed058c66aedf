"""What ran at import, followed through the calls the recording saw there.

A real recording run over a project where three functions read a module-level
constant and run outside every test: one only from a module-level statement
(``TABLE = [limit()]``), which the name flow follows; one that also writes a
registry as it runs; one that pytest calls, through a conftest hook. A change
to the first constant selects the tests that read what the statement built;
the other two stop the flow, as every reader run outside tests did before.

And two classes under the project's own decorators: one that registers
nothing (a change to the class body is followed by name), one that appends
the class to a registry (the flow stops: what reads the registry is unseen).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from lanes.affected.testmap import ELSEWHERE
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

FILES = {
    "pyproject.toml": '[project]\nname = "callers"\nversion = "0"\n',
    ".gitignore": "envelopes/\n",
    # Every module on the way: the static graph selects every test for any change.
    "pkg/__init__.py": "from pkg import base, deco, loop, plug, reg, shapes, sizes, tables\n",
    "pkg/sizes.py": "SIZE = 2\n",
    # A fixture whose params read SIZE: its users' ids carry them (test_fix[2]).
    "tests/test_fixture.py": "import pytest\n\nfrom pkg.sizes import SIZE\n\n\n"
    "@pytest.fixture(params=[SIZE, SIZE + 1])\ndef n(request: pytest.FixtureRequest) -> int:\n"
    "    return int(request.param)\n\n\n"
    "def test_fix(n: int) -> None:\n    assert n >= 2\n\n\n"
    "def test_alone() -> None:\n    assert True\n",
    # Called in a loop at import: past the recording's budget, its callers are unknown.
    "pkg/loop.py": "RATE = 2\n\n\ndef rate(_: int) -> int:\n    return RATE\n\n\n"
    "RATES = list(map(rate, range(300)))\n",
    # `plain` notes a class in a registry only for the tests' own classes (as
    # attrs' builder bumps a counter only for auto_attribs ones): at import,
    # for pkg's classes, it writes nothing.
    "pkg/deco.py": "REGISTRY: list[type] = []\nNOTED: list[type] = []\n\n\n"
    "def note(cls: type) -> None:\n    NOTED.append(cls)\n\n\n"
    "def plain(cls: type) -> type:\n    if getattr(cls, 'local', False):\n        note(cls)\n"
    "    cls.tag = 'plain'\n    return cls\n\n\n"
    "def register(cls: type) -> type:\n    REGISTRY.append(cls)\n    return cls\n\n\n"
    "tag = plain\n",
    "pkg/shapes.py": "from pkg.deco import plain, register\n\n\n"
    "@plain\nclass Square:\n    side = 2\n\n\n"
    "@register\nclass Circle:\n    radius = 1\n\n\n"
    "def area() -> int:\n    return Square.side**2\n\n\n"
    "import pkg.deco as d\n\n\n@d.tag\nclass Triangle:\n    sides = 3\n\n\n"
    "def corners() -> int:\n    return Triangle.sides\n",
    "pkg/base.py": "LIMIT = 3\n\n\ndef limit() -> int:\n    return LIMIT + 1\n\n\n"
    "def other() -> int:\n    return 7\n",
    "pkg/tables.py": "from pkg.base import limit\n\nTABLE = [limit()]\n\n\n"
    "def first() -> int:\n    return TABLE[0]\n\n\ndef unrelated() -> int:\n    return 5\n",
    "pkg/reg.py": "SIZE = 2\nSEEN: list[int] = []\n\n\n"
    "def note() -> int:\n    SEEN.append(SIZE)\n    return SIZE\n\n\nNOTED = note()\n",
    "pkg/plug.py": "SCALE = 10\n\n\ndef scaled() -> int:\n    return SCALE * 2\n",
    "conftest.py": "def pytest_configure(config: object) -> None:\n"
    "    from pkg import plug\n\n    plug.scaled()\n",
    "tests/__init__.py": "",
    "tests/test_t.py": "from pkg import base, plug, reg, tables\n\n\n"
    "def test_first() -> None:\n    assert tables.first() == 4\n\n\n"
    "def test_unrelated() -> None:\n    assert tables.unrelated() == 5\n\n\n"
    "def test_other() -> None:\n    assert base.other() == 7\n\n\n"
    "def test_seen() -> None:\n    assert reg.SEEN == [2]\n\n\n"
    "def test_scaled() -> None:\n    assert plug.SCALE == 10\n",
    "tests/test_shapes.py": "from pkg import deco, shapes\n\n\n"
    "@deco.plain\nclass Local:\n    local = True\n\n\n"
    "def test_area() -> None:\n    assert shapes.area() == 4\n\n\n"
    "def test_registry() -> None:\n    assert deco.REGISTRY[0].radius == 1\n\n\n"
    "def test_corners() -> None:\n    assert shapes.corners() == 3\n",
}


EVERY_FILE = ["tests/test_fixture.py", "tests/test_shapes.py", "tests/test_t.py"]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("callers")
    assert "recorded 11 tests" in record_once(root, FILES)
    return root


def test_a_reader_called_only_by_a_followed_statement_at_import_selects_what_reads_its_result(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = changed_plan(recorded, capsys, "pkg/base.py", "LIMIT = 3", "LIMIT = 4")
    # Before, `limit` (it ran at import, outside every test) stopped the flow:
    # every test that imports pkg/base.py, all five.
    assert selected_reasons(plan) == {
        "tests/test_t.py::test_first": (
            "pkg/tables.py::first reads TABLE, which changed "
            "(line 3 of pkg/tables.py builds it from limit)"
        )
    }


def test_a_map_without_callers_stops_the_flow_at_such_a_reader_as_before(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A 3.11 recording, or an older map: no caller is known.
    with edited_map(recorded, lambda document: document.update(outside_callers=None)):
        plan = changed_plan(recorded, capsys, "pkg/base.py", "LIMIT = 3", "LIMIT = 4")
    assert list(selected_reasons(plan)) == EVERY_FILE
    assert "pkg/base.py::limit reads LIMIT" in plan["changed"][0]["detail"]


def test_a_helper_the_map_names_outside_the_project_is_not_read(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The map is data from someone else: an edge saying `limit` called a
    # function in ../outside.py must not make lanes read that file. Unread,
    # its writes are unknown, and the flow stops at `limit`.
    (recorded.parent / "outside.py").write_text("def helper() -> int:\n    return 1\n")

    def call_outside(document: dict[str, Any]) -> None:
        nodes = document["nodes"]
        limit = next(i for i, n in enumerate(nodes) if n[:2] == ["pkg/base.py", "limit"])
        nodes.append(["../outside.py", "helper", 1, 2])
        document["outside_callers"].append([len(nodes) - 1, limit, ""])

    with edited_map(recorded, call_outside):
        plan = changed_plan(recorded, capsys, "pkg/base.py", "LIMIT = 3", "LIMIT = 4")
    assert list(selected_reasons(plan)) == EVERY_FILE
    assert "pkg/base.py::limit reads LIMIT" in plan["changed"][0]["detail"]


def test_a_reader_at_import_that_writes_a_registry_stops_the_flow(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # What `note` appended to SEEN, a test reads without calling it.
    plan = changed_plan(recorded, capsys, "pkg/reg.py", "SIZE = 2", "SIZE = 3")
    assert list(selected_reasons(plan)) == EVERY_FILE
    assert (
        "pkg/reg.py::note reads SIZE, which the change affects, and ran outside every test"
        in (plan["changed"][0]["detail"])
    )


def test_a_reader_pytest_calls_through_a_hook_stops_the_flow(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = changed_plan(recorded, capsys, "pkg/plug.py", "SCALE = 10", "SCALE = 11")
    assert list(selected_reasons(plan)) == EVERY_FILE
    assert "pkg/plug.py::scaled reads SCALE" in plan["changed"][0]["detail"]


def test_a_class_under_a_project_decorator_that_registers_nothing_is_followed_by_name(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = changed_plan(recorded, capsys, "pkg/shapes.py", "side = 2", "side = 3")
    # Before: "a decorator at line 4 runs at import and may register it
    # elsewhere", every test importing pkg/shapes.py. What `plain` called for
    # test_shapes.py's own class (`note`, a writer) is not what it did here.
    assert selected_reasons(plan) == {
        "tests/test_shapes.py::test_area": (
            "pkg/shapes.py::area reads Square, which the change binds (line 4)"
        )
    }


def test_a_project_decorator_is_found_through_a_module_alias_and_a_name_bound_to_it(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `@d.tag`: `d` is pkg.deco, where `tag = plain`.
    plan = changed_plan(recorded, capsys, "pkg/shapes.py", "sides = 3", "sides = 4")
    assert selected_reasons(plan) == {
        "tests/test_shapes.py::test_corners": (
            "pkg/shapes.py::corners reads Triangle, which the change binds (line 21)"
        )
    }


def test_a_class_under_a_project_decorator_that_fills_a_registry_stops_the_flow(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # test_registry reads the class through the registry, never by its name.
    plan = changed_plan(recorded, capsys, "pkg/shapes.py", "radius = 1", "radius = 2")
    assert list(selected_reasons(plan)) == EVERY_FILE
    assert (
        "a decorator at line 9 runs at import and may register it elsewhere"
        in (plan["changed"][0]["detail"])
    )


def test_a_reader_called_in_a_loop_at_import_past_the_budget_stops_the_flow(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The recording stops noting a function's callers after 200 calls (each
    # is a callback): the ones it did not see count as unknown.
    callers = recorded_map(recorded).session_callers("pkg/loop.py", "rate")
    assert callers is not None
    assert set(callers) == {("line", "pkg/loop.py", 8), ELSEWHERE}
    plan = changed_plan(recorded, capsys, "pkg/loop.py", "RATE = 2", "RATE = 3")
    assert list(selected_reasons(plan)) == EVERY_FILE
    assert "pkg/loop.py::rate reads RATE" in plan["changed"][0]["detail"]


def test_a_fixtures_changed_params_run_the_tests_using_it_by_their_own_ids(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # test_fix[2] and test_fix[3] become test_fix[5] and test_fix[6]: ids the
    # recording never saw. test_alone does not use the fixture.
    plan = changed_plan(recorded, capsys, "pkg/sizes.py", "SIZE = 2", "SIZE = 5")
    assert selected_reasons(plan) == {
        "tests/test_fixture.py::test_fix": (
            "tests/test_fixture.py::n is code of n, which changed (line 6 of "
            "tests/test_fixture.py builds it from SIZE)"
        )
    }
