"""The planted project the name flow's verdict tests change, and the flow of one change in it.

:func:`lanes.affected.nameflow.follow` in-process on small projects: the
file at the map's commit, its current text and the diff between them (the
hunks a real diff gives), the files importing it, and what the recording saw
run outside every test. :data:`PROJECT` is the whole planted project;
:func:`chain` a project of a few modules alone, for the passes of the flow.
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


def flow_of(
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


def stops(why: str) -> Flow:
    """The flow that stops at once and says ``why``: the static rule stands."""
    return Flow({}, {}, why)


def chain(**files: str) -> dict[str, str]:
    """The package and its constants alone, plus ``files`` given as ``m1="..."`` for
    ``pkg/m1.py``: nothing else changes in a pass of the flow."""
    project = {"pkg/__init__.py": "", CONSTS: PROJECT[CONSTS]}
    return {**project, **{f"pkg/{name}.py": text for name, text in files.items()}}


# The constants with LIMIT changed: the change each chain carries back.
CHANGED_LIMIT = "LIMIT = 4\nSCALE = 2\n_HIDDEN = 1\n"
