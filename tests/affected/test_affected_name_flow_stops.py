"""Where the name flow stops, and the reason it gives for the static rule to stand.

A changed statement the flow cannot follow (a module docstring, a call or a
registering decorator at module level, ``__all__``, a file that does not
parse, the encoding declaration), a module-level ``__getattr__``, a changed
import that another module imports again (a re-exported name), and a call at
module level, even in a conftest, that reads a changed name.

Each verdict of :func:`lanes.affected.nameflow.follow`, in-process on the
planted projects of :mod:`tests.affected.name_flow_helpers`, is checked whole
(readers with their reasons, test files run whole, the names found changed, or
the reason the static rule stands), the way the plan reports it.
"""

from __future__ import annotations

from tests.affected.name_flow_helpers import (
    CHANGED_LIMIT,
    CONSTS,
    PROJECT,
    TABLES,
    chain,
    flow_of,
    stops,
)


def test_a_module_level_call_reading_a_changed_name_stops_the_flow() -> None:
    project = {**PROJECT, "pkg/reg.py": "from pkg.consts import LIMIT\n\nregister(LIMIT)\n"}
    assert flow_of(CONSTS, "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n", project) == stops(
        "pkg/reg.py:3: a call at module level reads LIMIT, which the change affects: "
        "what it changes cannot be followed"
    )


def test_a_registering_decorator_reading_a_changed_name_stops_the_flow() -> None:
    project = {
        **PROJECT,
        "pkg/reg.py": "from pkg.consts import LIMIT\n\n\n@route(LIMIT)\ndef f():\n    pass\n",
    }
    assert flow_of(CONSTS, "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n", project) == stops(
        "pkg/reg.py:4: a decorator that may register at module level reads LIMIT, "
        "which the change affects: what it changes cannot be followed"
    )


def test_where_a_changed_statement_cannot_be_followed_the_flow_stops_and_says_why() -> None:
    base = PROJECT[CONSTS]
    assert flow_of(CONSTS, '"""Doc."""\n' + base) == stops(
        "a module docstring changed at line 1: a doctest may read it"
    )
    assert flow_of(CONSTS, base + "print(1)\n") == stops(
        "a module-level call changed at line 4: what it changes cannot be followed"
    )
    assert flow_of(CONSTS, base + "@hook\ndef f():\n    pass\n") == stops(
        "a decorator at line 4 runs at import and may register it elsewhere"
    )
    assert flow_of(CONSTS, base + "__all__ = ['LIMIT']\n") == stops(
        "pkg/consts.py: __all__ changes (the change binds it (line 4)): "
        "what `import *` binds cannot be followed"
    )
    assert flow_of(CONSTS, "LIMIT = (\n") == stops(
        "a file does not parse (SyntaxError): the flow cannot be followed"
    )
    assert flow_of(CONSTS, "LIMIT = 4\x00\n") == stops(
        "a file does not parse (SyntaxError): the flow cannot be followed"
    )


def test_a_changed_encoding_declaration_stops_the_flow() -> None:
    cookie = "# -*- coding: latin-1 -*-\n"
    assert flow_of(CONSTS, cookie + PROJECT[CONSTS]) == stops(
        "the first two lines changed (an encoding declaration)"
    )
    # Removed: the old side had it.
    project = {**PROJECT, CONSTS: "#!/usr/bin/env python\n" + cookie + PROJECT[CONSTS]}
    assert flow_of(CONSTS, PROJECT[CONSTS], project) == stops(
        "the first two lines changed (an encoding declaration)"
    )
    # A cookie below line 2 is only a comment.
    project = {**PROJECT, CONSTS: "X = 0\n\n" + PROJECT[CONSTS]}
    assert flow_of(CONSTS, "X = 0\n\n" + cookie + PROJECT[CONSTS], project).fallback == ""
    # The first lines changed without a cookie: the flow goes on.
    assert flow_of(CONSTS, "LIMIT = 3\nSCALE = 3\n_HIDDEN = 1\n").fallback == ""


