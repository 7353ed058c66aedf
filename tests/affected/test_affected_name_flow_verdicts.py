"""The name flow's verdict on a module-level change: which code reads what it changed, or why it stops.

:func:`lanes.affected.nameflow.follow` in-process on small projects: the
file at the map's commit, its current text and the diff between them (the
hunks a real diff gives), the files importing it, and what the recording saw
run outside every test. Each verdict is checked whole (readers with their
reasons, test files run whole, the names found changed, or the reason the
static rule stands), the way the plan reports it.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from lanes.affected.nameflow import Flow, follow

if TYPE_CHECKING:
    from collections.abc import Iterable

CONSTS = "pkg/consts.py"
TABLES = "pkg/tables.py"
PROJECT = {
    "pkg/__init__.py": "",
    CONSTS: "LIMIT = 3\nSCALE = 2\n_HIDDEN = 1\n",
    "pkg/calc.py": "from pkg.consts import LIMIT, SCALE\nimport pkg.consts as c\n\n"
    "DOUBLE = LIMIT * 2\n\n\ndef double():\n    return DOUBLE\n\n\n"
    "def scale(x):\n    return x * c.SCALE\n\n\ndef other():\n    return 0\n",
    TABLES: "from pkg.consts import LIMIT\n\n\ndef build():\n    return {'limit': LIMIT}\n\n\n"
    "TABLE = build()\n\n\nclass Base:\n    def size(self):\n        return 1\n\n\n"
    "class Derived(Base):\n    pass\n",
    "pkg/star.py": "from pkg.consts import *\n\n\ndef limit():\n    return LIMIT\n\n\n"
    "def hidden():\n    return _HIDDEN\n",
    # Names bound by code: every name of the module may change.
    "pkg/names.py": "import operator\n\nNAMES = ['add']\n"
    "locals().update({n: getattr(operator, n) for n in NAMES})\n\n\ndef plain():\n    return 7\n",
    "pkg/usenames.py": "from pkg import names\n\n\ndef every():\n    return vars(names)\n\n\n"
    "def one():\n    return names.plain()\n",
    "tests/test_t.py": "from pkg.tables import TABLE, Derived\nfrom pkg.consts import SCALE\n\n"
    "CASES = [SCALE]\n\n\ndef test_t():\n    assert Derived().size() and TABLE\n",
    # A docstring and a module-level call that read nothing changed: the flow goes on.
    "pkg/quiet.py": '"""Loaded quietly."""\n\nprint("ready")\n',
}


def _hunks(old: str, new: str) -> list[tuple[int, int, int, int]]:
    """(old start, old count, new start, new count) of each changed run of lines."""
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    return [
        (i1 + 1, i2 - i1, j1 + 1, j2 - j1)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _flow(
    path: str,
    new: str | None,
    project: dict[str, str] | None = None,
    *,
    outside: dict[str, set[str]] | None = None,
    collected: dict[str, dict[str, list[str]]] | None = None,
    ran_at_import: Iterable[str] = (),
) -> Flow:
    """The flow of ``path`` changed to ``new`` (None: deleted); every other file imports it."""
    before = PROJECT if project is None else project
    after = {f: text for f, text in before.items() if f != path}
    if new is not None:
        after[path] = new
    old = before.get(path, "")
    return follow(
        path,
        old.encode(),
        _hunks(old, new or ""),
        files=sorted(before),
        roots=("",),
        dependents=sorted(f for f in before if f != path),
        read=lambda f: after[f].encode() if f in after else None,
        outside=lambda f: (outside or {}).get(f, set()),
        ran_at_import=ran_at_import,
        runs_whole=lambda f: f.startswith("tests/"),
        collected=lambda f: (collected or {}).get(f, {}),
    )


def _stops(why: str) -> Flow:
    return Flow({}, {}, why)


def test_a_constant_selects_the_code_reading_it_by_import_star_and_what_it_builds() -> None:
    assert _flow(CONSTS, "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n") == Flow(
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
    flow = _flow(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n")
    assert flow.readers == {
        "pkg/calc.py": {"scale": "reads SCALE, which the change binds (line 2)"}
    }
    # A test file building a value from the changed name may parametrize with it.
    assert flow.whole == {
        "tests/test_t.py": "CASES changed there (tests/test_t.py may parametrize its tests): "
        "it runs whole"
    }
    assert flow.fallback == ""


def test_a_test_file_that_only_imports_a_changed_name_does_not_run_whole() -> None:
    project = {
        **PROJECT,
        "tests/test_t.py": "from pkg.consts import SCALE\n\n\ndef test_t():\n    assert SCALE\n",
    }
    flow = _flow(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", project)
    assert flow.whole == {}
    assert flow.readers["tests/test_t.py"] == {
        "test_t": "reads SCALE, which changed (imported from pkg/consts.py)"
    }


def test_a_module_level_call_in_a_test_file_reading_a_changed_name_runs_it_whole() -> None:
    project = {**PROJECT, "tests/test_t.py": PROJECT["tests/test_t.py"] + "print(SCALE)\n"}
    flow = _flow(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", project)
    assert flow.whole == {
        "tests/test_t.py": "a module-level call at line 9 reads SCALE, run when it is collected: "
        "it runs whole"
    }
    assert flow.fallback == ""


def test_a_decorator_in_a_test_file_reading_a_changed_name_runs_it_whole() -> None:
    project = {
        **PROJECT,
        "tests/test_t.py": "import pytest\n\nfrom pkg.consts import SCALE\n\n\n"
        "@pytest.mark.parametrize('n', [SCALE])\ndef test_n(n):\n    assert n\n",
    }
    flow = _flow(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", project)
    assert flow.whole == {
        "tests/test_t.py": "a decorator at line 6 reads SCALE, run when it is collected: it runs whole"
    }


def test_a_private_name_is_not_carried_by_import_star() -> None:
    # star.py's hidden() reads its own _HIDDEN: `import *` never bound it.
    assert _flow(CONSTS, "LIMIT = 3\nSCALE = 2\n_HIDDEN = 2\n") == Flow(
        {}, {}, changed=frozenset({(CONSTS, "_HIDDEN")})
    )


def test_import_star_carries_exactly_the_names_all_lists() -> None:
    consts = "__all__ = ['_HIDDEN']\nLIMIT = 3\nSCALE = 2\n_HIDDEN = 1\n"
    project = {**PROJECT, CONSTS: consts}
    flow = _flow(CONSTS, consts.replace("_HIDDEN = 1", "_HIDDEN = 2"), project)
    assert flow.readers["pkg/star.py"] == {
        "hidden": "reads _HIDDEN, which changed (imported with * from pkg/consts.py)"
    }
    flow = _flow(CONSTS, consts.replace("LIMIT = 3", "LIMIT = 4"), project)
    assert "pkg/star.py" not in flow.readers


def test_a_removed_name_is_changed_too() -> None:
    flow = _flow(CONSTS, "SCALE = 2\n_HIDDEN = 1\n")
    assert (CONSTS, "LIMIT") in flow.changed
    assert flow.readers["pkg/star.py"] == {
        "limit": "reads LIMIT, which changed (imported with * from pkg/consts.py)"
    }


def test_comments_and_blank_lines_change_no_name() -> None:
    assert _flow(CONSTS, "# a comment\nLIMIT = 3\n\nSCALE = 2\n_HIDDEN = 1\n") == Flow({}, {})
    assert _flow(CONSTS, PROJECT[CONSTS]) == Flow({}, {})


def test_a_changed_definition_selects_its_own_code_and_the_readers_of_what_it_changes() -> None:
    tables = PROJECT[TABLES].replace("        return 1\n", "        return 2\n")
    assert _flow(TABLES, tables) == Flow(
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
    flow = _flow(CONSTS, "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n", project)
    assert flow.readers[TABLES] == {
        "make": "reads Derived, which changed (line 6 of pkg/tables.py builds it from Base)"
    }


def test_a_function_that_ran_at_import_changes_what_module_level_code_built_with_it() -> None:
    # build's body changed (a function change the map sees) and ran at import: TABLE changed.
    flow = _flow(TABLES, PROJECT[TABLES], ran_at_import=["build"])
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
    assert _flow(TABLES, PROJECT[TABLES], ran_at_import=["Base.size"]).changed == {
        (TABLES, "Base"),
        (TABLES, "Derived"),
        ("tests/test_t.py", "Derived"),
        ("tests/test_t.py", "test_t"),
    }


def test_names_bound_by_code_change_every_name_of_the_module() -> None:
    names = PROJECT["pkg/names.py"].replace("['add']", "['add', 'sub']")
    flow = _flow("pkg/names.py", names)
    assert flow.readers == {
        "pkg/usenames.py": {
            "every": "reads *, which changed (binds names by code from NAMES (line 4))",
            "one": "reads plain, which changed (binds names by code from NAMES (line 4))",
        }
    }
    assert flow.fallback == ""
    # The statement binding by code changed itself.
    names = PROJECT["pkg/names.py"].replace("for n in NAMES", "for n in NAMES if n")
    flow = _flow("pkg/names.py", names)
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
    flow = _flow("pkg/names.py", names, project)
    assert flow.readers["pkg/again.py"] == {
        "uses": "reads add, which changed (imports * from pkg/names.py, whose names all changed)"
    }
    assert flow.readers["pkg/last.py"] == {
        "uses": "reads sub, which changed (imports * from pkg/again.py, whose names all changed)"
    }


def test_a_star_import_of_a_file_outside_the_project_carries_nothing() -> None:
    project = {**PROJECT, "pkg/ext.py": "from os.path import *\n\n\ndef f():\n    return LIMIT\n"}
    flow = _flow(CONSTS, "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n", project)
    assert "pkg/ext.py" not in flow.readers


def test_a_module_level_call_reading_a_changed_name_stops_the_flow() -> None:
    project = {**PROJECT, "pkg/reg.py": "from pkg.consts import LIMIT\n\nregister(LIMIT)\n"}
    assert _flow(CONSTS, "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n", project) == _stops(
        "pkg/reg.py:3: a call at module level reads LIMIT, which the change affects: "
        "what it changes cannot be followed"
    )


def test_a_registering_decorator_reading_a_changed_name_stops_the_flow() -> None:
    project = {
        **PROJECT,
        "pkg/reg.py": "from pkg.consts import LIMIT\n\n\n@route(LIMIT)\ndef f():\n    pass\n",
    }
    assert _flow(CONSTS, "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n", project) == _stops(
        "pkg/reg.py:4: a decorator that may register at module level reads LIMIT, "
        "which the change affects: what it changes cannot be followed"
    )


def test_names_bound_by_code_from_a_changed_name_change_every_name_of_that_module() -> None:
    project = {
        **PROJECT,
        "pkg/dyn.py": "from pkg.consts import LIMIT\n\nglobals().update(x=LIMIT)\n\n\n"
        "def f():\n    return x\n",
    }
    flow = _flow(CONSTS, "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n", project)
    assert flow.readers["pkg/dyn.py"] == {
        "f": "reads x, which changed (binds names by code from LIMIT (line 3))"
    }


def test_where_a_changed_statement_cannot_be_followed_the_flow_stops_and_says_why() -> None:
    base = PROJECT[CONSTS]
    assert _flow(CONSTS, '"""Doc."""\n' + base) == _stops(
        "a module docstring changed at line 1: a doctest may read it"
    )
    assert _flow(CONSTS, base + "print(1)\n") == _stops(
        "a module-level call changed at line 4: what it changes cannot be followed"
    )
    assert _flow(CONSTS, base + "@hook\ndef f():\n    pass\n") == _stops(
        "a decorator at line 4 runs at import and may register it elsewhere"
    )
    assert _flow(CONSTS, base + "__all__ = ['LIMIT']\n") == _stops(
        "pkg/consts.py: __all__ changes (the change binds it (line 4)): "
        "what `import *` binds cannot be followed"
    )
    assert _flow(CONSTS, "LIMIT = (\n") == _stops(
        "a file does not parse (SyntaxError): the flow cannot be followed"
    )
    assert _flow(CONSTS, "LIMIT = 4\x00\n") == _stops(
        "a file does not parse (SyntaxError): the flow cannot be followed"
    )


def test_a_changed_encoding_declaration_stops_the_flow() -> None:
    cookie = "# -*- coding: latin-1 -*-\n"
    assert _flow(CONSTS, cookie + PROJECT[CONSTS]) == _stops(
        "the first two lines changed (an encoding declaration)"
    )
    # Removed: the old side had it.
    project = {**PROJECT, CONSTS: "#!/usr/bin/env python\n" + cookie + PROJECT[CONSTS]}
    assert _flow(CONSTS, PROJECT[CONSTS], project) == _stops(
        "the first two lines changed (an encoding declaration)"
    )
    # A cookie below line 2 is only a comment.
    project = {**PROJECT, CONSTS: "X = 0\n\n" + PROJECT[CONSTS]}
    assert _flow(CONSTS, "X = 0\n\n" + cookie + PROJECT[CONSTS], project).fallback == ""
    # The first lines changed without a cookie: the flow goes on.
    assert _flow(CONSTS, "LIMIT = 3\nSCALE = 3\n_HIDDEN = 1\n").fallback == ""


def test_a_module_level_getattr_in_a_module_with_changed_names_stops_the_flow() -> None:
    hook = "\n\ndef __getattr__(name):\n    return name\n"
    project = {**PROJECT, CONSTS: PROJECT[CONSTS] + hook}
    changed = "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n" + hook
    assert _flow(CONSTS, changed, project) == _stops(
        "pkg/consts.py defines a module-level __getattr__: any name may reach it"
    )
    # A module whose names all changed by code counts as touched.
    names = PROJECT["pkg/names.py"] + hook
    project = {**PROJECT, "pkg/names.py": names}
    assert _flow("pkg/names.py", names.replace("['add']", "['sub']"), project) == _stops(
        "pkg/names.py defines a module-level __getattr__: any name may reach it"
    )
    # A hook in a module with no changed name does not matter.
    project = {**PROJECT, "pkg/star.py": PROJECT["pkg/star.py"] + hook}
    assert _flow(CONSTS, "LIMIT = 3\nSCALE = 2\n_HIDDEN = 2\n", project).fallback == ""


def test_a_changed_import_that_another_module_imports_from_it_stops_the_flow() -> None:
    tables = PROJECT[TABLES].replace(
        "from pkg.consts import LIMIT", "from pkg.consts import LIMIT, SCALE"
    )
    assert _flow(TABLES, tables).fallback == ""
    project = {**PROJECT, "pkg/user.py": "from pkg.tables import SCALE\n"}
    assert _flow(TABLES, tables, project) == _stops(
        "a changed import of SCALE, which pkg/user.py imports from pkg/tables.py: a re-exported name"
    )
    project = {
        **PROJECT,
        "pkg/user.py": "from pkg import tables\n\n\ndef f():\n    return tables.SCALE\n",
    }
    assert _flow(TABLES, tables, project).fallback.startswith(
        "a changed import of SCALE, which pkg/user.py"
    )
    project = {**PROJECT, "pkg/user.py": "from pkg.tables import *\n"}
    assert _flow(TABLES, tables, project).fallback.startswith(
        "a changed import of LIMIT, which pkg/user.py"
    )


def test_a_reader_that_ran_outside_every_test_stops_the_flow() -> None:
    changed = "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n"
    assert _flow(CONSTS, changed, outside={"pkg/calc.py": {"double"}}) == _stops(
        "pkg/calc.py::double reads DOUBLE, which the change affects, "
        "and ran outside every test (at import or collection)"
    )
    # Code outside every test that reads nothing changed does not matter.
    assert _flow(CONSTS, changed, outside={"pkg/calc.py": {"other", "gone"}}).fallback == ""
    # The changed function itself ran at import: that is the seed, not a reader outside.
    assert (
        _flow(
            TABLES, PROJECT[TABLES], outside={TABLES: {"build"}}, ran_at_import=["build"]
        ).fallback
        == ""
    )
    # In the changed file, a function calling a changed function that ran at import.
    tables = PROJECT[TABLES] + "\n\ndef again():\n    return build()\n"
    project = {**PROJECT, TABLES: tables}
    assert _flow(
        TABLES, tables, project, outside={TABLES: {"build", "again"}}, ran_at_import=["build"]
    ) == _stops(
        "pkg/tables.py::again reads build, which the change affects, "
        "and ran outside every test (at import or collection)"
    )


def test_a_reader_that_ran_while_pytest_collected_one_file_runs_that_collection_whole() -> None:
    changed = "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n"
    flow = _flow(CONSTS, changed, collected={"pkg/calc.py": {"double": ["tests/test_t.py"]}})
    assert flow.fallback == ""
    assert flow.collected == {
        "pkg/calc.py": {"double": (("tests/test_t.py",), "reads DOUBLE, which the change affects,")}
    }
    # The tests that executed it are still its readers.
    assert "double" in flow.readers["pkg/calc.py"]
    # One that reads nothing changed builds nothing changed.
    quiet = _flow(CONSTS, changed, collected={"pkg/calc.py": {"other": ["tests/test_t.py"]}})
    assert quiet.collected == {}
    # Run in the session scope as well: every test shares what it built.
    assert _flow(
        CONSTS,
        changed,
        outside={"pkg/calc.py": {"double"}},
        collected={"pkg/calc.py": {"double": ["tests/test_t.py"]}},
    ) == _stops(
        "pkg/calc.py::double reads DOUBLE, which the change affects, "
        "and ran outside every test (at import or collection)"
    )


def test_a_deleted_module_changes_every_name_it_bound() -> None:
    flow = _flow(CONSTS, None)
    assert {(CONSTS, "LIMIT"), (CONSTS, "SCALE"), (CONSTS, "_HIDDEN")} <= flow.changed
    assert flow.readers[TABLES] == {
        "build": "reads LIMIT, which changed (imported from pkg/consts.py)"
    }


def _chain(**files: str) -> dict[str, str]:
    """The package and its constants alone, plus ``files`` given as ``m1="..."`` for
    ``pkg/m1.py``: nothing else changes in a pass of the flow."""
    project = {"pkg/__init__.py": "", CONSTS: PROJECT[CONSTS]}
    return {**project, **{f"pkg/{name}.py": text for name, text in files.items()}}


CHANGED_LIMIT = "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n"


def test_a_change_flows_back_through_modules_whatever_their_order() -> None:
    # Each module reads the next (m1 <- m2 <- m3 <- consts), against the order
    # the flow visits them in; each also rebuilds a name it marked already.
    project = _chain(
        m1="from pkg.m2 import V2\n\nV1 = V2\n\n\ndef read():\n    return V1\n",
        m2="from pkg.m3 import V3\n\nV2 = V3\nAGAIN2 = V3\n",
        m3="from pkg.consts import LIMIT\n\nV3 = LATE\nLATE = LIMIT\nAGAIN3 = LIMIT\n",
    )
    flow = _flow(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {
        "read": "reads V1, which changed (line 3 of pkg/m1.py builds it from V2)"
    }
    assert {("pkg/m1.py", "V1"), ("pkg/m2.py", "V2"), ("pkg/m3.py", "V3")} <= flow.changed


def test_changed_behaviour_flows_back_through_modules_whatever_their_order() -> None:
    project = _chain(
        m1="from pkg.m2 import build\n\nTABLE = build()\n\n\ndef read():\n    return TABLE\n",
        m2="from pkg.consts import LIMIT\n\n\ndef build():\n    return helper()\n\n\n"
        "def helper():\n    return LIMIT\n\n\ndef again():\n    return LIMIT\n",
    )
    flow = _flow(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {
        "read": "reads TABLE, which changed (line 3 of pkg/m1.py builds it from build)"
    }


def test_an_import_of_several_names_carries_each_change_in_a_later_pass() -> None:
    # m2 imports C (changed late) and D (changed early) in one statement; only m1,
    # visited before m2, reads what m2 imported.
    project = _chain(
        m1="from pkg.m2 import C as X\n\n\ndef read():\n    return X\n",
        m2="from pkg.m3 import C, D\n",
        m3="from pkg.consts import LIMIT\n\nC = E\nD = LIMIT\nE = D\n",
    )
    flow = _flow(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {"read": "reads X, which changed (imported from pkg/m2.py)"}


def test_an_import_binding_a_module_object_still_carries_the_names_beside_it() -> None:
    # The package re-exports LIMIT; m1 binds the consts module first, then LIMIT.
    project = _chain(
        __init__="from pkg.consts import LIMIT\n",
        m1="from pkg import consts as a_module, LIMIT as b_limit\n\n\n"
        "def read():\n    return b_limit\n",
    )
    flow = _flow(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {
        "read": "reads b_limit, which changed (imported from pkg/__init__.py)"
    }


def test_star_imports_carry_a_change_back_through_modules_whatever_their_order() -> None:
    project = _chain(
        m1="from pkg.m2 import *\n\n\ndef read():\n    return C\n",
        m2="from pkg.m3 import *\n",
        m3="from pkg.consts import LIMIT\n\nC = E\nD = LIMIT\nE = D\n",
    )
    flow = _flow(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {
        "read": "reads C, which changed (imported with * from pkg/m2.py)"
    }


def test_names_bound_by_code_carry_a_change_back_to_an_earlier_module() -> None:
    # m2's names are bound by code from consts.LIMIT, read through the module:
    # the only change of the first pass; m1 reads one of them.
    project = _chain(
        m1="from pkg.m2 import x\n\n\ndef read():\n    return x\n",
        m2="import pkg.consts as c\n\nglobals().update(x=c.LIMIT)\n",
    )
    flow = _flow(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {"read": "reads x, which changed (imported from pkg/m2.py)"}


def test_a_star_import_of_a_module_whose_names_all_changed_carries_back() -> None:
    project = _chain(
        m1="from pkg.m2 import *\n\n\ndef read():\n    return anything\n",
        m2="import pkg.consts as c\n\nglobals().update(anything=c.LIMIT)\n",
    )
    flow = _flow(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {
        "read": "reads anything, which changed (imports * from pkg/m2.py, whose names all changed)"
    }


def test_a_call_after_names_bound_by_code_from_a_changed_name_still_stops_the_flow() -> None:
    project = _chain(
        m2="import pkg.consts as c\n\nglobals().update(x=c.LIMIT)\nregister(c.LIMIT)\n"
    )
    assert _flow(CONSTS, CHANGED_LIMIT, project) == _stops(
        "pkg/m2.py:4: a call at module level reads LIMIT, which the change affects: "
        "what it changes cannot be followed"
    )


def test_a_module_whose_names_all_changed_marks_no_name_of_it_one_by_one() -> None:
    names = PROJECT["pkg/names.py"] + "COUNT = len(NAMES)\n"
    project = {**PROJECT, "pkg/names.py": names}
    flow = _flow("pkg/names.py", names.replace("['add']", "['add', 'sub']"), project)
    assert flow.changed == {
        ("pkg/names.py", "NAMES"),
        ("pkg/usenames.py", "every"),
        ("pkg/usenames.py", "one"),
    }


def test_code_reading_a_module_whole_names_the_first_of_its_changed_names() -> None:
    project = _chain(m1="from pkg import consts\n\n\ndef every():\n    return vars(consts)\n")
    flow = _flow(CONSTS, "LIMIT = 4\nSCALE = 5\n_HIDDEN = 1\n", project)
    assert flow.readers["pkg/m1.py"] == {"every": "reads LIMIT, which the change binds (line 1)"}
    flow = _flow(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 6\n", project)
    assert flow.readers["pkg/m1.py"] == {"every": "reads SCALE, which the change binds (line 2)"}


def test_a_changed_star_import_in_the_changed_module_changes_every_name_of_it() -> None:
    project = _chain(
        src="from pkg.consts import *\n",
        m1="from pkg import src\n\n\ndef read():\n    return src.anything\n",
    )
    flow = _flow("pkg/src.py", "from pkg.tables import *\n", project)
    assert flow.readers["pkg/m1.py"] == {
        "read": "reads anything, which changed "
        "(binds names by code (line 1), which the change touches)"
    }


def test_a_changed_import_after_a_changed_star_import_is_still_checked_for_re_export() -> None:
    project = {
        **PROJECT,
        "pkg/src.py": "from pkg.consts import *\nfrom pkg.tables import TABLE\n",
        "pkg/m1.py": "from pkg.src import Base\n",
    }
    changed = "from pkg.calc import *\nfrom pkg.tables import TABLE, Base\n"
    assert _flow("pkg/src.py", changed, project) == _stops(
        "a changed import of Base, which pkg/m1.py imports from pkg/src.py: a re-exported name"
    )


def test_a_module_level_call_in_a_conftest_reading_a_changed_name_stops_the_flow() -> None:
    project = {**PROJECT, "tests/conftest.py": "from pkg.consts import SCALE\n\nprint(SCALE)\n"}
    assert _flow(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", project) == _stops(
        "tests/conftest.py:3: a call at module level reads SCALE, which the change affects: "
        "what it changes cannot be followed"
    )


def test_a_test_file_running_whole_still_carries_the_changes_below_its_call() -> None:
    test = "from pkg.consts import SCALE\n\nprint(SCALE)\nLATER = SCALE\n"
    flow = _flow(
        CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", {**PROJECT, "tests/test_t.py": test}
    )
    assert ("tests/test_t.py", "LATER") in flow.changed
    assert flow.whole == {
        "tests/test_t.py": "a module-level call at line 3 reads SCALE, run when it is collected: "
        "it runs whole"
    }


def test_a_test_file_whose_names_changed_says_which_or_all_of_them() -> None:
    test = "from pkg.consts import SCALE\n\nCASES = [SCALE]\nMORE = [SCALE]\n"
    flow = _flow(
        CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", {**PROJECT, "tests/test_t.py": test}
    )
    assert flow.whole == {
        "tests/test_t.py": "CASES, MORE changed there (tests/test_t.py may parametrize its tests): "
        "it runs whole"
    }
    test = "import operator\n\nNAMES = ['add']\nlocals().update({n: 1 for n in NAMES})\n"
    project = {**PROJECT, "tests/test_t.py": test}
    flow = _flow("tests/test_t.py", test.replace("['add']", "['sub']"), project)
    assert flow.whole == {
        "tests/test_t.py": "NAMES changed there (tests/test_t.py may parametrize its tests): "
        "it runs whole"
    }
    test = "import pkg.consts as c\n\nlocals().update({'n': c.SCALE})\n"
    flow = _flow(
        CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", {**PROJECT, "tests/test_t.py": test}
    )
    assert flow.whole == {
        "tests/test_t.py": "its names changed there (tests/test_t.py may parametrize its tests): "
        "it runs whole"
    }


def test_a_changed_def_selects_its_code_even_in_a_module_visited_after_other_changes() -> None:
    tables = PROJECT[TABLES] + "\n\ndef limited(n=LIMIT):\n    return n\n"
    flow = _flow(CONSTS, CHANGED_LIMIT, {**PROJECT, TABLES: tables})
    assert flow.readers[TABLES]["limited"] == (
        "is code of limited, which changed (line 20 of pkg/tables.py builds it from LIMIT)"
    )


def test_a_changed_name_selects_no_function_of_the_same_name_elsewhere() -> None:
    project = _chain(m1="def LIMIT():\n    return 1\n")
    flow = _flow(CONSTS, CHANGED_LIMIT, project)
    assert "pkg/m1.py" not in flow.readers


def test_a_nested_function_that_ran_at_import_changes_its_top_level_definition() -> None:
    tables = (
        "class Outer:\n    class Inner:\n        def m(self):\n            return 1\n\n\n"
        "X = Outer.Inner().m()\n\n\ndef read():\n    return X\n"
    )
    project = {**PROJECT, TABLES: tables}
    flow = _flow(TABLES, tables, project, ran_at_import=["Outer.Inner.m"])
    assert flow.readers[TABLES] == {
        "read": "reads X, which changed (line 7 of pkg/tables.py builds it from Outer)"
    }
    # A function outside every test calling it: the flow cannot see what it built.
    tables += "\n\ndef again():\n    return Outer\n"
    project = {**PROJECT, TABLES: tables}
    assert _flow(
        TABLES, tables, project, outside={TABLES: {"again"}}, ran_at_import=["Outer.Inner.m"]
    ) == _stops(
        "pkg/tables.py::again reads Outer, which the change affects, "
        "and ran outside every test (at import or collection)"
    )


def test_code_outside_every_test_reading_no_changed_function_does_not_stop_the_flow() -> None:
    flow = _flow(
        TABLES, PROJECT[TABLES], outside={"pkg/calc.py": {"other"}}, ran_at_import=["build"]
    )
    assert flow.fallback == ""


def test_a_recursive_function_that_ran_at_import_is_the_seed_not_a_reader_outside() -> None:
    tables = "def walk(n):\n    return walk(n - 1) if n else 0\n\n\nDEPTH = walk(3)\n"
    project = {**PROJECT, TABLES: tables}
    flow = _flow(TABLES, tables, project, outside={TABLES: {"walk"}}, ran_at_import=["walk"])
    assert flow.fallback == ""
    assert (TABLES, "DEPTH") in flow.changed


def test_a_same_named_function_elsewhere_that_ran_outside_every_test_is_still_checked() -> None:
    project = {
        **PROJECT,
        "pkg/m1.py": "from pkg.tables import TABLE\n\n\ndef build():\n    return TABLE\n",
    }
    assert _flow(
        TABLES, PROJECT[TABLES], project, outside={"pkg/m1.py": {"build"}}, ran_at_import=["build"]
    ) == _stops(
        "pkg/m1.py::build reads TABLE, which the change affects, "
        "and ran outside every test (at import or collection)"
    )


def test_the_encoding_declaration_is_only_looked_for_on_the_first_two_lines() -> None:
    cookie = "# -*- coding: utf-8 -*-\nLIMIT = 3\nSCALE = 2\n_HIDDEN = 1\n"
    project = {**PROJECT, CONSTS: cookie}
    # Line 2 changed, the cookie on line 1: the declaration may have changed meaning.
    assert _flow(CONSTS, cookie.replace("LIMIT = 3", "LIMIT = 4"), project) == _stops(
        "the first two lines changed (an encoding declaration)"
    )
    # Line 3 changed: the cookie stands.
    assert _flow(CONSTS, cookie.replace("SCALE = 2", "SCALE = 3"), project).fallback == ""
    # A "coding" comment on line 3 is no declaration.
    third = "LIMIT = 3\nSCALE = 2\n# coding: latin-1\n_HIDDEN = 1\n"
    project = {**PROJECT, CONSTS: third}
    assert _flow(CONSTS, third.replace("LIMIT = 3", "LIMIT = 4"), project).fallback == ""


def test_an_import_carries_a_late_value_beside_a_function_changed_earlier() -> None:
    # m2 imports a_val (changed in the third pass) beside b_fn (changed in the
    # second); only m1, visited before m2, reads a_val from m2.
    project = _chain(
        m1="from pkg.m2 import a_val\n\n\ndef read():\n    return a_val\n",
        m2="from pkg.m3 import a_val, b_fn\n",
        m3="from pkg.consts import LIMIT\n\na_val = LATE\nLATE = LIMIT\n\n\n"
        "def b_fn():\n    return LIMIT\n",
    )
    flow = _flow(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {
        "read": "reads a_val, which changed (imported from pkg/m2.py)"
    }


def test_a_star_import_carries_a_late_value_beside_a_function_changed_earlier() -> None:
    project = _chain(
        m1="from pkg.m2 import C\n\n\ndef read():\n    return C\n",
        m2="from pkg.m3 import *\n",
        m3="from pkg.consts import LIMIT\n\nC = E\nD = LIMIT\nE = D\n\n\n"
        "def helper():\n    return LIMIT\n",
    )
    flow = _flow(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {"read": "reads C, which changed (imported from pkg/m2.py)"}


def test_star_imports_of_a_module_whose_names_all_changed_carry_back_two_steps() -> None:
    project = _chain(
        m0="from pkg.m1 import *\n\n\ndef read():\n    return anything\n",
        m1="from pkg.m2 import *\n",
        m2="import pkg.consts as c\n\nglobals().update(anything=c.LIMIT)\n",
    )
    flow = _flow(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m0.py"] == {
        "read": "reads anything, which changed (imports * from pkg/m1.py, whose names all changed)"
    }


def test_a_star_import_with_nothing_new_to_carry_does_not_end_the_flow_early() -> None:
    # In the second pass m2 builds X, then m3's star import carries nothing new:
    # m1, visited first, still needs a third pass to read X.
    project = _chain(
        m1="from pkg.m2 import X\n\n\ndef read():\n    return X\n",
        m2="from pkg.consts import LIMIT\n\nX = L2\nL2 = LIMIT\n",
        m3="from pkg.consts import *\n",
    )
    flow = _flow(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {"read": "reads X, which changed (imported from pkg/m2.py)"}
