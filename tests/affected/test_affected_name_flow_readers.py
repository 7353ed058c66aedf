"""The name flow's readers of a module-level change: the code that reads what it changed, and the test files that run whole.

A changed name is followed through imports, ``import *`` (and ``__all__``),
module aliases, what module-level code builds from it, class bases and names
bound by code; a test file that builds a value from it at module level, or
reads it in a call or decorator run at collection, runs whole.

Each verdict of :func:`lanes.affected.nameflow.follow`, in-process on the
planted projects of :mod:`tests.affected.name_flow_helpers`, is checked whole
(readers with their reasons, test files run whole, the names found changed, or
the reason the static rule stands), the way the plan reports it.
"""

from __future__ import annotations

from lanes.affected.nameflow import Flow
from tests.affected.name_flow_helpers import CHANGED_LIMIT, CONSTS, PROJECT, TABLES, chain, flow_of


def test_a_constant_selects_the_code_reading_it_by_import_star_and_what_it_builds() -> None:
    assert flow_of(CONSTS, "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n") == Flow(
        readers={
            "pkg/calc.py": {
                "double": "reads DOUBLE, which changed (line 4 of pkg/calc.py builds it from LIMIT)"
            },
            "pkg/star.py": {
                "limit": "reads LIMIT, which changed (imported with * from pkg/consts.py)"
            },
            TABLES: {"build": "reads LIMIT, which changed (imported from pkg/consts.py)"},
            "tests/test_t.py": {
                "test_t": "reads TABLE, which changed (imported from pkg/tables.py)"
            },
        },
        whole={},
        changed=frozenset(
            {
                (CONSTS, "LIMIT"),
                ("pkg/calc.py", "LIMIT"),
                ("pkg/calc.py", "DOUBLE"),
                ("pkg/calc.py", "double"),
                ("pkg/star.py", "LIMIT"),
                ("pkg/star.py", "limit"),
                (TABLES, "LIMIT"),
                (TABLES, "build"),
                # build's behaviour changed, and TABLE is built by calling it.
                (TABLES, "TABLE"),
                ("tests/test_t.py", "TABLE"),
                ("tests/test_t.py", "test_t"),
            }
        ),
    )


