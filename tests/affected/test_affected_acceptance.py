"""The acceptance cases, with a recorded map narrowing the plan: each change breaks
a test, and the plan selects every test that fails — never quiet, never empty.

One project whose package ``__init__`` imports every module (the shape where
the static graph selects everything and only the map narrows), with a data
file a test reads, a module reached only through a computed
``importlib.import_module`` name, and a doctest in an ``.rst`` file collected
by ``--doctest-glob``. Each case is planted alone on the recorded commit; a
real pytest run says which tests fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from lanes.cli import main
from tests.support.git import make_repo
from tests.support.processes import failing_tests

if TYPE_CHECKING:
    from pathlib import Path

FILES = {
    "pyproject.toml": '[project]\nname = "acc"\nversion = "0"\n\n'
    "[tool.pytest.ini_options]\n"
    'testpaths = ["tests", "docs"]\n'
    'addopts = "--doctest-glob=*.rst"\n',
    ".gitignore": "envelopes/\n",
    "pkg/__init__.py": "from pkg import a, b, loader\n",
    "pkg/a.py": "LIMIT = 3\n\n\ndef fa(x: int) -> int:\n    return min(x, LIMIT)\n",
    "pkg/b.py": "def fb() -> str:\n    return 'b'\n",
    "pkg/loader.py": "import importlib\n\n\ndef plugin(name: str) -> object:\n"
    "    return importlib.import_module('.'.join(['pkg', 'plugins', name]))\n",
    "pkg/plugins/__init__.py": "",
    "pkg/plugins/p1.py": "SCALE = 2\n\n\ndef run(x: int) -> int:\n    return x * SCALE\n",
    "tests/__init__.py": "",
    "tests/test_a.py": "from pkg import a\n\n\ndef test_fa() -> None:\n    assert a.fa(5) == 3\n",
    "tests/test_b.py": "from pkg import b\n\n\ndef test_fb() -> None:\n    assert b.fb() == 'b'\n",
    "tests/test_plugins.py": "from pkg.loader import plugin\n\n\ndef test_p1() -> None:\n"
    "    assert plugin('p1').run(2) == 4  # type: ignore[attr-defined]\n",
    "tests/test_data.py": "import json\nfrom pathlib import Path\n\n\ndef test_data() -> None:\n"
    "    assert json.loads(Path(__file__).with_name('data.json').read_text()) == {'k': 1}\n",
    "tests/data.json": '{"k": 1}\n',
    "docs/guide.rst": "Guide\n=====\n\n>>> from pkg import b\n>>> b.fb()\n'b'\n",
}

# Each case: the files it writes; each breaks at least one test.
CASES = {
    "a broken data file a test reads": {"tests/data.json": '{"k": 2}\n'},
    "a new conftest.py with a broken autouse fixture": {
        "tests/conftest.py": "import pytest\n\n\n@pytest.fixture(autouse=True)\n"
        "def broken() -> None:\n    raise RuntimeError('broken fixture')\n"
    },
    "a changed module-level constant": {"pkg/a.py": FILES["pkg/a.py"].replace("3", "4")},
    "a module reached only through a computed import_module": {
        "pkg/plugins/p1.py": FILES["pkg/plugins/p1.py"].replace("SCALE = 2", "SCALE = 3")
    },
    "a function of that module": {
        "pkg/plugins/p1.py": FILES["pkg/plugins/p1.py"].replace("x * SCALE", "x + SCALE + 1")
    },
    "a new test file": {"tests/test_new.py": "def test_new() -> None:\n    assert False\n"},
    "a doctest in an .rst file collected by --doctest-glob": {
        "docs/guide.rst": FILES["docs/guide.rst"].replace("'b'\n", "'c'\n")
    },
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("acceptance")
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
    assert (root / "envelopes/affected-map.json").is_file()
    return root


@pytest.mark.integration
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_breaking_change_selects_every_failing_test_with_the_map(
    case: str,
    recorded: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(recorded)
    written = CASES[case]
    originals: dict[str, str | None] = {
        path: (recorded / path).read_text() if (recorded / path).exists() else None
        for path in written
    }
    try:
        for path, text in written.items():
            (recorded / path).write_text(text)
        failing = failing_tests(recorded)
        assert failing, f"{case}: the planted change must break a test"
        assert main(["affected", "--json"]) == 0
        plan = json.loads(capsys.readouterr().out)
    finally:
        for path, original in originals.items():
            if original is None:
                (recorded / path).unlink()
            else:
                (recorded / path).write_text(original)
    assert plan["map"].startswith("using "), plan["map"]
    assert plan["tests"], f"{case}: an empty selection"
    assert all(c["rule"] != "quiet" for c in plan["changed"])
    whole = {t["file"] for t in plan["tests"] if "nodes" not in t}
    ids = {n["id"] for t in plan["tests"] for n in t.get("nodes", [])}
    missed = {test for test in failing if test.split("::")[0] not in whole and test not in ids}
    assert not missed, f"{case}: failing tests not selected: {sorted(missed)}"