def test_a_module_level_getattr_in_a_module_with_changed_names_stops_the_flow() -> None:
    hook = "\n\ndef __getattr__(name):\n    return name\n"
    project = {**PROJECT, CONSTS: PROJECT[CONSTS] + hook}
    changed = "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n" + hook
    assert flow_of(CONSTS, changed, project) == stops(
        "pkg/consts.py defines a module-level __getattr__: any name may reach it"
    )
    # A module whose names all changed by code counts as touched.
    names = PROJECT["pkg/names.py"] + hook
    project = {**PROJECT, "pkg/names.py": names}
    assert flow_of("pkg/names.py", names.replace("['add']", "['sub']"), project) == stops(
        "pkg/names.py defines a module-level __getattr__: any name may reach it"
    )
    # A hook in a module with no changed name does not matter.
    project = {**PROJECT, "pkg/star.py": PROJECT["pkg/star.py"] + hook}
    assert flow_of(CONSTS, "LIMIT = 3\nSCALE = 2\n_HIDDEN = 2\n", project).fallback == ""


def test_a_changed_import_that_another_module_imports_from_it_stops_the_flow() -> None:
    tables = PROJECT[TABLES].replace(
        "from pkg.consts import LIMIT", "from pkg.consts import LIMIT, SCALE"
    )
    assert flow_of(TABLES, tables).fallback == ""
    project = {**PROJECT, "pkg/user.py": "from pkg.tables import SCALE\n"}
    assert flow_of(TABLES, tables, project) == stops(
        "a changed import of SCALE, which pkg/user.py imports from pkg/tables.py: a re-exported name"
    )
    project = {
        **PROJECT,
        "pkg/user.py": "from pkg import tables\n\n\ndef f():\n    return tables.SCALE\n",
    }
    assert flow_of(TABLES, tables, project).fallback.startswith(
        "a changed import of SCALE, which pkg/user.py"
    )
    project = {**PROJECT, "pkg/user.py": "from pkg.tables import *\n"}
    assert flow_of(TABLES, tables, project).fallback.startswith(
        "a changed import of LIMIT, which pkg/user.py"
    )


def test_a_call_after_names_bound_by_code_from_a_changed_name_still_stops_the_flow() -> None:
    project = chain(m2="import pkg.consts as c\n\nglobals().update(x=c.LIMIT)\nregister(c.LIMIT)\n")
    assert flow_of(CONSTS, CHANGED_LIMIT, project) == stops(
        "pkg/m2.py:4: a call at module level reads LIMIT, which the change affects: "
        "what it changes cannot be followed"
    )


def test_a_changed_import_after_a_changed_star_import_is_still_checked_for_re_export() -> None:
    project = {
        **PROJECT,
        "pkg/src.py": "from pkg.consts import *\nfrom pkg.tables import TABLE\n",
        "pkg/m1.py": "from pkg.src import Base\n",
    }
    changed = "from pkg.calc import *\nfrom pkg.tables import TABLE, Base\n"
    assert flow_of("pkg/src.py", changed, project) == stops(
        "a changed import of Base, which pkg/m1.py imports from pkg/src.py: a re-exported name"
    )


def test_a_module_level_call_in_a_conftest_reading_a_changed_name_stops_the_flow() -> None:
    project = {**PROJECT, "tests/conftest.py": "from pkg.consts import SCALE\n\nprint(SCALE)\n"}
    assert flow_of(CONSTS, "LIMIT = 3\nSCALE = 5\n_HIDDEN = 1\n", project) == stops(
        "tests/conftest.py:3: a call at module level reads SCALE, which the change affects: "
        "what it changes cannot be followed"
    )


def test_the_encoding_declaration_is_only_looked_for_on_the_first_two_lines() -> None:
    cookie = "# -*- coding: utf-8 -*-\nLIMIT = 3\nSCALE = 2\n_HIDDEN = 1\n"
    project = {**PROJECT, CONSTS: cookie}
    # Line 2 changed, the cookie on line 1: the declaration may have changed meaning.
    assert flow_of(CONSTS, cookie.replace("LIMIT = 3", "LIMIT = 4"), project) == stops(
        "the first two lines changed (an encoding declaration)"
    )
    # Line 3 changed: the cookie stands.
    assert flow_of(CONSTS, cookie.replace("SCALE = 2", "SCALE = 3"), project).fallback == ""
    # A "coding" comment on line 3 is no declaration.
    third = "LIMIT = 3\nSCALE = 2\n# coding: latin-1\n_HIDDEN = 1\n"
    project = {**PROJECT, CONSTS: third}
    assert flow_of(CONSTS, third.replace("LIMIT = 3", "LIMIT = 4"), project).fallback == ""
