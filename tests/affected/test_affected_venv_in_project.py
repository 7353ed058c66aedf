"""A virtualenv inside the project root is not the project's code.

``.nox/``, ``.tox/``, ``.venv/`` hold every dependency under the root; the
recorder counted any file under the root as the project's, so their code went
into the map (and, on 3.12+, was armed for ``sys.monitoring``). The project's
own code is what lies under the root outside a ``site-packages`` or
``dist-packages`` directory and outside a directory holding ``pyvenv.cfg``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import pytest

from lanes.affected.projectcode import ProjectCode, in_environment
from lanes.affected.testmap import read_map
from lanes.cli import main
from tests.support.git import make_repo

if TYPE_CHECKING:
    from pathlib import Path

SITE = f".nox/tests/lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages"

FILES = {
    "pyproject.toml": '[project]\nname = "venvin"\nversion = "0"\n'
    "[tool.pytest.ini_options]\n"
    f'pythonpath = ["{SITE}", ".venv/lib", "deps/dist-packages"]\n',
    ".gitignore": "envelopes/\n.nox/\n.venv/\ndeps/\n",
    "pkg/__init__.py": "",
    "pkg/core.py": "def value() -> int:\n    return 1\n",
    "tests/test_core.py": "import smod\nimport vendorlib\nimport vmod\n\nfrom pkg import core\n\n\n"
    "def test_core() -> None:\n"
    "    assert core.value() == vendorlib.helper() == vmod.f() == smod.g()\n",
}
# Untracked, like a real one: a nox virtualenv, a bare `.venv` (recognised by its
# pyvenv.cfg alone) and a dist-packages directory with no pyvenv.cfg at all.
ENVIRONMENTS = {
    ".nox/tests/pyvenv.cfg": "home = /usr/bin\n",
    f"{SITE}/vendorlib.py": "from pathlib import Path\n\n\ndef helper() -> int:\n"
    "    return len(Path(__file__).with_name('vendorlib.txt').read_text())\n",
    f"{SITE}/vendorlib.txt": "x",
    ".venv/pyvenv.cfg": "home = /usr/bin\n",
    ".venv/lib/vmod.py": "def f() -> int:\n    return 1\n",
    "deps/dist-packages/smod.py": "def g() -> int:\n    return 1\n",
}


@pytest.mark.integration
def test_code_in_a_virtualenv_under_the_root_is_not_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_repo(tmp_path, FILES, "base")
    for name, text in ENVIRONMENTS.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["affected", "--record"]) == 0
    assert "recorded 1 tests" in capsys.readouterr().out
    test_map = read_map(tmp_path / "envelopes/affected-map.json")
    assert test_map is not None
    files = {node[0] for node in test_map.document["nodes"]}
    # The project's code still is: the module the test runs, and the test.
    assert files == {"pkg/__init__.py", "pkg/core.py", "tests/test_core.py"}
    assert test_map.document["data"] == []


def test_the_predicate_names_each_kind_of_environment(tmp_path: Path) -> None:
    (tmp_path / "env").mkdir()
    (tmp_path / "env/pyvenv.cfg").write_text("")
    project = ProjectCode(str(tmp_path))
    assert project(str(tmp_path / "pkg/mod.py"))
    assert project(str(tmp_path / "mod.py"))
    assert not project(str(tmp_path / "env/lib/mod.py"))
    assert not project(str(tmp_path / "a/site-packages/mod.py"))
    assert not project(str(tmp_path / "a/dist-packages/b/mod.py"))
    assert not project(str(tmp_path.parent / "elsewhere.py"))
    assert not project("<frozen importlib._bootstrap>")
    # A file named like an installer's directory is code like any other.
    assert project(str(tmp_path / "site-packages.py"))
    # The static graph's view of tracked files, with the same rule.
    assert in_environment(["v", "lib", "m.py"], {"v/"}.__contains__)
    assert not in_environment(["pkg", "m.py"], {"v/"}.__contains__)
