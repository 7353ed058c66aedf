"""``lanes affected --self-check``: the selector must be right on a project whose answer is known.

A generated project in a temporary git repository::

    pkg/leaf.py      f()            <- a planted bug goes here
    pkg/mid.py       imports leaf
    pkg/other.py     imports nothing of ours
    tests/test_leaf.py   imports pkg.leaf
    tests/test_mid.py    imports pkg.mid      (reaches leaf transitively)
    tests/test_other.py  imports pkg.other
    tests/sub/conftest.py, tests/sub/test_sub.py

Checks: a bug in ``leaf`` selects exactly ``test_leaf`` and ``test_mid``, and
every test file that really fails under it (a real pytest run) is among them;
a conftest change selects its subtree; a ``pyproject.toml`` change selects
everything; a README change selects nothing.

Planted fault (:mod:`lanes.payloads.planted`): a selector that follows only
direct imports — wrong but plausible, and on this project it answers
``test_leaf`` alone, missing ``test_mid`` (which reaches ``leaf`` through
``mid``). The selector must answer both, and the fault must be told apart.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from lanes._planted import announce, judge
from lanes.affected.lane import build_plan
from lanes.config import load_config

if TYPE_CHECKING:
    from lanes.payloads.affected import AffectedCheck, AffectedSelfCheck
    from lanes.payloads.planted import PlantedFault

__all__ = ["FILES", "failing_test_files", "run_self_check"]

FILES: dict[str, str] = {
    "pyproject.toml": '[project]\nname = "planted"\nversion = "0"\n\n'
    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "README.md": "# planted\n",
    "pkg/__init__.py": "",
    "pkg/leaf.py": "def f(x: int) -> int:\n    return x + 1\n",
    "pkg/mid.py": "from pkg.leaf import f\n\n\ndef g(x: int) -> int:\n    return f(x) * 2\n",
    "pkg/other.py": "def h() -> str:\n    return 'other'\n",
    "tests/__init__.py": "",
    "tests/test_leaf.py": "from pkg.leaf import f\n\n\ndef test_f() -> None:\n    assert f(1) == 2\n",
    "tests/test_mid.py": "from pkg import mid\n\n\ndef test_g() -> None:\n    assert mid.g(1) == 4\n",
    "tests/test_other.py": "from pkg.other import h\n\n\ndef test_h() -> None:\n    assert h() == 'other'\n",
    "tests/sub/__init__.py": "",
    "tests/sub/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef word() -> str:\n    return 'sub'\n",
    "tests/sub/test_sub.py": "def test_sub(word: str) -> None:\n    assert word == 'sub'\n",
}

_FAILED = re.compile(r"^FAILED (\S+?\.py)(?:::|\s)", re.MULTILINE)


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=lanes", "-c", "user.email=lanes@localhost", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def failing_test_files(root: Path, *extra: str) -> set[str]:
    """Run the whole suite (or the tests ``extra`` names) once and return the files of the tests that failed.

    The project's own code comes first on ``sys.path`` (``PYTHONPATH=root``), also in
    the subprocesses its tests start: an installed copy must not stand in for it.
    """
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", *extra],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    # Only pytest's own summary: a failing test's captured output may quote a
    # nested pytest's FAILED lines (the self-check's planted project does).
    _, _, summary = proc.stdout.rpartition("short test summary info")
    return set(_FAILED.findall(summary))


def _selected(root: Path) -> tuple[set[str], bool]:
    plan = build_plan(load_config(cwd=root), "HEAD")
    return set(plan.tests), plan.full


def _restore(root: Path) -> None:
    _git(root, "checkout", "--", ".")


def run_self_check() -> AffectedSelfCheck:
    checks: list[AffectedCheck] = []

    def check(name: str, expected: object, observed: object) -> None:
        checks.append(
            {
                "name": name,
                "expected": expected,
                "observed": observed,
                "passed": expected == observed,
            }
        )

    with tempfile.TemporaryDirectory(prefix="lanes-affected-check-") as tmp:
        root = Path(tmp)
        for path, text in FILES.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
        _git(root, "init", "-q")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", "planted project")

        leaf = root / "pkg/leaf.py"
        leaf.write_text(
            "def f(x: int) -> int:\n    return x - 1  # planted bug\n", encoding="utf-8"
        )
        selected, full = _selected(root)
        check(
            "leaf bug selects its importers",
            ["tests/test_leaf.py", "tests/test_mid.py"],
            sorted(selected),
        )
        # The planted fault's answer: the selection cut to the files that
        # import pkg.leaf themselves.
        planted: list[PlantedFault] = [
            judge(
                "a selector that follows only direct imports "
                "(tests/test_mid.py reaches pkg/leaf.py through pkg/mid.py)",
                expected="tests/test_leaf.py, tests/test_mid.py",
                real=", ".join(sorted(selected)),
                planted=", ".join(sorted(t for t in selected if "pkg.leaf" in FILES.get(t, ""))),
            )
        ]
        failing = failing_test_files(root)
        check("every failing test file is selected", sorted(failing), sorted(failing & selected))
        check("the planted bug fails something", True, bool(failing))
        _restore(root)

        (root / "tests/sub/conftest.py").write_text(FILES["tests/sub/conftest.py"] + "\n# edit\n")
        selected, full = _selected(root)
        check("conftest selects its subtree", ["tests/sub/test_sub.py"], sorted(selected))
        _restore(root)

        (root / "pyproject.toml").write_text(FILES["pyproject.toml"] + "\n# edit\n")
        selected, full = _selected(root)
        check("pyproject.toml selects the full set", True, full and len(selected) == 4)
        _restore(root)

        (root / "README.md").write_text("# planted, documented\n")
        selected, full = _selected(root)
        check("a README change selects nothing", [], sorted(selected))
    announce("affected", planted)
    return {
        "passed": all(c["passed"] for c in checks) and all(p["caught"] for p in planted),
        "checks": checks,
        "planted": planted,
    }
