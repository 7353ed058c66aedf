"""A change to lanekit's own code, in its own repository, is planned by the base commit's selector.

Each test builds a git repository holding a copy of the running ``lanes``
package and runs ``lanes affected`` from that copy (a child interpreter with
the copy first on ``sys.path``): the copy is the running lanekit, inside the
root it plans, exactly as on lanekit's own repository.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import lanes
from tests.support.git import commit_all, git, head, make_repo

# A test that exercises make_plan for real: a changed module selects its importer.
TEST_PLAN = """\
from pathlib import Path

from lanes.affected.changes import Changes
from lanes.affected.plan import Project, make_plan
from lanes.config import load_config


def test_a_changed_module_selects_its_importer(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("X = 1\\n")
    (tmp_path / "test_mod.py").write_text("import mod\\n")
    config = load_config(cwd=tmp_path)
    project = Project.scan(config, ["mod.py", "test_mod.py"])
    plan = make_plan(project, Changes("HEAD", None, {"mod.py": "modified"}))
    assert sorted(plan.tests) == ["test_mod.py"]
"""

FILES = {
    ".gitignore": "__pycache__/\nenvelopes/\n",
    "pyproject.toml": '[project]\nname = "selfcopy"\nversion = "0"\n\n'
    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n',
    "pkg/__init__.py": "",
    "pkg/other.py": "def h() -> str:\n    return 'other'\n",
    "tests/__init__.py": "",
    "tests/test_plan.py": TEST_PLAN,
    "tests/test_other.py": "from pkg.other import h\n\n\ndef test_h() -> None:\n    assert h() == 'other'\n",
}

# make_plan with its loop over the changed paths emptied: it selects nothing.
LOOP = "    for path, change in sorted(changes.paths.items()):\n"
EMPTIED = "    for path, change in sorted(changes.paths.items())[:0]:\n"

# The copy is the running lanekit: first on sys.path, checked before it plans.
RUN_COPY = """\
import os, sys
sys.path.insert(0, os.getcwd())
import lanes
if not lanes.__file__.startswith(os.path.join(os.getcwd(), "lanes")):
    sys.exit("the copy was not imported: lanes is " + lanes.__file__)
from lanes.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _copy_lanes(root: Path) -> None:
    """The running lanekit package, as files of ``root``."""
    shutil.copytree(
        Path(lanes.__file__).parent, root / "lanes", ignore=shutil.ignore_patterns("__pycache__")
    )


def _lanes(
    root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``lanes *args`` run by the copy in ``root``, isolated from the working directory's."""
    return subprocess.run(
        [sys.executable, "-I", "-c", RUN_COPY, *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )


def _plan(root: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    proc = _lanes(root, "affected", "--json", *args, env=env)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    assert isinstance(plan, dict)
    return plan


def _plant(root: Path) -> None:
    plan_py = root / "lanes/affected/plan.py"
    text = plan_py.read_text(encoding="utf-8")
    assert text.count(LOOP) == 1
    plan_py.write_text(text.replace(LOOP, EMPTIED), encoding="utf-8")


@pytest.fixture
def own_repo(tmp_path: Path) -> Path:
    """A repository whose running lanekit is its own ``lanes/``, committed as the base."""
    root = tmp_path / "own"
    root.mkdir()
    _copy_lanes(root)
    return make_repo(root, FILES, "base")


# Integration: it copies lanes/ into a repository and runs `lanes` in child
# processes (the base's selector in another), 4-6 s of wall time.
@pytest.mark.integration
def test_a_planted_make_plan_that_selects_nothing_is_planned_by_the_base(own_repo: Path) -> None:
    base = head(own_repo)
    _plant(own_repo)
    plan = _plan(own_repo)
    assert plan["full"] is False
    tests = {t["file"]: [r["rule"] for r in t["reasons"]] for t in plan["tests"]}
    # The base's selector sees the test that imports make_plan's module, and
    # only it: the changed selector would have selected nothing.
    assert tests == {"tests/test_plan.py": ["import graph"]}
    reason = plan["tests"][0]["reasons"][0]
    assert reason["changed"] == "lanes/affected/plan.py"
    assert reason["detail"].startswith("imports it: tests/test_plan.py -> ")
    assert plan["planned_by"].startswith(f"the base commit's selector ({base[:12]}): ")
    assert "lanekit's own code (lanes/)" in plan["planned_by"]
    text = _lanes(own_repo, "affected").stdout
    assert f"planned by the base commit's selector ({base[:12]})" in text


# Integration: it copies lanes/ into a repository and runs `lanes` in child
# processes (the base's selector in another), 4-6 s of wall time.
@pytest.mark.integration
def test_the_base_made_plan_runs_the_test_that_catches_the_plant(own_repo: Path) -> None:
    _plant(own_repo)
    git(own_repo, "commit", "-qam", "plant: make_plan selects nothing")
    run = _lanes(own_repo, "affected", "--run", "--base", "HEAD~1")
    # --run executes the current tree's tests with the base's plan: the
    # planted make_plan fails its own test, so the run fails.
    assert run.returncode == 1, run.stderr
    assert "tests/test_plan.py" in run.stderr
    envelope = json.loads((own_repo / "envelopes/affected.json").read_text(encoding="utf-8"))
    assert [r["exit_code"] for r in envelope["data"]["runs"]] == [1]
    assert envelope["data"]["plan"]["planned_by"]


def test_a_base_without_the_package_gives_the_full_set_with_the_reason(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "own", FILES, "base: no lanekit yet")
    _copy_lanes(root)
    plan = _plan(root)  # lanes/ is untracked: the base has no such package
    assert plan["full"] is True
    assert "planned_by" not in plan
    (reason,) = plan["full_reasons"]
    assert reason["rule"] == "full"
    assert reason["changed"].startswith("lanes/")
    assert "the base commit's selector could not plan it: git archive of lanes/" in reason["detail"]
    assert plan["counts"]["selected"] == plan["counts"]["total"] == 2


def test_a_base_whose_selector_fails_gives_the_full_set_with_the_reason(own_repo: Path) -> None:
    # The base's selector crashes on import; the working tree's is fine.
    cli = own_repo / "lanes/affected/_cli.py"
    good = cli.read_text(encoding="utf-8")
    cli.write_text(good + "\nraise SystemExit(7)\n", encoding="utf-8")
    commit_all(own_repo, "a base whose lanes affected exits 7")
    cli.write_text(good, encoding="utf-8")
    plan = _plan(own_repo)
    assert plan["full"] is True
    (reason,) = plan["full_reasons"]
    assert reason["changed"] == "lanes/affected/_cli.py"
    assert "could not plan it: its child exited 7" in reason["detail"]


def test_an_export_inside_the_root_is_refused_not_recursed_into(own_repo: Path) -> None:
    # The base's package exported inside the root would be the child's running
    # package in the root: it would delegate again, without end.
    (own_repo / "tmp").mkdir()
    (own_repo / "lanes/affected/plan.py").write_text(
        (own_repo / "lanes/affected/plan.py").read_text(encoding="utf-8") + "\n"
    )
    plan = _plan(own_repo, env={**os.environ, "TMPDIR": str(own_repo / "tmp")})
    assert plan["full"] is True
    (reason,) = plan["full_reasons"]
    assert "lies inside the project root; set TMPDIR outside it" in reason["detail"]


def test_a_users_lanes_affected_directory_is_an_ordinary_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from lanes.cli import main  # noqa: PLC0415  # the running lanekit, outside the project

    files = {
        **FILES,
        "lanes/__init__.py": "",
        "lanes/affected/__init__.py": "",
        "lanes/affected/x.py": "def f() -> int:\n    return 1\n",
        "tests/test_plan.py": "from lanes.affected.x import f\n\n\ndef test_f() -> None:\n"
        "    assert f() == 1\n",
    }
    root = make_repo(tmp_path / "user", files, "base")
    (root / "lanes/affected/x.py").write_text("def f() -> int:\n    return 2\n")
    monkeypatch.chdir(root)
    assert main(["affected", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["full"] is False
    assert "planned_by" not in plan
    assert [(t["file"], t["reasons"][0]["rule"]) for t in plan["tests"]] == [
        ("tests/test_plan.py", "import graph")
    ]
