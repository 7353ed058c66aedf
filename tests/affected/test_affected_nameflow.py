"""A module-level change selects the recorded tests whose code reads what it changes.

One real recording on a package whose ``__init__`` imports every module (so
the static graph selects every test for any change); each case plants one
change on the recorded commit, asks for the plan, and runs the suite for real
to check that every failing test is selected. Where the flow cannot be
followed the static rule stands, with the reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from lanes.cli import main
from tests.support.git import make_repo
from tests.support.processes import failing_tests

if TYPE_CHECKING:
    from pathlib import Path

FILES = {
    "pyproject.toml": '[project]\nname = "nf"\nversion = "0"\n',
    ".gitignore": "envelopes/\n",
    "pkg/__init__.py": "from pkg import calc, consts, loader, ops, reg, shapes\n"
    "from pkg.consts import *\n",
    "pkg/consts.py": 'LIMIT = 3\nSCALE = 2\n__all__ = ["LIMIT", "SCALE"]\n',
    "pkg/calc.py": "from pkg.consts import LIMIT, SCALE\n\nDOUBLE = LIMIT * 2\n\n\n"
    "def clamp(x: int, top: int = LIMIT) -> int:\n    return min(x, top)\n\n\n"
    "def double() -> int:\n    return DOUBLE\n\n\n"
    "def scale(x: int) -> int:\n    return x * SCALE\n\n\n"
    "def other() -> int:\n    return 0\n",
    "pkg/shapes.py": "class Box:\n    SIDE = 2\n\n    def area(self) -> int:\n"
    "        return self.SIDE**2\n\n\ndef unit() -> int:\n    return 1\n",
    # Names bound by code: every name of the module may change.
    "pkg/ops.py": "import operator\n\nNAMES = ['add', 'sub']\n"
    "locals().update({n: getattr(operator, n) for n in NAMES})\n\n\n"
    "def plain() -> int:\n    return 7\n",
    # A module-level call whose effect (a registration) no name flow follows.
    "pkg/reg.py": "REGISTRY: dict[str, object] = {}\n\n\n"
    "def register(f: object) -> object:\n    REGISTRY[getattr(f, '__name__', '')] = f\n"
    "    return f\n\n\ndef one() -> int:\n    return 1\n\n\nregister(one)\n",
    "pkg/loader.py": "import importlib\n\n\ndef plugin(name: str) -> object:\n"
    "    return importlib.import_module('pkg.plugins.' + name)\n",
    "pkg/plugins/__init__.py": "",
    "pkg/plugins/p1.py": "def run(x: int) -> int:\n    return x * 2\n",
    "tests/__init__.py": "",
    "tests/test_calc.py": "from pkg import calc\n\n\n"
    "def test_clamp() -> None:\n    assert calc.clamp(5) == 3\n\n\n"
    "def test_double() -> None:\n    assert calc.double() == 6\n\n\n"
    "def test_scale() -> None:\n    assert calc.scale(2) == 4\n\n\n"
    "def test_other() -> None:\n    assert calc.other() == 0\n",
    "tests/test_shapes.py": "from pkg.shapes import Box, unit\n\n\n"
    "def test_area() -> None:\n    assert Box().area() == 4\n\n\n"
    "def test_unit() -> None:\n    assert unit() == 1\n",
    "tests/test_ops.py": "from pkg import ops\n\n\n"
    "def test_names() -> None:\n    assert sorted(n for n in vars(ops) if n in ('add', 'sub')) "
    "== ['add', 'sub']\n\n\n"
    "def test_plain() -> None:\n    assert ops.plain() == 7\n",
    "tests/test_star.py": "import pkg\n\n\ndef test_limit() -> None:\n    assert pkg.LIMIT == 3\n",
    "tests/test_param.py": "import pytest\n\nfrom pkg.consts import SCALE\n\n"
    "CASES = [SCALE, SCALE + 1]\n\n\n@pytest.mark.parametrize('n', CASES)\n"
    "def test_n(n: int) -> None:\n    assert n >= 2\n",
    "tests/test_reg.py": "from pkg import reg\n\n\n"
    "def test_one() -> None:\n    assert reg.REGISTRY == {'one': reg.one}\n",
    # A parameter shadows the module alias: helper reads no name of pkg.consts.
    "tests/test_shadow.py": "from pkg import consts\n\n\ndef helper(consts: int) -> int:\n"
    "    return consts\n\n\ndef test_shadow() -> None:\n    assert helper(1) == 1\n",
    # A module-level call in a test file runs when pytest collects it.
    "tests/test_collect.py": "from pkg.consts import LIMIT\n\nprint(LIMIT)\n\n\n"
    "def test_collected() -> None:\n    pass\n",
    "tests/test_plugins.py": "from pkg.loader import plugin\n\n\ndef test_p1() -> None:\n"
    "    assert plugin('p1').run(2) == 4  # type: ignore[attr-defined]\n",
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("nameflow")
    make_repo(root, FILES, "base")
    subprocess.run(
        [sys.executable, "-m", "lanes", "affected", "--record"],
        cwd=root,
        # The planted suite uses no Hypothesis, and its pytest plugin imports
        # the whole package for the run's terminal summary (~0.3 s of CPU).
        env={**os.environ, "PYTEST_ADDOPTS": "-p no:hypothesispytest"},
        check=True,
        capture_output=True,
    )
    return root


def _planted(
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *,
    path: str,
    old: str,
    new: str,
) -> tuple[dict[str, Any], set[str]]:
    """The plan and the failing tests with ``old`` replaced by ``new`` in ``path``."""
    monkeypatch.chdir(root)
    assert FILES[path].count(old) == 1
    (root / path).write_text(FILES[path].replace(old, new))
    try:
        failing = failing_tests(root)
        assert main(["affected", "--json"]) == 0
        plan = json.loads(capsys.readouterr().out)
    finally:
        (root / path).write_text(FILES[path])
    assert isinstance(plan, dict)
    return plan, failing


def _selected(plan: dict[str, Any]) -> tuple[set[str], dict[str, str]]:
    """(the selected test ids, the files run whole -> their first reason's detail)."""
    ids = {n["id"] for t in plan["tests"] for n in t.get("nodes", [])}
    whole = {t["file"]: t["reasons"][0]["detail"] for t in plan["tests"] if "nodes" not in t}
    return ids, whole


def _caught(plan: dict[str, Any], failing: set[str]) -> None:
    ids, whole = _selected(plan)
    assert failing, "the planted change must break a test"
    # A test's own id (a parametrized test) runs every item of it.
    assert not {
        t
        for t in failing
        if t not in ids
        and t.split("::")[0] not in whole
        and not any(t.startswith((f"{i}[", f"{i}::")) for i in ids)
    }


@pytest.mark.integration
def test_a_constant_selects_the_code_reading_it_through_imports_defaults_and_tables(
    recorded: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: every test of the project (the package imports every module).
    # LIMIT reaches calc by `from ... import`, DOUBLE is built from it, clamp's
    # default reads it, and `import *` re-exports it as pkg.LIMIT; test_shadow's
    # helper reads its parameter `consts`, not the module.
    plan, failing = _planted(
        recorded, monkeypatch, capsys, path="pkg/consts.py", old="LIMIT = 3", new="LIMIT = 4"
    )
    _caught(plan, failing)
    ids, whole = _selected(plan)
    assert ids == {
        "tests/test_calc.py::test_clamp",
        "tests/test_calc.py::test_double",
        "tests/test_star.py::test_limit",
    }
    assert whole == {
        "tests/test_collect.py": "a module-level call at line 3 reads LIMIT, "
        "run when it is collected: it runs whole"
    }
    reasons = {
        n["id"]: n["reasons"][0]["detail"] for t in plan["tests"] for n in t.get("nodes", [])
    }
    assert reasons["tests/test_calc.py::test_clamp"] == (
        "pkg/calc.py::clamp is code of clamp, which changed "
        "(line 6 of pkg/calc.py builds it from LIMIT)"
    )
    assert reasons["tests/test_calc.py::test_double"] == (
        "pkg/calc.py::double reads DOUBLE, which changed (line 3 of pkg/calc.py builds it from LIMIT)"
    )


@pytest.mark.integration
def test_a_constant_a_test_parametrizes_with_runs_that_tests_items_by_its_own_id(
    recorded: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A parametrize list built from the changed name may change the test ids
    # themselves (test_n[2] becomes test_n[3]): the test runs by its own id.
    plan, failing = _planted(
        recorded, monkeypatch, capsys, path="pkg/consts.py", old="SCALE = 2", new="SCALE = 3"
    )
    _caught(plan, failing)
    ids, whole = _selected(plan)
    assert ids == {"tests/test_calc.py::test_scale", "tests/test_param.py::test_n"}
    assert whole == {}
    reasons = {
        n["id"]: n["reasons"][0]["detail"] for t in plan["tests"] for n in t.get("nodes", [])
    }
    assert reasons["tests/test_param.py::test_n"] == (
        "a parametrize decorator at line 8 reads CASES, run when it is collected: its items run"
    )


@pytest.mark.integration
def test_a_class_body_change_selects_the_tests_that_executed_its_methods(
    recorded: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plan, failing = _planted(
        recorded, monkeypatch, capsys, path="pkg/shapes.py", old="SIDE = 2", new="SIDE = 3"
    )
    _caught(plan, failing)
    assert _selected(plan) == ({"tests/test_shapes.py::test_area"}, {})


@pytest.mark.integration
def test_names_bound_by_code_change_every_name_of_the_module(
    recorded: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `locals().update(...)` binds names no parser sees: a test reading the
    # module whole (`vars(ops)`) or any name of it is selected.
    plan, failing = _planted(
        recorded, monkeypatch, capsys, path="pkg/ops.py", old="['add', 'sub']", new="['add']"
    )
    _caught(plan, failing)
    assert _selected(plan) == (
        {"tests/test_ops.py::test_names", "tests/test_ops.py::test_plain"},
        {},
    )


@pytest.mark.integration
@pytest.mark.parametrize(
    ("path", "old", "new", "why"),
    [
        (
            "pkg/reg.py",
            "REGISTRY: dict[str, object] = {}",
            "REGISTRY: dict[str, object] = {'x': None}",
            "pkg/reg.py:13: a call at module level reads register",
        ),
        ("pkg/consts.py", '"LIMIT", "SCALE"', '"LIMIT"', "__all__ changes"),
    ],
    ids=["a module-level call", "__all__"],
)
def test_where_the_flow_cannot_be_followed_every_importer_runs_whole(
    recorded: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *,
    path: str,
    old: str,
    new: str,
    why: str,
) -> None:
    plan, failing = _planted(recorded, monkeypatch, capsys, path=path, old=old, new=new)
    ids, whole = _selected(plan)
    assert ids == set()
    assert len(whole) == 9  # every test file: each imports the package
    changed = next(c for c in plan["changed"] if c["path"] == path)
    assert "the name flow stops: " in changed["detail"]
    assert why in changed["detail"]
    assert {t.split("::")[0] for t in failing} <= set(whole)


@pytest.mark.integration
def test_a_test_file_the_graph_does_not_reach_is_counted_apart(
    recorded: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # p1 is loaded by a computed import: no test imports it, the recording saw
    # test_p1 execute it. Before: "map: 1 of 0 statically selected".
    plan, failing = _planted(
        recorded, monkeypatch, capsys, path="pkg/plugins/p1.py", old="x * 2", new="x * 3"
    )
    _caught(plan, failing)
    changed = next(c for c in plan["changed"] if c["path"] == "pkg/plugins/p1.py")
    assert changed["detail"].startswith(
        "map: 0 of 0 statically selected test files, and 1 the import graph does not reach "
        "(the recording saw them execute it) (1 test ids); changed run"
    )
