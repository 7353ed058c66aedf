"""Scratch projects for the ratchet's acceptance tests.

Timing margins: every planted duration sits at least 3× away from the
boundary it must not cross (budget 0.02 s, fail_factor 9 => the band is
0.02-0.18 s): a fast test takes microseconds (budget / 3 = 6.7 ms), the band
test sleeps 0.06 s (3× the budget, 3× under the limit) and the slow one 0.6 s
(3.3× the limit). A loaded machine can stretch a sleep, never shorten it: the
band test tolerates 120 ms of stretch, the fast one 20 ms of stall.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

BUDGET = 0.02
FAIL_FACTOR = 9
BAND_SLEEP = 0.06
SLOW_SLEEP = 0.6

# The arguments of an in-process ratchet run (pytester.runpytest). An
# in-process run that names an already-imported plugin gets pytest's "cannot be
# rewritten" warning, or not, depending on which tests ran before in this
# worker: it is ignored so outcome counts do not depend on test order.
IN_PROCESS_RATCHET = (
    "-p",
    "no:cacheprovider",
    "-W",
    "ignore::pytest.PytestAssertRewriteWarning",
    "-p",
    "lanes.slow",
    "--slow-ratchet",
)

PYPROJECT = f"""
[tool.pytest.ini_options]
markers = ["integration: slow tier"]

[tool.lanes.slow]
{{enabled}}
fail_factor = {FAIL_FACTOR}
# One sample per test: the planted durations sit 3x from every boundary, and
# re-timing (two child pytest runs per offending run) is tested on its own.
confirm = 0

[tool.lanes.slow.tiers.unit]
budget = {BUDGET}

[tool.lanes.slow.tiers.integration]
budget = 5.0
markers = ["integration"]
paths = ["tests/integration/**"]
"""

THREE_TESTS = f"""
import time

def test_fast():
    pass

def test_band():
    time.sleep({BAND_SLEEP})

def test_slow():
    time.sleep({SLOW_SLEEP})
"""
# The node ids of THREE_TESTS, planted as tests/test_three.py.
FAST = "tests/test_three.py::test_fast"
BAND = "tests/test_three.py::test_band"
SLOW = "tests/test_three.py::test_slow"


# A controlled clock for the planted session. pytest measures every phase's
# duration with _pytest.timing.perf_counter (the seam its own suite drives
# with MockTiming); pointing it at a counter that only `takes(seconds)`
# advances makes each planted duration exact, whatever the machine's load —
# for tests whose point is an amount, not that a real sleep is measured.
# Wall-clock stamps (time()) stay real. Installed at configure and put back
# at unconfigure: pytester runs the session in this very process, whose own
# pytest must get its clock back.
CLOCK_CONFTEST = """
import _pytest.timing
import pytest

_now = [0.0]
_real = []


def pytest_configure(config):
    _real.append(_pytest.timing.perf_counter)
    _pytest.timing.perf_counter = lambda: _now[0]


def pytest_unconfigure(config):
    _pytest.timing.perf_counter = _real.pop()


@pytest.fixture
def takes():
    def advance(seconds):
        _now[0] += seconds
    return advance
"""

# THREE_TESTS on the controlled clock: the same durations, exactly.
THREE_TESTS_CLOCKED = f"""
def test_fast():
    pass

def test_band(takes):
    takes({BAND_SLEEP})

def test_slow(takes):
    takes({SLOW_SLEEP})
"""


def make_project(pytester: pytest.Pytester, *, enabled: str = "", clocked: bool = False) -> None:
    """A project with the three planted tests in tests/test_three.py.

    ``clocked``: on the controlled clock (:data:`CLOCK_CONFTEST`), so the fast
    test takes exactly 0 s and the others exactly their planted time.
    """
    pytester.makepyprojecttoml(PYPROJECT.replace("{enabled}", enabled))
    tests = pytester.mkdir("tests")
    if clocked:
        pytester.path.joinpath("conftest.py").write_text(CLOCK_CONFTEST)
    tests.joinpath("test_three.py").write_text(THREE_TESTS_CLOCKED if clocked else THREE_TESTS)


def write_pins(pytester: pytest.Pytester, *pins: dict[str, Any]) -> Path:
    path = pytester.path / "baselines" / "slow-tests.json"
    path.parent.mkdir(exist_ok=True)
    entries = [
        {
            "tier": "unit",
            "reason": "sleeps on purpose",
            "tracking": "#1",
            "added": "2026-01-01",
            **p,
        }
        for p in pins
    ]
    path.write_text(json.dumps({"format": "lanekit.slow-pins", "version": 1, "pins": entries}))
    return path


def verdicts(data: dict[str, Any]) -> dict[str, list[str]]:
    """The verdict-bearing part of a result: what two runs must agree on."""
    return {
        "offenders": sorted(o["nodeid"] for o in data["offenders"]),
        "band": sorted(b["nodeid"] for b in data["band"]),
        "pins": sorted(f"{p['nodeid']}={p['state']}" for p in data["pins"]),
        "tiers": sorted(f"{t['nodeid']}={t['tier']}" for t in data["tests"]),
    }


# A planted suite where whichever test runs first in a process pays a warm-up
# (0.6 s), as a test that imports a heavy module or fills a cache does (and
# the first test of a confirmation child); both are slow in the suite's own run.
FIRST_PAYS = """
import pathlib, time

_ran = []

def _pace(name):
    counter = pathlib.Path(__file__).with_name(name + ".runs")
    run = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(run + 1))
    if run == 0 or not _ran:
        time.sleep(0.6)
    _ran.append(name)

def test_a():
    _pace("a")

def test_b():
    _pace("b")
"""
