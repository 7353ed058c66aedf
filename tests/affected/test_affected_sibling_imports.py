"""A test's sibling helper module is imported the way pytest's sys.path finds it.

pytest (``--import-mode=prepend``, its default) puts each test module's base
directory (the first one upward without ``__init__.py``) on ``sys.path``, so
``tests/test_h1.py`` doing ``import helpers`` runs ``tests/helpers.py``; the
``pythonpath`` ini option adds more directories. The graph resolved imports
from the root and ``src/`` only, so a change read only through such a helper
selected no test at all. An import that names nothing the graph or the
environment knows is a named blind spot that fails open.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from lanes.cli import main
from tests.support.git import make_repo

if TYPE_CHECKING:
    from pathlib import Path

FILES = {
    "pyproject.toml": '[project]\nname = "sib"\nversion = "0"\n',
    ".gitignore": "envelopes/\n",
    "pkg/__init__.py": "",
    "pkg/core.py": "def value() -> int:\n    return 1\n",
    # No tests/__init__.py: pytest's prepend mode puts tests/ on sys.path.
    "tests/helpers.py": "EXPECTED = 1\n\n\ndef expected() -> int:\n    return EXPECTED\n",
    "tests/test_h1.py": "import helpers\nfrom pkg import core\n\n\n"
    "def test_h1() -> None:\n    assert core.value() == helpers.expected()\n",
    # A deeper directory without __init__.py is its own base directory.
    "tests/sub/subhelpers.py": "LIMIT = 5\n",
    "tests/sub/test_x.py": "from subhelpers import LIMIT\n\n\n"
    "def test_x() -> None:\n    assert LIMIT == 5\n",
    "tests/test_other.py": "from pkg import core\n\n\ndef test_other() -> None:\n"
    "    assert core.value() == 1\n",
}


def _plan(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["affected", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert isinstance(plan, dict)
    return plan


def _tests(plan: dict[str, Any]) -> dict[str, list[str]]:
    return {t["file"]: [r["rule"] for r in t["reasons"]] for t in plan["tests"]}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    make_repo(tmp_path, FILES, "base")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.integration
@pytest.mark.parametrize("recorded", [False, True], ids=["static", "map"])
def test_a_change_read_only_through_a_sibling_helper_selects_its_tests(
    project: Path, capsys: pytest.CaptureFixture[str], *, recorded: bool
) -> None:
    if recorded:
        assert main(["affected", "--record"]) == 0
        assert "recorded 3 tests" in capsys.readouterr().out
    (project / "tests/helpers.py").write_text(FILES["tests/helpers.py"].replace("= 1", "= 2"))
    (project / "tests/sub/subhelpers.py").write_text("LIMIT = 6\n")
    selected = _tests(_plan(capsys))
    assert sorted(selected) == ["tests/sub/test_x.py", "tests/test_h1.py"]


@pytest.mark.integration
def test_pythonpath_ini_and_importlib_mode_resolve_as_pytest_does(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # importlib mode inserts no base directory: only `pythonpath` makes
    # tests/support importable; `import helpers` from tests/ would not resolve.
    (project / "pyproject.toml").write_text(
        FILES["pyproject.toml"] + "[tool.pytest.ini_options]\n"
        'addopts = "--import-mode=importlib"\npythonpath = ["tests/support"]\n'
    )
    (project / "tests/support").mkdir()
    (project / "tests/support/shared.py").write_text("WANT = 1\n")
    (project / "tests/test_h1.py").write_text(
        "from shared import WANT\n\n\ndef test_h1() -> None:\n    assert WANT == 1\n"
    )
    (project / "tests/sub/test_x.py").write_text("def test_x() -> None:\n    pass\n")
    make_repo(project, {}, "importlib mode")
    (project / "tests/support/shared.py").write_text("WANT = 2\n")
    assert sorted(_tests(_plan(capsys))) == ["tests/test_h1.py"]


@pytest.mark.integration
def test_an_import_nothing_resolves_is_a_blind_spot_that_fails_open(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A conftest that puts a directory on sys.path itself: the graph cannot
    # know `vendored` is tests/vendor/vendored.py, so it says so.
    (project / "tests/conftest.py").write_text(
        "import sys\nfrom pathlib import Path\n\n"
        "sys.path.insert(0, str(Path(__file__).with_name('vendor')))\n"
    )
    (project / "tests/vendor").mkdir()
    (project / "tests/vendor/vendored.py").write_text("N = 1\n")
    (project / "tests/test_other.py").write_text(
        "import vendored\n\n\ndef test_other() -> None:\n    assert vendored.N == 1\n"
    )
    make_repo(project, {}, "vendored")
    (project / "tests/vendor/vendored.py").write_text("N = 2\n")
    plan = _plan(capsys)
    assert _tests(plan) == {"tests/test_other.py": ["unresolved import"]}
    reason = plan["tests"][0]["reasons"][0]["detail"]
    assert reason == (
        "unresolved import vendored: no project file, not installed "
        "at tests/test_other.py:1: fail open"
    )
    assert {
        "file": "tests/test_other.py",
        "line": 1,
        "what": "unresolved import vendored: no project file, not installed",
    } in plan["blind_spots"]
