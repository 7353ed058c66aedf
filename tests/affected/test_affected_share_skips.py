"""A skipped or xfailed test is vouched for by the map; a failing one never is.

One real recording (``lanes affected --record``) of a project whose package
``__init__`` imports its module, so the static graph selects every test for
any change and only the map narrows. A test that skipped (or xfailed) while
recording stopped where the recording saw it stop: unless a change reaches
the code it ran up to there, it skips again and fails no run, so it is not
run beside every selection of its file. A test that failed in any phase,
including one that skipped and then errored in teardown, fails the run again
whatever changed: it runs beside every selection that reaches its file.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from lanes.affected.testmap import read_map
from lanes.cli import main
from tests.support.git import git, make_repo

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

MOD = "def f() -> int:\n    return 1\n\n\ndef g() -> int:\n    return 2\n\n\ndef h() -> int:\n    return 3\n"

TESTS = """import pytest

from pkg import mod


def test_f() -> None:
    assert mod.f() == 1


def test_skips_after_g() -> None:
    mod.g()
    pytest.skip("skipped after g ran")


@pytest.mark.xfail(reason="known", strict=False)
def test_xfails() -> None:
    assert mod.g() == 0


def test_fails() -> None:
    assert mod.h() == 0


@pytest.fixture
def breaks_in_teardown() -> object:
    yield
    raise RuntimeError("teardown breaks")


def test_skips_then_teardown_fails(breaks_in_teardown: object) -> None:
    pytest.skip("and then its teardown fails")
"""

FILES = {
    "pyproject.toml": '[project]\nname = "sk"\nversion = "0"\n',
    ".gitignore": "envelopes/\n__pycache__/\n",
    "pkg/__init__.py": "from pkg import mod\n",
    "pkg/mod.py": MOD,
    "tests/__init__.py": "",
    "tests/test_a.py": TESTS,
}
FILE = "tests/test_a.py"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("skips")
    make_repo(root, FILES, "base")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        assert main(["affected", "--record"]) == 0
        yield root


def _selected(
    root: Path, change: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> list[tuple[str, str]]:
    """(test id, the reason's detail) of the tests of ``FILE`` the plan selects for ``change``."""
    capsys.readouterr()
    mod = root / "pkg/mod.py"
    mod.write_text(MOD.replace(*change))
    try:
        assert main(["affected", "--json"]) == 0
        plan: dict[str, Any] = json.loads(capsys.readouterr().out)
    finally:
        git(root, "checkout", "--", "pkg/mod.py")
    (entry,) = (t for t in plan["tests"] if t["file"] == FILE)
    return sorted((n["id"], n["reasons"][0]["detail"]) for n in entry["nodes"])


@pytest.mark.integration
def test_only_failures_are_unvouched(recorded: Path) -> None:
    test_map = read_map(recorded / "envelopes/affected-map.json")
    assert test_map is not None
    assert test_map.unvouched_tests(FILE) == {
        f"{FILE}::test_fails": "it failed when the map was recorded",
        # Skipped in its call, then its teardown errored: a failure, not a skip.
        f"{FILE}::test_skips_then_teardown_fails": "it failed when the map was recorded",
    }


@pytest.mark.integration
def test_a_change_the_skipped_tests_never_ran_leaves_them_out(
    recorded: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(recorded)
    unvouched = "static, the map does not vouch: it failed when the map was recorded"
    # The failing test_f is selected by the map; the failures recorded run
    # beside it; the skip and the xfail, which never ran f, do not.
    assert _selected(recorded, ("return 1", "return 10"), capsys) == [
        (f"{FILE}::test_f", "executed pkg/mod.py::f"),
        (f"{FILE}::test_fails", unvouched),
        (f"{FILE}::test_skips_then_teardown_fails", unvouched),
    ]


@pytest.mark.integration
def test_a_change_to_what_ran_before_the_skip_selects_it(
    recorded: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(recorded)
    selected = dict(_selected(recorded, ("return 2", "return 0"), capsys))
    # g ran before the skip and inside the xfail: both may now behave otherwise.
    assert selected[f"{FILE}::test_skips_after_g"] == "executed pkg/mod.py::g"
    assert selected[f"{FILE}::test_xfails"] == "executed pkg/mod.py::g"
