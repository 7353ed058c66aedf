"""tox and nox commands that print are not test runs; a nox session is one
when its noxfile says it runs tests; `-k 'not X'` is a filter (the held-out
corpus of real CI commands)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from lanes.governor.classify.classifier import classify

if TYPE_CHECKING:
    from pathlib import Path

NOXFILE = """\
import nox

nox.options.sessions = ["check"]


def _suite(session):
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session
def check(session):
    _suite(session)


@nox.session(name="unit-tests")
def unit(session):
    session.run("pytest", "tests/unit")


@nox.session
def docs(session):
    session.run("sphinx-build", "docs", "build")
"""


@pytest.mark.parametrize(
    "command",
    [
        "tox --version",
        "tox -av",
        "tox -l",
        "tox --help",
        "tox list",
        "tox -lv",
        "nox --list",
        "nox -l",
        "nox --help",
        "nox -s tests --list",
    ],
)
def test_commands_that_only_print_are_no_test_runs(command: str) -> None:
    assert classify(command).scope == "none"


@pytest.mark.parametrize(
    ("command", "scope"),
    [("tox", "full"), ("tox -e py311", "full"), ("tox -e py311 -- tests/x.py", "filtered")],
)
def test_tox_still_runs_the_suite(command: str, scope: str) -> None:
    assert classify(command).scope == scope


@pytest.mark.parametrize(
    ("command", "scope"),
    [
        ("nox -s unit-tests", "full"),  # the noxfile's session runs pytest
        ("nox --session=unit-tests-3.12", "full"),  # a parametrisation of it
        ("nox -s check", "full"),  # through a helper of the noxfile
        ("nox", "full"),  # the default sessions: check
        ("nox -s docs", "none"),
        ("nox -s tests", "full"),  # a test_commands form, whatever the noxfile says
        ("nox -s unit-tests -- tests/unit/test_a.py", "filtered"),
    ],
)
def test_a_nox_session_is_a_test_run_when_the_noxfile_says_so(
    tmp_path: Path, command: str, scope: str
) -> None:
    (tmp_path / "noxfile.py").write_text(NOXFILE, encoding="utf-8")
    assert classify(command, tmp_path).scope == scope


def test_without_a_readable_noxfile_only_the_forms_count(tmp_path: Path) -> None:
    (tmp_path / "noxfile.py").write_text("def (:\n", encoding="utf-8")
    assert classify("nox -s unit-tests", tmp_path).scope == "none"
    assert classify("nox -s tests", tmp_path).scope == "full"


@pytest.mark.parametrize("expression", ["not test_x", "not slow and not db", "a or not b"])
def test_a_keyword_expression_with_words_is_a_filter(expression: str) -> None:
    assert classify(f"pytest -k '{expression}'").scope == "filtered"


def test_an_empty_keyword_expression_is_no_filter() -> None:
    assert classify("pytest -k ''").scope == "full"
