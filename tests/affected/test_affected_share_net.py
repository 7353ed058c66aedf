"""A computed import that ran outside every test adds, for a change the map
narrowed, the tests the map cannot vouch for by id, not their whole files.

One real recording (``lanes affected --record``) of a package whose
``__init__`` runs a computed import at import (``__import__`` with a name from
a table: what it imported is unknown), so its net reaches every module. A
change inside a function is narrowed by what each test executed: a test the
map vouches for ran the changed function or not, whatever that import loaded.
That holds per test, so a test file holding one test the map cannot vouch for
(it started a program the recording cannot see into) runs that test, by id,
beside the map's picks; its other tests, recorded whole, stay out.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from lanes.affected.testmap import read_map
from lanes.cli import main
from tests.support.git import make_repo

if TYPE_CHECKING:
    from pathlib import Path

OTHER = "def f() -> int:\n    return 2\n"
FILES = {
    "pyproject.toml": '[project]\nname = "cn"\nversion = "0"\n',
    ".gitignore": "envelopes/\n__pycache__/\n",
    "pkg/__init__.py": "from pkg import other, registry\n",
    "pkg/registry.py": "def build(names: list[str]) -> list[object]:\n"
    "    return [__import__(name) for name in names]\n\n\n"
    "BUILT = build(['json'])\n",
    "pkg/other.py": OTHER,
    "tests/__init__.py": "",
    "tests/test_other.py": "from pkg import other\n\n\ndef test_other() -> None:\n"
    "    assert other.f() == 2\n",
    # -I ignores PYTHONPATH, where the recording's bootstrap is: the child is unseen.
    "tests/test_unseen.py": "import subprocess\nimport sys\n\nimport pkg\n\n\n"
    "def test_isolated() -> None:\n"
    "    subprocess.run([sys.executable, '-I', '-c', 'pass'], check=True)\n\n\n"
    "def test_quiet() -> None:\n    assert pkg.registry.BUILT\n",
}


@pytest.mark.integration
def test_the_net_adds_the_unvouched_tests_by_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_repo(tmp_path, FILES, "base")
    monkeypatch.chdir(tmp_path)
    assert main(["affected", "--record"]) == 0
    test_map = read_map(tmp_path / "envelopes/affected-map.json")
    assert test_map is not None
    assert test_map.site_runs("pkg/registry.py", 2) == (True, {})
    assert list(test_map.unvouched_tests("tests/test_unseen.py")) == [
        "tests/test_unseen.py::test_isolated"
    ]
    (tmp_path / "pkg/other.py").write_text(OTHER.replace("return 2", "return 20"))
    capsys.readouterr()
    assert main(["affected", "--json"]) == 0
    plan: dict[str, Any] = json.loads(capsys.readouterr().out)
    selected = {
        t["file"]: {n["id"]: [r["rule"] for r in n["reasons"]] for n in t["nodes"]}
        if "nodes" in t
        else None
        for t in plan["tests"]
    }
    # test_other ran the changed f (the map); test_isolated's child was not
    # seen into (the static graph names it, by id, before the net of the
    # import run at import would); test_quiet, recorded whole, never ran f
    # and stays out: its file does not run whole.
    assert selected == {
        "tests/test_other.py": {"tests/test_other.py::test_other": ["map"]},
        "tests/test_unseen.py": {"tests/test_unseen.py::test_isolated": ["import graph"]},
    }
    (changed,) = plan["changed"]
    assert "computed import at pkg/registry.py:2 ran outside every test" in changed["detail"]
