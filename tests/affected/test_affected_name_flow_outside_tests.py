"""The name flow and what the recording saw run outside the tests: at import, outside every test, while pytest collected.

A function that ran at import changes what module-level code built with it
(the seed of the flow, not a reader outside); a reader of a changed name that
ran outside every test stops the flow, one that ran only while pytest
collected one file runs that collection whole; code outside every test that
reads nothing changed does not matter.

Each verdict of :func:`lanes.affected.nameflow.follow`, in-process on the
planted projects of :mod:`tests.affected.name_flow_helpers`, is checked whole
(readers with their reasons, test files run whole, the names found changed, or
the reason the static rule stands), the way the plan reports it.
"""

from __future__ import annotations

from lanes.affected.nameflow import Flow
from tests.affected.name_flow_helpers import CONSTS, PROJECT, TABLES, flow_of, stops


def test_a_function_that_ran_at_import_changes_what_module_level_code_built_with_it() -> None:
    # build's body changed (a function change the map sees) and ran at import: TABLE changed.
    flow = flow_of(TABLES, PROJECT[TABLES], ran_at_import=["build"])
    assert flow == Flow(
        readers={
            "tests/test_t.py": {
                "test_t": "reads TABLE, which changed (imported from pkg/tables.py)"
            }
        },
        whole={},
        changed=frozenset(
            {
                (TABLES, "build"),
                (TABLES, "TABLE"),
                ("tests/test_t.py", "TABLE"),
                ("tests/test_t.py", "test_t"),
            }
        ),
    )
    assert flow_of(TABLES, PROJECT[TABLES], ran_at_import=["Base.size"]).changed == {
        (TABLES, "Base"),
        (TABLES, "Derived"),
        ("tests/test_t.py", "Derived"),
        ("tests/test_t.py", "test_t"),
    }


def test_a_reader_that_ran_outside_every_test_stops_the_flow() -> None:
    changed = "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n"
    assert flow_of(CONSTS, changed, outside={"pkg/calc.py": {"double"}}) == stops(
        "pkg/calc.py::double reads DOUBLE, which the change affects, "
        "and ran outside every test (at import or collection)"
    )
    # Code outside every test that reads nothing changed does not matter.
    assert flow_of(CONSTS, changed, outside={"pkg/calc.py": {"other", "gone"}}).fallback == ""
    # The changed function itself ran at import: that is the seed, not a reader outside.
    assert (
        flow_of(
            TABLES, PROJECT[TABLES], outside={TABLES: {"build"}}, ran_at_import=["build"]
        ).fallback
        == ""
    )
    # In the changed file, a function calling a changed function that ran at import.
    tables = PROJECT[TABLES] + "\n\ndef again():\n    return build()\n"
    project = {**PROJECT, TABLES: tables}
    assert flow_of(
        TABLES, tables, project, outside={TABLES: {"build", "again"}}, ran_at_import=["build"]
    ) == stops(
        "pkg/tables.py::again reads build, which the change affects, "
        "and ran outside every test (at import or collection)"
    )


def test_a_reader_that_ran_while_pytest_collected_one_file_runs_that_collection_whole() -> None:
    changed = "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n"
    flow = flow_of(CONSTS, changed, collected={"pkg/calc.py": {"double": ["tests/test_t.py"]}})
    assert flow.fallback == ""
    assert flow.collected == {
        "pkg/calc.py": {"double": (("tests/test_t.py",), "reads DOUBLE, which the change affects,")}
    }
    # The tests that executed it are still its readers.
    assert "double" in flow.readers["pkg/calc.py"]
    # One that reads nothing changed builds nothing changed.
    quiet = flow_of(CONSTS, changed, collected={"pkg/calc.py": {"other": ["tests/test_t.py"]}})
    assert quiet.collected == {}
    # Run in the session scope as well: every test shares what it built.
    assert flow_of(
        CONSTS,
        changed,
        outside={"pkg/calc.py": {"double"}},
        collected={"pkg/calc.py": {"double": ["tests/test_t.py"]}},
    ) == stops(
        "pkg/calc.py::double reads DOUBLE, which the change affects, "
        "and ran outside every test (at import or collection)"
    )


def test_a_nested_function_that_ran_at_import_changes_its_top_level_definition() -> None:
    tables = (
        "class Outer:\n    class Inner:\n        def m(self):\n            return 1\n\n\n"
        "X = Outer.Inner().m()\n\n\ndef read():\n    return X\n"
    )
    project = {**PROJECT, TABLES: tables}
    flow = flow_of(TABLES, tables, project, ran_at_import=["Outer.Inner.m"])
    assert flow.readers[TABLES] == {
        "read": "reads X, which changed (line 7 of pkg/tables.py builds it from Outer)"
    }
    # A function outside every test calling it: the flow cannot see what it built.
    tables += "\n\ndef again():\n    return Outer\n"
    project = {**PROJECT, TABLES: tables}
    assert flow_of(
        TABLES, tables, project, outside={TABLES: {"again"}}, ran_at_import=["Outer.Inner.m"]
    ) == stops(
        "pkg/tables.py::again reads Outer, which the change affects, "
        "and ran outside every test (at import or collection)"
    )


def test_code_outside_every_test_reading_no_changed_function_does_not_stop_the_flow() -> None:
    flow = flow_of(
        TABLES, PROJECT[TABLES], outside={"pkg/calc.py": {"other"}}, ran_at_import=["build"]
    )
    assert flow.fallback == ""


def test_a_recursive_function_that_ran_at_import_is_the_seed_not_a_reader_outside() -> None:
    tables = "def walk(n):\n    return walk(n - 1) if n else 0\n\n\nDEPTH = walk(3)\n"
    project = {**PROJECT, TABLES: tables}
    flow = flow_of(TABLES, tables, project, outside={TABLES: {"walk"}}, ran_at_import=["walk"])
    assert flow.fallback == ""
    assert (TABLES, "DEPTH") in flow.changed


def test_a_same_named_function_elsewhere_that_ran_outside_every_test_is_still_checked() -> None:
    project = {
        **PROJECT,
        "pkg/m1.py": "from pkg.tables import TABLE\n\n\ndef build():\n    return TABLE\n",
    }
    assert flow_of(
        TABLES, PROJECT[TABLES], project, outside={"pkg/m1.py": {"build"}}, ran_at_import=["build"]
    ) == stops(
        "pkg/m1.py::build reads TABLE, which the change affects, "
        "and ran outside every test (at import or collection)"
    )
