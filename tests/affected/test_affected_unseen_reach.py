"""What one recorded run does not show of a test's reach.

Two ways a test's next run executes code its recorded run did not, both
found by ``lanes affected --recall`` on lanekit itself as missed failing
tests:

- a test that copies the package elsewhere (or installs it from the tree)
  and runs the copy runs the project's code under another path: the copy,
  byte for byte the project's file, is recorded as that file;
- a Hypothesis test draws new examples each run, so what it executed once
  is a sample: the map does not vouch for it, and the static graph selects it
  (unless it drew with a fixed seed: then the same code draws the same ones).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from lanes.affected.projectcode import ProjectCode
from lanes.cli import main
from tests.affected.recordings import executed, own_copy, record_once, recorded_map

if TYPE_CHECKING:
    from pathlib import Path

MOD = (
    "def f() -> int:\n    return 1\n\n\n"
    "def rare() -> str:\n    return 'rare'\n\n\n"
    "def kind(x: int) -> str:\n"
    # One integer of many: no recorded run draws it, a later one may. Built at
    # run time: Hypothesis tries the literals it finds in the project's code.
    "    return rare() if x == 3 ** 41 + 7 else 'plain'\n"
)

FILES = {
    "pyproject.toml": '[project]\nname = "reach"\nversion = "0"\n',
    ".gitignore": "envelopes/\n__pycache__/\n.hypothesis/\n",
    "pkg/__init__.py": "",
    "pkg/mod.py": MOD,
    "tests/__init__.py": "",
    # No import of pkg: only the copy's process runs its code.
    "tests/test_copy.py": "import os\nimport shutil\nimport subprocess\nimport sys\n"
    "from pathlib import Path\n\n\n"
    "def test_runs_a_copy(tmp_path: Path) -> None:\n"
    "    shutil.copytree(Path(__file__).parents[1] / 'pkg', tmp_path / 'pkg')\n"
    "    env = {**os.environ, 'PYTHONPATH': str(tmp_path)}\n"
    "    code = 'import pkg.mod; assert pkg.mod.f() == 1'\n"
    "    subprocess.run([sys.executable, '-c', code], check=True, env=env, cwd=tmp_path)\n",
    # Explicitly random: under CI (Hypothesis' `ci` profile) it would be derandomized.
    "tests/test_props.py": "from hypothesis import given, settings, strategies as st\n\n"
    "from pkg import mod\n\n\n"
    "@settings(derandomize=False)\n"
    "@given(st.integers())\n"
    "def test_kind(x: int) -> None:\n"
    "    assert mod.kind(x) in ('plain', 'rare')\n\n\n"
    "def test_plain() -> None:\n"
    "    assert mod.kind(0) == 'plain'\n",
    # Derandomized: the same examples every run, whatever the seed.
    "tests/test_fixed.py": "from hypothesis import given, settings, strategies as st\n\n"
    "from pkg import mod\n\n\n"
    "@settings(derandomize=True)\n"
    "@given(st.integers())\n"
    "def test_fixed(x: int) -> None:\n"
    "    assert mod.kind(x) in ('plain', 'rare')\n",
}


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("reach") / "project"
    assert "recorded 4 tests" in record_once(root, FILES)
    return root


@pytest.fixture
def recorded(recording: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return own_copy(recording, tmp_path, monkeypatch)


SEEDED = {
    **FILES,
    "pyproject.toml": FILES["pyproject.toml"] + "\n[tool.lanes.affected]\nhypothesis_seed = 7\n",
}


@pytest.fixture(scope="module")
def seeded_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("seeded") / "project"
    # Hypothesis' pytest plugin loaded: it is what takes the seed.
    out = record_once(root, SEEDED, addopts="")
    assert "2 Hypothesis tests drew with --hypothesis-seed=7 and are vouched for" in out
    return root


def _plan(capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """Test id -> the reason the plan selects it by, for every test it selects by id."""
    capsys.readouterr()
    assert main(["affected", "--json"]) == 0
    plan: dict[str, Any] = json.loads(capsys.readouterr().out)
    return {
        node["id"]: "; ".join(reason["detail"] for reason in node["reasons"])
        for test in plan["tests"]
        for node in test.get("nodes", ())
    }


@pytest.mark.integration
def test_a_copy_of_the_package_run_elsewhere_is_recorded_as_the_project_code(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Without the copy counted, the test executed nothing of the project and
    # the map vouched for it: a change to f selected nothing.
    assert ("pkg/mod.py", "f") in executed(
        recorded_map(recorded), "tests/test_copy.py::test_runs_a_copy"
    )
    (recorded / "pkg/mod.py").write_text(MOD.replace("return 1", "return 10"))
    plan = _plan(capsys)
    assert plan["tests/test_copy.py::test_runs_a_copy"] == "executed pkg/mod.py::f"
    assert "tests/test_props.py::test_plain" not in plan


@pytest.mark.integration
def test_a_hypothesis_test_is_selected_for_code_its_recorded_examples_missed(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    test_map = recorded_map(recorded)
    assert ("pkg/mod.py", "rare") not in executed(test_map, "tests/test_props.py::test_kind")
    # A derandomized test draws the same examples every run: vouched for.
    assert set(test_map.unvouched()) == {"tests/test_props.py"}
    (recorded / "pkg/mod.py").write_text(MOD.replace("return 'rare'", "return 'broken'"))
    plan = _plan(capsys)
    assert plan["tests/test_props.py::test_kind"] == (
        "static, the map does not vouch: a Hypothesis test: the examples it draws, "
        "and so the code it executes, change from run to run"
    )
    assert "tests/test_fixed.py::test_fixed" not in plan
    # A plain test of the same file stays vouched: it never called rare.
    assert "tests/test_props.py::test_plain" not in plan
    assert "tests/test_copy.py::test_runs_a_copy" not in plan


@pytest.mark.integration
def test_a_hypothesis_test_drawn_with_the_configured_seed_is_vouched_for_like_any_test(
    seeded_recording: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    recorded = own_copy(seeded_recording, tmp_path, monkeypatch)
    test_map = recorded_map(recorded)
    assert test_map.document["hypothesis_seed"] == "7"
    assert test_map.unvouched() == {}
    assert ("pkg/mod.py", "rare") not in executed(test_map, "tests/test_props.py::test_kind")
    (recorded / "pkg/mod.py").write_text(MOD.replace("return 'rare'", "return 'broken'"))
    capsys.readouterr()
    assert main(["affected", "--json"]) == 0
    plan: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert "vouched for: the same seed draws the same examples" in plan["map"]
    assert plan["tests"] == []
    # The premise, run for real: with the seed, the examples are those of the
    # recording, none reaches rare, and the test passes with the change.
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--hypothesis-seed=7"],
        cwd=recorded,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-2000:]
    # A change to what its examples executed selects it, by what it executed.
    (recorded / "pkg/mod.py").write_text(MOD.replace("else 'plain'", "else 'broken'"))
    assert _plan(capsys)["tests/test_props.py::test_kind"] == "executed pkg/mod.py::kind"


def test_only_a_byte_for_byte_copy_counts_as_the_project_code(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "src/pkg/sub").mkdir(parents=True)
    (root / "src/pkg/__init__.py").write_text("")
    (root / "src/pkg/sub/mod.py").write_text("X = 1\n")
    (root / "single.py").write_text("Y = 1\n")
    elsewhere = tmp_path / "venv/lib/python3/site-packages"
    shutil.copytree(root / "src/pkg", elsewhere / "pkg")
    shutil.copy(root / "single.py", elsewhere / "single.py")
    (elsewhere / "pkg/other.py").write_text("Z = 1\n")  # not in the project
    project = ProjectCode(str(root))
    assert project.code_path(str(root / "src/pkg/sub/mod.py")) == "src/pkg/sub/mod.py"
    assert project.code_path(str(elsewhere / "pkg/sub/mod.py")) == "src/pkg/sub/mod.py"
    assert project.code_path(str(elsewhere / "single.py")) == "single.py"
    assert project.code_path(str(elsewhere / "pkg/other.py")) is None
    # A copy that differs (built from another commit) is another program.
    (elsewhere / "pkg/sub/mod.py").write_text("X = 2\n")
    assert ProjectCode(str(root)).code_path(str(elsewhere / "pkg/sub/mod.py")) is None
