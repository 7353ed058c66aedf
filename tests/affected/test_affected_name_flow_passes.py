"""The name flow's passes: a change carried back through modules whatever the order the flow visits them in.

Each project is a chain of a few modules (:func:`tests.affected.name_flow_helpers.chain`),
each reading the next against the visiting order: values, changed behaviour,
imports of several names, ``import *`` and names bound by code are carried
back in later passes, and a pass that carries nothing new does not end the
flow early.

Each verdict of :func:`lanes.affected.nameflow.follow`, in-process on the
planted projects of :mod:`tests.affected.name_flow_helpers`, is checked whole
(readers with their reasons, test files run whole, the names found changed, or
the reason the static rule stands), the way the plan reports it.
"""

from __future__ import annotations

from tests.affected.name_flow_helpers import CHANGED_LIMIT, CONSTS, PROJECT, TABLES, chain, flow_of


def test_a_change_flows_back_through_modules_whatever_their_order() -> None:
    # Each module reads the next (m1 <- m2 <- m3 <- consts), against the order
    # the flow visits them in; each also rebuilds a name it marked already.
    project = chain(
        m1="from pkg.m2 import V2\n\nV1 = V2\n\n\ndef read():\n    return V1\n",
        m2="from pkg.m3 import V3\n\nV2 = V3\nAGAIN2 = V3\n",
        m3="from pkg.consts import LIMIT\n\nV3 = LATE\nLATE = LIMIT\nAGAIN3 = LIMIT\n",
    )
    flow = flow_of(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {
        "read": "reads V1, which changed (line 3 of pkg/m1.py builds it from V2)"
    }
    assert {("pkg/m1.py", "V1"), ("pkg/m2.py", "V2"), ("pkg/m3.py", "V3")} <= flow.changed


def test_changed_behaviour_flows_back_through_modules_whatever_their_order() -> None:
    project = chain(
        m1="from pkg.m2 import build\n\nTABLE = build()\n\n\ndef read():\n    return TABLE\n",
        m2="from pkg.consts import LIMIT\n\n\ndef build():\n    return helper()\n\n\n"
        "def helper():\n    return LIMIT\n\n\ndef again():\n    return LIMIT\n",
    )
    flow = flow_of(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {
        "read": "reads TABLE, which changed (line 3 of pkg/m1.py builds it from build)"
    }


def test_an_import_of_several_names_carries_each_change_in_a_later_pass() -> None:
    # m2 imports C (changed late) and D (changed early) in one statement; only m1,
    # visited before m2, reads what m2 imported.
    project = chain(
        m1="from pkg.m2 import C as X\n\n\ndef read():\n    return X\n",
        m2="from pkg.m3 import C, D\n",
        m3="from pkg.consts import LIMIT\n\nC = E\nD = LIMIT\nE = D\n",
    )
    flow = flow_of(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {"read": "reads X, which changed (imported from pkg/m2.py)"}


def test_an_import_binding_a_module_object_still_carries_the_names_beside_it() -> None:
    # The package re-exports LIMIT; m1 binds the consts module first, then LIMIT.
    project = chain(
        __init__="from pkg.consts import LIMIT\n",
        m1="from pkg import consts as a_module, LIMIT as b_limit\n\n\n"
        "def read():\n    return b_limit\n",
    )
    flow = flow_of(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {
        "read": "reads b_limit, which changed (imported from pkg/__init__.py)"
    }


def test_star_imports_carry_a_change_back_through_modules_whatever_their_order() -> None:
    project = chain(
        m1="from pkg.m2 import *\n\n\ndef read():\n    return C\n",
        m2="from pkg.m3 import *\n",
        m3="from pkg.consts import LIMIT\n\nC = E\nD = LIMIT\nE = D\n",
    )
    flow = flow_of(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {
        "read": "reads C, which changed (imported with * from pkg/m2.py)"
    }


def test_names_bound_by_code_carry_a_change_back_to_an_earlier_module() -> None:
    # m2's names are bound by code from consts.LIMIT, read through the module:
    # the only change of the first pass; m1 reads one of them.
    project = chain(
        m1="from pkg.m2 import x\n\n\ndef read():\n    return x\n",
        m2="import pkg.consts as c\n\nglobals().update(x=c.LIMIT)\n",
    )
    flow = flow_of(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {"read": "reads x, which changed (imported from pkg/m2.py)"}


def test_a_star_import_of_a_module_whose_names_all_changed_carries_back() -> None:
    project = chain(
        m1="from pkg.m2 import *\n\n\ndef read():\n    return anything\n",
        m2="import pkg.consts as c\n\nglobals().update(anything=c.LIMIT)\n",
    )
    flow = flow_of(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {
        "read": "reads anything, which changed (imports * from pkg/m2.py, whose names all changed)"
    }


def test_a_changed_def_selects_its_code_even_in_a_module_visited_after_other_changes() -> None:
    tables = PROJECT[TABLES] + "\n\ndef limited(n=LIMIT):\n    return n\n"
    flow = flow_of(CONSTS, CHANGED_LIMIT, {**PROJECT, TABLES: tables})
    assert flow.readers[TABLES]["limited"] == (
        "is code of limited, which changed (line 20 of pkg/tables.py builds it from LIMIT)"
    )


def test_an_import_carries_a_late_value_beside_a_function_changed_earlier() -> None:
    # m2 imports a_val (changed in the third pass) beside b_fn (changed in the
    # second); only m1, visited before m2, reads a_val from m2.
    project = chain(
        m1="from pkg.m2 import a_val\n\n\ndef read():\n    return a_val\n",
        m2="from pkg.m3 import a_val, b_fn\n",
        m3="from pkg.consts import LIMIT\n\na_val = LATE\nLATE = LIMIT\n\n\n"
        "def b_fn():\n    return LIMIT\n",
    )
    flow = flow_of(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {
        "read": "reads a_val, which changed (imported from pkg/m2.py)"
    }


def test_a_star_import_carries_a_late_value_beside_a_function_changed_earlier() -> None:
    project = chain(
        m1="from pkg.m2 import C\n\n\ndef read():\n    return C\n",
        m2="from pkg.m3 import *\n",
        m3="from pkg.consts import LIMIT\n\nC = E\nD = LIMIT\nE = D\n\n\n"
        "def helper():\n    return LIMIT\n",
    )
    flow = flow_of(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {"read": "reads C, which changed (imported from pkg/m2.py)"}


def test_star_imports_of_a_module_whose_names_all_changed_carry_back_two_steps() -> None:
    project = chain(
        m0="from pkg.m1 import *\n\n\ndef read():\n    return anything\n",
        m1="from pkg.m2 import *\n",
        m2="import pkg.consts as c\n\nglobals().update(anything=c.LIMIT)\n",
    )
    flow = flow_of(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m0.py"] == {
        "read": "reads anything, which changed (imports * from pkg/m1.py, whose names all changed)"
    }


def test_a_star_import_with_nothing_new_to_carry_does_not_end_the_flow_early() -> None:
    # In the second pass m2 builds X, then m3's star import carries nothing new:
    # m1, visited first, still needs a third pass to read X.
    project = chain(
        m1="from pkg.m2 import X\n\n\ndef read():\n    return X\n",
        m2="from pkg.consts import LIMIT\n\nX = L2\nL2 = LIMIT\n",
        m3="from pkg.consts import *\n",
    )
    flow = flow_of(CONSTS, CHANGED_LIMIT, project)
    assert flow.readers["pkg/m1.py"] == {"read": "reads X, which changed (imported from pkg/m2.py)"}
