"""What the governor's plugin makes an agent's pytest pay: git runs only when
the run may be a whole suite.

The tree digest (two ``git`` processes over the whole work tree) is what the
dedup and the record key on, and only a whole configured suite is deduplicated
or recorded. A focused run — one file, a node id, ``-k`` — must not start git
at all: on a 5,000-file repository that was most of the plugin's cost in an
agent's every pytest run. The runs here are real pytest processes with a
``git`` on PATH that logs each start and then runs the real git.
"""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

import pytest

from lanes.governor.runner.exits import RunnerExit
from tests.governor.runner_helpers import REASON, clear_agent, ledger, write_project
from tests.support.git import commit_all

if TYPE_CHECKING:
    from pathlib import Path

pytest_plugins = ["pytester"]


@pytest.fixture
def git_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``git`` first on PATH that appends its arguments to the returned file."""
    real = shutil.which("git")
    assert real is not None, "these tests need git"
    log = tmp_path / "git-starts.log"
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "git").write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n', encoding="utf-8"
    )
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    return log


@pytest.fixture
def agent(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    clear_agent(monkeypatch, tmp_path / "xdg")
    root = write_project(pytester.path)
    # pytester writes the subprocess's output files beside the project while
    # it runs: ignored, they leave the tree the run is recorded on unchanged.
    with (root / ".gitignore").open("a", encoding="utf-8") as handle:
        handle.write("/stdout\n/stderr\n/runpytest-*\n")
    commit_all(root)
    monkeypatch.setenv("CLAUDECODE", "1")
    return root


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """A pytest process as the agent's own: without this test's
    PYTEST_CURRENT_TEST, which would make the plugin take the run for a part
    of this test and stay inert."""
    os.environ.pop("PYTEST_CURRENT_TEST", None)
    return pytester.runpytest_subprocess(*args)


def _starts(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


@pytest.mark.parametrize(
    "args",
    [
        ("tests/unit/test_unit0.py",),
        ("tests/unit/test_unit0.py::test_0_1",),
        ("tests/unit", "-k", "test_0"),
        ("tests/integ/test_integ1.py", "tests/unit/test_unit2.py"),
    ],
    ids=["one-file", "node-id", "keyword", "two-files"],
)
def test_a_focused_run_starts_no_git(
    pytester: pytest.Pytester, agent: Path, git_log: Path, args: tuple[str, ...]
) -> None:
    result = _run(pytester, *args)
    assert result.ret == 0, result.stdout.str()
    assert _starts(git_log) == []
    assert ledger(agent) == {}


def test_a_whole_suite_pays_for_the_tree_and_dedup_still_holds(
    pytester: pytest.Pytester, agent: Path, git_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANES_FULL_SWEEP_OK", "1")
    monkeypatch.setenv("LANES_OVERRIDE_REASON", REASON)
    first = _run(pytester, "tests/unit")
    assert first.ret == 0, first.stdout.str()
    assert ledger(agent)["unit"]["status"] == "PASS"
    # One tree state before the run and one after it (the record checks the
    # tree did not change meanwhile): git's two plumbing calls each time,
    # started together (so logged in either order).
    starts = _starts(git_log)
    assert sorted(line.split()[2] for line in starts) == ["diff-index"] * 2 + ["ls-files"] * 2
    second = _run(pytester, "tests/unit")
    assert second.ret == RunnerExit.DEDUP, second.stdout.str()
    second.stdout.fnmatch_lines(["*unit green * ago by claude on this exact tree*"])


def test_the_governor_loads_past_the_assertion_rewriter_and_tests_are_still_rewritten(
    pytester: pytest.Pytester, agent: Path
) -> None:
    """pytest rewrites every package of a plugin's distribution; the
    governor's modules are imported past that hook (half the decision's
    cost), which is back in place for the tests themselves."""
    # A regular install (a user's, the bench's) has ``lanes`` marked for
    # rewriting by its entry points; this suite's editable one does not, so
    # the project marks it as pytest would.
    (agent / "conftest.py").write_text(
        "def pytest_addhooks(pluginmanager):\n"
        "    pluginmanager.rewrite_hook.mark_rewrite('lanes')\n",
        encoding="utf-8",
    )
    (agent / "tests" / "unit" / "test_loader.py").write_text(
        "def test_loader():\n"
        "    import lanes.governor.runner.session as session\n"
        "    value = 1\n"
        "    assert value == 2, type(session.__loader__).__name__\n",
        encoding="utf-8",
    )
    result = _run(pytester, "tests/unit/test_loader.py")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    # The governor's module came through Python's own loader, and the test
    # module was still rewritten: pytest explains the comparison.
    result.stdout.fnmatch_lines(["E * AssertionError: SourceFileLoader", "E * assert 1 == 2"])


# What only reading a suite's command loads: the shell classifier and the
# hook's suite resolution (the settings rows load just the runner names).
_CLASSIFIER_MODULES = ("lanes.governor.classify.classifier", "lanes.governor.policy.suites")


def test_a_warm_config_cache_decides_without_the_classifier(
    pytester: pytest.Pytester, agent: Path
) -> None:
    """The suites' shapes (paths, ``-m``, full) are cached with the config:
    on a warm cache the plugin judges the run without loading the shell
    classifier. The probe runs after the decision and lists what it loaded."""
    (agent / "tests" / "unit" / "test_probe.py").write_text(
        "import sys\n\n\n"
        "def test_probe():\n"
        "    assert 'lanes.governor.runner.session' in sys.modules  # governed\n"
        "    loaded = sorted(name for name in sys.modules if name.startswith('lanes.'))\n"
        "    with open('loaded.txt', 'w', encoding='utf-8') as handle:\n"
        "        handle.write('\\n'.join(loaded))\n",
        encoding="utf-8",
    )

    def loaded() -> set[str]:
        return set((agent / "loaded.txt").read_text(encoding="utf-8").splitlines())

    cold = _run(pytester, "tests/unit/test_probe.py")
    assert cold.ret == 0, cold.stdout.str()
    # The cold run read the suites' commands with the classifier (and cached them).
    assert set(_CLASSIFIER_MODULES) <= loaded()
    warm = _run(pytester, "tests/unit/test_probe.py")
    assert warm.ret == 0, warm.stdout.str()
    assert set(_CLASSIFIER_MODULES).isdisjoint(loaded()), sorted(loaded())
