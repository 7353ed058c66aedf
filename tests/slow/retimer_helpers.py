"""The planted offenders the re-timing tests share, in a scratch project on the controlled clock.

:func:`offenders_project` writes them as ``tests/test_offenders.py`` of a
pytester project with the controlled clock's conftest
(:data:`tests.slow.slow_helpers.CLOCK_CONFTEST`); each test notes its name in
``tests/test_offenders.order`` as it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.slow.slow_helpers import CLOCK_CONFTEST, PYPROJECT

if TYPE_CHECKING:
    import pytest


# Each test notes its name as it runs, and takes its planted time on the
# controlled clock: A and B 0.6 s (3x the 0.2 s limit), C 0.25 s (1.25x),
# S fails in its setup (no call phase: nothing to sample). F sleeps (real
# time: the stopwatch times shared fixtures on its own clock) 0.2 s, 0.1 s in
# a function-scoped fixture and 0.3 s in a module-scoped one (charged to no test).
OFFENDERS = """
import pathlib, time, pytest

ORDER = pathlib.Path(__file__).with_suffix(".order")

def _ran(name):
    with ORDER.open("a") as order:
        order.write(name + "\\n")

@pytest.fixture
def broken():
    raise RuntimeError("setup fails")

@pytest.fixture(scope="module")
def shared():
    time.sleep(0.3)

@pytest.fixture
def own():
    time.sleep(0.1)

def test_a(takes):
    _ran("a")
    takes(0.6)

def test_b(takes):
    _ran("b")
    takes(0.6)

def test_c(takes):
    _ran("c")
    takes(0.25)

def test_s(broken):
    _ran("s")

def test_f(shared, own):
    _ran("f")
    time.sleep(0.2)
"""
FILE = "tests/test_offenders.py"
A, B, C, S, F = (f"{FILE}::test_{name}" for name in "abcsf")


def offenders_project(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> pytest.Pytester:
    """A pytester project holding the offenders, on the controlled clock, no plugin autoloaded."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyprojecttoml(PYPROJECT.replace("{enabled}", ""))
    pytester.path.joinpath("conftest.py").write_text(CLOCK_CONFTEST)
    pytester.mkdir("tests").joinpath("test_offenders.py").write_text(OFFENDERS)
    return pytester
