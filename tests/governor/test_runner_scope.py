"""How much of a suite a collection runs, from plain values (no pytest)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanes.governor.runner.scope import Collected, SuiteSpec, judge, suite_files

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

SUITE = SuiteSpec("unit", ["/p/tests"])
FILES = {f"/p/tests/test_{i}.py" for i in range(20)}


def _files(walks: list[int]) -> Callable[[Sequence[str], int], set[str]]:
    """A stand-in for suite_files that records each walk's limit."""

    def find(paths: Sequence[str], limit: int) -> set[str]:
        assert list(paths) == ["/p/tests"]
        walks.append(limit)
        return FILES

    return find


def test_a_whole_collection_is_measured_in_items() -> None:
    collected = Collected(
        selected=[f"/p/tests/test_{i}.py" for i in range(19)],
        deselected=["/p/tests/test_19.py"],
        args=["/p/tests"],
        keyword="not test_x",
    )
    walks: list[int] = []
    scope = judge(SUITE, collected, _files(walks), share_percent=90, min_files=3)
    assert (scope.measure, round(scope.share, 2), scope.whole) == ("items", 0.95, False)
    assert scope.sweep(90, 3)
    assert walks == []  # no walk: the items tell


def test_a_partial_collection_is_measured_in_files_and_walks_only_as_far_as_needed() -> None:
    selected = [f"/p/tests/test_{i}.py" for i in range(4)]
    collected = Collected(selected=selected, deselected=[], args=selected)
    walks: list[int] = []
    scope = judge(SUITE, collected, _files(walks), share_percent=90, min_files=3)
    assert (scope.measure, scope.files_run, scope.files_total) == ("files", 4, 20)
    assert not scope.sweep(90, 3)
    assert walks == [4]  # past 4 files found, 4 run cannot be 90 %


def test_fewer_files_than_sweep_min_paths_are_never_walked() -> None:
    collected = Collected(
        selected=["/p/tests/test_0.py"], deselected=[], args=["/p/tests/test_0.py"]
    )
    walks: list[int] = []
    scope = judge(SUITE, collected, _files(walks), share_percent=90, min_files=3)
    assert not scope.sweep(90, 3)
    assert walks == []


def test_suite_files_follows_pytests_patterns_and_skips(tmp_path: Path) -> None:
    for name in ("tests/test_a.py", "tests/b_test.py", "tests/helper.py", "tests/.hidden/test_c.py",
                 "tests/venv/test_d.py", "tests/env/test_e.py"):  # fmt: skip
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "tests" / "env" / "pyvenv.cfg").write_text("")
    found = suite_files([str(tmp_path / "tests")], ["test_*.py", "*_test.py"], [".*", "venv"])
    assert {p.rsplit("/", 1)[1] for p in found} == {"test_a.py", "b_test.py"}


def test_an_ignore_narrows_only_the_suites_it_touches() -> None:
    # `addopts = --ignore=setup.py`, common in real projects, leaves tests/
    # whole; an ignore inside the suite (or of the suite's root) does not.
    selected = sorted(FILES)
    for ignored, whole in (
        (["/p/setup.py", "/p/.tox"], True),
        (["/p/tests/test_3.py"], False),
        (["/p"], False),
    ):
        collected = Collected(selected=selected, deselected=[], args=["/p"], ignored=ignored)
        scope = judge(SUITE, collected, _files([]), share_percent=90, min_files=3)
        assert scope.whole is whole, (ignored, scope)