def test_a_name_read_through_a_module_alias_says_the_change_binds_it() -> None:
    flow = flow_of(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n")
    assert flow.readers == {
        "pkg/calc.py": {"scale": "reads SCALE, which the change binds (line 2)"}
    }
    # A test file building a value from the changed name that nothing reads
    # as pytest collects it (no decorator, no pytestmark) keeps its items.
    assert flow.whole == {}
    assert flow.fallback == ""


def test_a_test_files_changed_name_that_pytest_reads_as_it_collects_runs_it_whole() -> None:
    test_t = PROJECT["tests/test_t.py"]
    marked = {**PROJECT, "tests/test_t.py": test_t + "pytestmark = CASES\n"}
    flow = flow_of(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", marked)
    assert flow.whole == {
        "tests/test_t.py": "pytestmark changed there (tests/test_t.py may parametrize "
        "its tests): it runs whole"
    }
    in_class = {**PROJECT, "tests/test_t.py": test_t + "class TestC:\n    pytestmark = CASES\n"}
    assert (
        "TestC changed there"
        in flow_of(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", in_class).whole["tests/test_t.py"]
    )
    parametrized = {
        **PROJECT,
        "tests/test_t.py": "import pytest\n\n"
        + test_t.replace("def test_t():", "@pytest.mark.parametrize('c', CASES)\ndef test_t(c):"),
    }
    assert flow_of(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", parametrized).items == {
        "tests/test_t.py::test_t": "a parametrize decorator at line 9 reads CASES, "
        "run when it is collected: its items run"
    }


def test_a_test_file_that_only_imports_a_changed_name_does_not_run_whole() -> None:
    project = {
        **PROJECT,
        "tests/test_t.py": "from pkg.consts import SCALE\n\n\ndef test_t():\n    assert SCALE\n",
    }
    flow = flow_of(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", project)
    assert flow.whole == {}
    assert flow.readers["tests/test_t.py"] == {
        "test_t": "reads SCALE, which changed (imported from pkg/consts.py)"
    }


def test_a_module_level_call_in_a_test_file_reading_a_changed_name_runs_it_whole() -> None:
    project = {**PROJECT, "tests/test_t.py": PROJECT["tests/test_t.py"] + "print(SCALE)\n"}
    flow = flow_of(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", project)
    assert flow.whole == {
        "tests/test_t.py": "a module-level call at line 9 reads SCALE, run when it is collected: "
        "it runs whole"
    }
    assert flow.fallback == ""


def test_a_decorator_in_a_test_file_reading_a_changed_name_runs_it_whole() -> None:
    # A mark that may skip every test of it, whatever they executed.
    project = {
        **PROJECT,
        "tests/test_t.py": "import pytest\n\nfrom pkg.consts import SCALE\n\n\n"
        "@pytest.mark.skipif(SCALE > 3, reason='big')\ndef test_n():\n    assert True\n",
    }
    flow = flow_of(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", project)
    assert flow.whole == {
        "tests/test_t.py": "a decorator at line 6 reads SCALE, run when it is collected: it runs whole"
    }
    assert flow.items == {}


def test_a_fixtures_params_reading_a_changed_name_change_the_fixture_not_the_file() -> None:
    # Its users (the map knows which executed it) run, by their own ids.
    project = {
        **PROJECT,
        "tests/test_t.py": "import pytest\n\nfrom pkg.consts import SCALE\n\n\n"
        "@pytest.fixture(params=[SCALE])\ndef n(request):\n    return request.param\n\n\n"
        "def test_n(n):\n    assert n\n",
    }
    flow = flow_of(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", project)
    assert flow.whole == {}
    assert flow.fixtures == {("tests/test_t.py", "n")}
    assert flow.readers["tests/test_t.py"]["n"] == (
        "is code of n, which changed (line 6 of tests/test_t.py builds it from SCALE)"
    )


def test_a_parametrize_decorator_reading_a_changed_name_runs_that_tests_items() -> None:
    # Only that test's items (and ids) may change; a class runs whole, as one test.
    project = {
        **PROJECT,
        "tests/test_t.py": "import pytest\n\nfrom pkg.consts import SCALE\n\n\n"
        "@pytest.mark.parametrize('n', [SCALE])\ndef test_n(n):\n    assert n\n\n\n"
        "class TestC:\n    @pytest.mark.parametrize('m', [SCALE])\n"
        "    def test_m(self, m):\n        assert m\n\n\ndef test_other():\n    assert True\n",
    }
    flow = flow_of(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", project)
    assert flow.whole == {}
    assert flow.items == {
        "tests/test_t.py::test_n": "a parametrize decorator at line 6 reads SCALE, "
        "run when it is collected: its items run",
        "tests/test_t.py::TestC": "a parametrize decorator at line 11 reads SCALE, "
        "run when it is collected: its items run",
    }


def test_a_private_name_is_not_carried_by_import_star() -> None:
    # star.py's hidden() reads its own _HIDDEN: `import *` never bound it.
    assert flow_of(CONSTS, "LIMIT = 3\nSCALE = 2\n_HIDDEN = 2\n") == Flow(
        {}, {}, changed=frozenset({(CONSTS, "_HIDDEN")})
    )


def test_import_star_carries_exactly_the_names_all_lists() -> None:
    consts = "__all__ = ['_HIDDEN']\nLIMIT = 3\nSCALE = 2\n_HIDDEN = 1\n"
    project = {**PROJECT, CONSTS: consts}
    flow = flow_of(CONSTS, consts.replace("_HIDDEN = 1", "_HIDDEN = 2"), project)
    assert flow.readers["pkg/star.py"] == {
        "hidden": "reads _HIDDEN, which changed (imported with * from pkg/consts.py)"
    }
    flow = flow_of(CONSTS, consts.replace("LIMIT = 3", "LIMIT = 4"), project)
    assert "pkg/star.py" not in flow.readers


def test_a_removed_name_is_changed_too() -> None:
    flow = flow_of(CONSTS, "SCALE = 2\n_HIDDEN = 1\n")
    assert (CONSTS, "LIMIT") in flow.changed
    assert flow.readers["pkg/star.py"] == {
        "limit": "reads LIMIT, which changed (imported with * from pkg/consts.py)"
    }


def test_comments_and_blank_lines_change_no_name() -> None:
    assert flow_of(CONSTS, "# a comment\nLIMIT = 3\n\nSCALE = 2\n_HIDDEN = 1\n") == Flow({}, {})
    assert flow_of(CONSTS, PROJECT[CONSTS]) == Flow({}, {})


def test_a_changed_definition_selects_its_own_code_and_the_readers_of_what_it_changes() -> None:
    tables = PROJECT[TABLES].replace("        return 1\n", "        return 2\n")
    assert flow_of(TABLES, tables) == Flow(
        readers={
            TABLES: {"Base.size": "is code of Base, which the change binds (line 11)"},
            "tests/test_t.py": {
                "test_t": "reads Derived, which changed (imported from pkg/tables.py)"
            },
        },
        whole={},
        changed=frozenset(
            {
                (TABLES, "Base"),
                # Derived's base changed: its behaviour, not its value.
                (TABLES, "Derived"),
                ("tests/test_t.py", "Derived"),
                ("tests/test_t.py", "test_t"),
            }
        ),
    )


def test_a_class_built_on_a_changed_value_is_a_changed_value() -> None:
    project = {
        **PROJECT,
        TABLES: "from pkg.consts import LIMIT\n\nBase = LIMIT\n\n\nclass Derived(Base):\n    pass\n\n\n"
        "def make():\n    return Derived()\n",
    }
    flow = flow_of(CONSTS, "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n", project)
    assert flow.readers[TABLES] == {
        "make": "reads Derived, which changed (line 6 of pkg/tables.py builds it from Base)"
    }


def test_names_bound_by_code_change_every_name_of_the_module() -> None:
    names = PROJECT["pkg/names.py"].replace("['add']", "['add', 'sub']")
    flow = flow_of("pkg/names.py", names)
    assert flow.readers == {
        "pkg/usenames.py": {
            "every": "reads *, which changed (binds names by code from NAMES (line 4))",
            "one": "reads plain, which changed (binds names by code from NAMES (line 4))",
        }
    }
    assert flow.fallback == ""
    # The statement binding by code changed itself.
    names = PROJECT["pkg/names.py"].replace("for n in NAMES", "for n in NAMES if n")
    flow = flow_of("pkg/names.py", names)
    assert flow.readers["pkg/usenames.py"]["one"] == (
        "reads plain, which changed (binds names by code (line 4), which the change touches)"
    )


def test_import_star_from_a_module_whose_names_all_changed_changes_every_name() -> None:
    project = {
        **PROJECT,
        "pkg/again.py": "from pkg.names import *\n\n\ndef uses():\n    return add\n",
        "pkg/last.py": "from pkg.again import *\n\n\ndef uses():\n    return sub\n",
    }
    names = PROJECT["pkg/names.py"].replace("['add']", "['add', 'sub']")
    flow = flow_of("pkg/names.py", names, project)
    assert flow.readers["pkg/again.py"] == {
        "uses": "reads add, which changed (imports * from pkg/names.py, whose names all changed)"
    }
    assert flow.readers["pkg/last.py"] == {
        "uses": "reads sub, which changed (imports * from pkg/again.py, whose names all changed)"
    }


def test_a_star_import_of_a_file_outside_the_project_carries_nothing() -> None:
    project = {**PROJECT, "pkg/ext.py": "from os.path import *\n\n\ndef f():\n    return LIMIT\n"}
    flow = flow_of(CONSTS, "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n", project)
    assert "pkg/ext.py" not in flow.readers


def test_names_bound_by_code_from_a_changed_name_change_every_name_of_that_module() -> None:
    project = {
        **PROJECT,
        "pkg/dyn.py": "from pkg.consts import LIMIT\n\nglobals().update(x=LIMIT)\n\n\n"
        "def f():\n    return x\n",
    }
    flow = flow_of(CONSTS, "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n", project)
    assert flow.readers["pkg/dyn.py"] == {
        "f": "reads x, which changed (binds names by code from LIMIT (line 3))"
    }


def test_a_deleted_module_changes_every_name_it_bound() -> None:
    flow = flow_of(CONSTS, None)
    assert {(CONSTS, "LIMIT"), (CONSTS, "SCALE"), (CONSTS, "_HIDDEN")} <= flow.changed
    assert flow.readers[TABLES] == {
        "build": "reads LIMIT, which changed (imported from pkg/consts.py)"
    }


def test_a_module_whose_names_all_changed_marks_no_name_of_it_one_by_one() -> None:
    names = PROJECT["pkg/names.py"] + "COUNT = len(NAMES)\n"
    project = {**PROJECT, "pkg/names.py": names}
    flow = flow_of("pkg/names.py", names.replace("['add']", "['add', 'sub']"), project)
    assert flow.changed == {
        ("pkg/names.py", "NAMES"),
        ("pkg/usenames.py", "every"),
        ("pkg/usenames.py", "one"),
    }


def test_code_reading_a_module_whole_names_the_first_of_its_changed_names() -> None:
    project = chain(m1="from pkg import consts\n\n\ndef every():\n    return vars(consts)\n")
    flow = flow_of(CONSTS, "LIMIT = 4\nSCALE = 5\n_HIDDEN = 1\n", project)
    assert flow.readers["pkg/m1.py"] == {"every": "reads LIMIT, which the change binds (line 1)"}
    flow = flow_of(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 6\n", project)
    assert flow.readers["pkg/m1.py"] == {"every": "reads SCALE, which the change binds (line 2)"}


def test_a_changed_star_import_in_the_changed_module_changes_every_name_of_it() -> None:
    project = chain(
        src="from pkg.consts import *\n",
        m1="from pkg import src\n\n\ndef read():\n    return src.anything\n",
    )
    flow = flow_of("pkg/src.py", "from pkg.tables import *\n", project)
    assert flow.readers["pkg/m1.py"] == {
        "read": "reads anything, which changed "
        "(binds names by code (line 1), which the change touches)"
    }


def test_a_test_file_running_whole_still_carries_the_changes_below_its_call() -> None:
    test = "from pkg.consts import SCALE\n\nprint(SCALE)\nLATER = SCALE\n"
    flow = flow_of(
        CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", {**PROJECT, "tests/test_t.py": test}
    )
    assert ("tests/test_t.py", "LATER") in flow.changed
    assert flow.whole == {
        "tests/test_t.py": "a module-level call at line 3 reads SCALE, run when it is collected: "
        "it runs whole"
    }


def test_a_test_file_whose_names_changed_says_which_or_all_of_them() -> None:
    test = "from pkg.consts import SCALE\n\nCASES = [SCALE]\npytestmark = [SCALE]\n"
    flow = flow_of(
        CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", {**PROJECT, "tests/test_t.py": test}
    )
    assert flow.whole == {
        "tests/test_t.py": "pytestmark changed there (tests/test_t.py may parametrize its "
        "tests): it runs whole"
    }
    test = "import operator\n\nNAMES = ['add']\nlocals().update({n: 1 for n in NAMES})\n"
    project = {**PROJECT, "tests/test_t.py": test}
    flow = flow_of("tests/test_t.py", test.replace("['add']", "['sub']"), project)
    assert flow.whole == {
        "tests/test_t.py": "NAMES changed there (tests/test_t.py may parametrize its tests): "
        "it runs whole"
    }
    test = "import pkg.consts as c\n\nlocals().update({'n': c.SCALE})\n"
    flow = flow_of(
        CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", {**PROJECT, "tests/test_t.py": test}
    )
    assert flow.whole == {
        "tests/test_t.py": "its names changed there (tests/test_t.py may parametrize its tests): "
        "it runs whole"
    }


def test_a_changed_name_selects_no_function_of_the_same_name_elsewhere() -> None:
    project = chain(m1="def LIMIT():\n    return 1\n")
    flow = flow_of(CONSTS, CHANGED_LIMIT, project)
    assert "pkg/m1.py" not in flow.readers
