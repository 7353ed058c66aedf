"""The whole-tree rule: a path selector naming the project's whole test root
is the full suite — pytest ``testpaths`` from each config file kind, else the
conventional roots."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.governor.classify.classifier import classify

if TYPE_CHECKING:
    from pathlib import Path


def _scope(command: str, root: Path | None = None) -> str:
    return classify(command, root).scope


@pytest.mark.parametrize(
    "command",
    [
        "pytest .",
        "pytest ./",
        "pytest tests",
        "pytest tests/",
        "pytest ./tests",
        "pytest ./tests/",
        "pytest test",
        "pytest testing/",
        "pytest -q tests -n auto",
        "python -m pytest tests/ --cov",
        "pytest tests tests/test_a.py",
        "python -m unittest discover -s tests",
        "python -m unittest discover tests",
        "python -m unittest discover -s .",
    ],
)
def test_conventional_roots_are_full_without_config(command: str, tmp_path: Path) -> None:
    assert _scope(command, tmp_path) == "full"
    assert _scope(command, None) == "full"


@pytest.mark.parametrize(
    "command",
    ["pytest tests/unit", "pytest src", "pytest tests/test_a.py", "pytest tests/a.py::t"],
)
def test_a_subtree_is_filtered(command: str, tmp_path: Path) -> None:
    assert _scope(command, tmp_path) == "filtered"


def test_a_configured_suite_is_not_a_root(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.lanes.suites.unit]\npaths = ["tests/unit"]\n', encoding="utf-8"
    )
    assert _scope("pytest tests/unit", tmp_path) == "filtered"
    assert _scope("pytest tests", tmp_path) == "full"


CONFIGS = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["src/tests", "integration"]\n',
    "pyproject.toml (pytest 9 table)": '[tool.pytest]\ntestpaths = ["src/tests", "integration"]\n',
    "pytest.ini": "[pytest]\ntestpaths =\n    src/tests\n    integration\n",
    ".pytest.ini": "[pytest]\ntestpaths = src/tests integration\n",
    "tox.ini": "[tox]\nenvlist = py\n\n[pytest]\ntestpaths = src/tests\n  integration\n",
    "setup.cfg": "[metadata]\nname = x\n\n[tool:pytest]\ntestpaths = src/tests integration\n",
}


@pytest.mark.parametrize("kind", sorted(CONFIGS))
def test_testpaths_from_each_config_kind(kind: str, tmp_path: Path) -> None:
    (tmp_path / kind.partition(" ")[0]).write_text(CONFIGS[kind], encoding="utf-8")
    assert _scope("pytest src/tests integration/", tmp_path) == "full"
    assert _scope("pytest ./integration ./src/tests/", tmp_path) == "full"
    assert _scope("pytest src integration", tmp_path) == "full"  # parents cover too
    assert _scope("pytest .", tmp_path) == "full"
    # One testpath of two is part of the suite; the conventional name is no root here.
    assert _scope("pytest src/tests", tmp_path) == "filtered"
    assert _scope("pytest tests", tmp_path) == "filtered"


def test_pytest_ini_wins_over_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = a\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntestpaths = ["b"]\n', encoding="utf-8"
    )
    assert _scope("pytest a", tmp_path) == "full"
    assert _scope("pytest b", tmp_path) == "filtered"


def test_an_empty_pytest_ini_means_the_conventional_roots(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntestpaths = ["b"]\n', encoding="utf-8"
    )
    assert _scope("pytest tests", tmp_path) == "full"


def test_tox_ini_without_a_pytest_section_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "tox.ini").write_text("[tox]\nenvlist = py\n", encoding="utf-8")
    (tmp_path / "setup.cfg").write_text("[tool:pytest]\ntestpaths = qa\n", encoding="utf-8")
    assert _scope("pytest qa", tmp_path) == "full"


@pytest.mark.parametrize(
    "text", ["[tool.pytest.ini_options\ntestpaths = [", "\x00\xff garbage", "[tool.pytest]\nx=1\n"]
)
def test_a_broken_config_falls_back_to_the_conventional_roots(text: str, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(f"# tool.pytest\n{text}", encoding="utf-8")
    assert _scope("pytest tests", tmp_path) == "full"
    assert _scope("pytest tests/unit", tmp_path) == "filtered"


def test_absolute_paths_under_the_root_are_relative(tmp_path: Path) -> None:
    assert _scope(f"pytest {tmp_path}/tests", tmp_path) == "full"
    assert _scope(f"pytest {tmp_path}", tmp_path) == "full"
    assert _scope(f"pytest {tmp_path}/tests/unit", tmp_path) == "filtered"


def test_root_may_be_a_string(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = qa\n", encoding="utf-8")
    assert classify("pytest qa", str(tmp_path)).scope == "full"


def test_whole_tree_with_a_name_filter_is_filtered(tmp_path: Path) -> None:
    (invocation,) = classify("pytest tests -k smoke", tmp_path).invocations
    assert invocation.scope == "filtered"
    assert invocation.paths == ()
    assert invocation.name_filters == ("smoke",)


def test_an_unusable_root_is_no_root() -> None:
    for root in (42, b"/tmp", "", object()):
        assert classify("pytest tests/unit", root).scope == "filtered"  # type: ignore[arg-type]  # junk on purpose
        assert classify("pytest tests", root).scope == "full"  # type: ignore[arg-type]  # junk on purpose


def test_inline_comments_in_ini_files_are_not_testpaths(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\ntestpaths = qa  # the suite\n    more ; and this\n", encoding="utf-8"
    )
    assert _scope("pytest qa more", tmp_path) == "full"
