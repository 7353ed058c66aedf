"""Real mutmut: a plan generates and maps once, its shards run only their own mutants, merged = one run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest

from lanes.mutation.selfcheck import PLANTED_MODULE

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        __import__("importlib.util").util.find_spec("mutmut") is None, reason="needs mutmut"
    ),
]

# The planted tests, recording every run's phase: mutmut names the phase in
# MUTANT_UNDER_TEST ("stats" while it maps the tests to the functions).
TESTS = """\
import os

from pkg.planted import label, price


def _record():
    with open({log!r}, "a", encoding="utf-8") as log:
        log.write(os.environ.get("MUTANT_UNDER_TEST", "") + "\\n")


def test_price():
    _record()
    assert price(3, 3) == 9
    assert price(10, 2) == 20
    assert price(11, 2) == 17


def test_label():
    _record()
    assert label(2) == "2 items"
"""


def _project(root: Path, log: Path, *, threshold: int) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "planted.py").write_text(PLANTED_MODULE, encoding="utf-8")
    (root / "tests" / "test_planted.py").write_text(TESTS.format(log=str(log)), encoding="utf-8")
    # The planted tests use no Hypothesis, and its pytest plugin imports the whole
    # package for each session's terminal summary (~0.3 s of CPU per pytest process).
    (root / "pyproject.toml").write_text(
        '[project]\nname = "planted"\nversion = "0"\n\n'
        '[tool.pytest.ini_options]\naddopts = "-p no:hypothesispytest"\n\n'
        f"[tool.lanes.mutation]\nrequired_stable_runs = 0\nshard_threshold = {threshold}\n\n"
        '[tool.lanes.mutation.modules.planted]\npaths = ["pkg/planted.py"]\n'
        'tests = ["tests/test_planted.py"]\nshards = 2\n',
        encoding="utf-8",
    )
    return root


def _lanes(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_RUN_ID"}
    env["LANES_GROUP_ID"] = "planned-sweep"
    return subprocess.run(
        [sys.executable, "-m", "lanes", "mutation", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def _ok(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = _lanes(project, *args)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


def _statuses(project: Path) -> dict[str, str]:
    merged = json.loads(
        (project / "envelopes" / "mutation" / "merged.json").read_text(encoding="utf-8")
    )
    mutants = merged["data"]["modules"]["planted"]["mutants"]
    return {m["key"]: m["status"] for m in mutants}


def _shards(directory: Path) -> list[dict[str, Any]]:
    return [
        json.loads(path.read_text(encoding="utf-8"))["data"]["shards"][0]
        for path in sorted(directory.glob("*.json"))
    ]


class Planned(NamedTuple):
    """A project (shard_threshold 1, two shards) and the plan made on it."""

    project: Path
    log: Path  # every run of the project's tests appends its phase here
    stdout: str  # what `lanes mutation plan` printed
    mapped: int  # the tests' runs while mutmut mapped them for the plan


# A plan is a real mutmut generate-and-map: made once per module; a test that
# changes the project or the plan works on its own copy.
@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> Planned:
    root = tmp_path_factory.mktemp("planned")
    log = root / "phases.log"
    project = _project(root / "project", log, threshold=1)
    stdout = _ok(project, "plan", "--output", "plan").stdout
    return Planned(project, log, stdout, log.read_text(encoding="utf-8").split().count("stats"))


def _copy(planned: Planned, tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(planned.project, project, symlinks=True)
    return project


def test_planned_shards_map_once_and_merge_to_the_unsharded_result(
    planned: Planned, tmp_path: Path
) -> None:
    project = _copy(planned, tmp_path)
    assert '{"module":"planted","shard":"1/2"},{"module":"planted","shard":"2/2"}' in planned.stdout
    assert planned.mapped == 2  # each test once, while mutmut mapped them
    planned.log.write_text("", encoding="utf-8")
    for index in (1, 2):
        _ok(project, "run", "--plan", "plan", "--shard", f"{index}/2", "--out", "shards")
    # The shards mapped nothing again: every "stats" run was the plan's.
    assert planned.log.read_text(encoding="utf-8").split().count("stats") == 0
    shards = _shards(project / "shards")
    assert [s["sharding"]["strategy"] for s in shards] == ["cost", "cost"]
    assert all("generate" not in s["phases_ms"] for s in shards)
    sizes = sorted(len(s["mutants"]) for s in shards)
    assert sum(sizes) == 10
    assert sizes[0] >= 4  # balanced, not 9/1

    merge = _ok(project, "merge", "--expect-shards", "2", "shards")
    assert "shards 1/2, 2/2" in merge.stdout
    sharded = _statuses(project)
    _ok(project, "run", "--out", "whole")
    _ok(project, "merge", "--expect-shards", "1", "whole")
    whole = _statuses(project)
    assert len(whole) == 10
    assert sorted(set(whole.values())) == ["killed", "survived"]
    assert sharded == whole
    # The user's tree stays clean: mutmut ran in private copies.
    assert not (project / "mutants").exists()


def test_a_module_below_the_threshold_is_one_shard_and_the_lane_says_so(tmp_path: Path) -> None:
    project = _project(tmp_path / "project", tmp_path / "phases.log", threshold=100)
    planned = _ok(project, "plan", "--output", "plan")
    assert '{"include":[{"module":"planted","shard":"1/1"}]}' in planned.stdout
    assert (
        "not sharded: 10 mutants, below shard_threshold 100 (the registry asks for 2 shards)"
        in planned.stdout
    )
    refused = _lanes(project, "run", "--plan", "plan", "--shard", "1/2")
    assert refused.returncode == 2, refused.stderr
    assert "module 'planted' runs in 1 shard(s) (not sharded: 10 mutants" in refused.stderr
    assert "--shard I/1" in refused.stderr
    matrix = _ok(project, "matrix", "--plan", "plan")
    assert json.loads(matrix.stdout) == {"include": [{"module": "planted", "shard": "1/1"}]}
    run = _ok(project, "run", "--plan", "plan", "--shard", "1/1", "--out", "shards")
    assert "planted: not sharded: 10 mutants" in run.stderr
    (shard,) = _shards(project / "shards")
    assert shard["sharding"]["strategy"] == "whole"
    assert len(shard["mutants"]) == 10

    # Without a plan, a hash shard of a small module does not split it either.
    for index in (1, 2):
        _ok(project, "run", "--shard", f"{index}/2", "--out", "hash")
    assert sorted(len(s["mutants"]) for s in _shards(project / "hash")) == [0, 10]
    assert _ok(project, "merge", "--expect-shards", "2", "hash").returncode == 0


def test_a_plan_of_another_tree_is_refused_naming_the_file(
    planned: Planned, tmp_path: Path
) -> None:
    project = _copy(planned, tmp_path)
    tests = project / "tests" / "test_planted.py"
    tests.write_text(tests.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    refused = _lanes(project, "run", "--plan", "plan", "--shard", "1/2", "--out", "shards")
    assert refused.returncode == 3, refused.stderr
    assert "not the tree the plan was made on: 1 changed: tests/test_planted.py" in refused.stderr
    assert "make the plan again" in refused.stderr
    envelope = json.loads(next((project / "shards").glob("*.json")).read_text(encoding="utf-8"))
    assert (envelope["stage"], envelope["error"]["type"]) == ("error", "PlanError")


def test_a_tampered_plan_file_is_refused(planned: Planned, tmp_path: Path) -> None:
    project = _copy(planned, tmp_path)
    (stats,) = (project / "plan").glob("*/mutants/mutmut-stats.json")
    stats.write_text(stats.read_text(encoding="utf-8").replace("test_label", "test_none"))
    refused = _lanes(project, "run", "--plan", "plan", "--shard", "2/2", "--out", "shards")
    assert refused.returncode == 3, refused.stderr
    assert "mutmut-stats.json' does not match its digest in plan.json" in refused.stderr


def test_tests_pytest_cannot_select_by_node_id_get_a_hint_not_a_shrug(tmp_path: Path) -> None:
    # A parametrize over a generator: only the first selection of the test
    # consumes it, so a shard naming two of its ids makes pytest exit 4.
    project = _project(tmp_path / "project", tmp_path / "phases.log", threshold=1)
    (project / "tests" / "test_planted.py").write_text(
        "import pytest\n\nfrom pkg.planted import label, price\n\n\n"
        "@pytest.mark.parametrize('n', (n for n in (3, 10, 11)))\n"
        "def test_price(n):\n    assert price(n, 2) == (n * 2 - 5 if n > 10 else n * 2)\n\n\n"
        "def test_label():\n    assert label(1) == '1 item'\n",
        encoding="utf-8",
    )
    _ok(project, "plan", "--output", "plan")
    runs = [
        _lanes(project, "run", "--plan", "plan", "--shard", f"{index}/2", "--out", "shards")
        for index in (1, 2)
    ]
    refused = [run for run in runs if run.returncode != 0]
    assert refused, [run.stderr for run in runs]
    assert all(run.returncode == 3 for run in refused)
    assert all("make every parametrize argument a list or tuple" in r.stderr for r in refused)
