"""Real mutmut on a planted project: shards agree with one run, and a broken test shows up in check."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from lanes.mutation.merge import merge_shards, registry_paths
from lanes.mutation.selfcheck import plant, run_planted

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        __import__("importlib.util").util.find_spec("mutmut") is None, reason="needs mutmut"
    ),
]

# Kills the price mutants, lets two of label's survive.
MIXED_TESTS = """\
from pkg.planted import label, price


def test_price():
    assert price(3, 3) == 9
    assert price(10, 2) == 20
    assert price(11, 2) == 17


def test_label():
    assert label(2) == "2 items"
"""


# The planted tests use no Hypothesis, and its pytest plugin imports the whole
# package for each session's terminal summary (~0.3 s of CPU per pytest process).
NO_HYPOTHESIS = '\n[tool.pytest.ini_options]\naddopts = "-p no:hypothesispytest"\n'


@pytest.fixture(autouse=True)
def _one_group(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_RUN_ID", raising=False)
    monkeypatch.setenv("LANES_GROUP_ID", "integration-sweep")


def test_sharded_and_unsharded_give_the_same_statuses(tmp_path: Path) -> None:
    config = plant(tmp_path / "project", MIXED_TESTS)
    with (tmp_path / "project" / "pyproject.toml").open("a", encoding="utf-8") as pyproject:
        pyproject.write(NO_HYPOTHESIS)
    whole_code, whole = run_planted(config, "1/1", tmp_path / "whole")
    shard_runs = [run_planted(config, f"{i}/2", tmp_path / "sharded") for i in (1, 2)]
    assert [whole_code, *(code for code, _ in shard_runs)] == [0, 0, 0]
    one = merge_shards([whole], expect_shards=1, registry=registry_paths(config))
    two = merge_shards(
        [path for _, path in shard_runs], expect_shards=2, registry=registry_paths(config)
    )
    assert one.problems == two.problems == []

    def statuses(merged: object) -> dict[str, str]:
        module = merged.modules["planted"]  # type: ignore[attr-defined]
        return {m.key: m.status.value for m in module.mutants}

    assert statuses(one) == statuses(two)
    assert len(statuses(one)) == 10
    assert sorted(set(statuses(one).values())) == ["killed", "survived"]
    # The user's tree stays clean: mutmut ran in private copies.
    assert not (tmp_path / "project" / "mutants").exists()


def _lanes(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "lanes",
            "mutation",
            *args,
            "--config",
            str(project / "pyproject.toml"),
        ],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_broken_test_makes_check_name_the_survivor_with_its_diff(tmp_path: Path) -> None:
    project = tmp_path / "project"
    plant(project)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "planted"\nversion = "0"\n\n'
        "[tool.lanes.mutation]\nrequired_stable_runs = 0\n\n"
        '[tool.lanes.mutation.modules.planted]\npaths = ["pkg/planted.py"]\n'
        'tests = ["tests/test_planted.py"]\n' + NO_HYPOTHESIS,
        encoding="utf-8",
    )
    for args in (("run",), ("merge", "--expect-shards", "1"), ("check",), ("baseline",)):
        done = _lanes(project, *args)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    baseline = json.loads((project / "baselines" / "mutation.json").read_text(encoding="utf-8"))
    assert baseline["modules"]["planted"]["score"] == 1.0

    tests = project / "tests" / "test_planted.py"
    tests.write_text(
        tests.read_text(encoding="utf-8").replace('    assert label(1) == "1 item"\n', ""),
        encoding="utf-8",
    )
    for args in (("run",), ("merge", "--expect-shards", "1")):
        assert _lanes(project, *args).returncode == 0
    check = _lanes(project, "check")
    assert check.returncode == 1, check.stderr
    assert "planted: regression" in check.stdout
    assert (
        "regression: killed in the baseline, survives now: pkg/planted.py:9 in label"
        in check.stdout
    )
    # Without `label(1) == "1 item"` nothing checks the singular's text.
    assert '-        return "1 item"\n    +        return "XX1 itemXX"' in check.stdout
    assert "tests/test_planted.py::test_label" in check.stdout
    envelope = json.loads((project / "envelopes" / "mutation.json").read_text(encoding="utf-8"))
    assert (envelope["result"], envelope["stage"]) == ("fail", "complete")
    report = json.loads(
        (project / "envelopes" / "mutation" / "mutation.json").read_text(encoding="utf-8")
    )
    statuses = [m["status"] for m in report["files"]["pkg/planted.py"]["mutants"]]
    assert "Survived" in statuses
