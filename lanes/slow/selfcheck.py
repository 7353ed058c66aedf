"""``lanes slow run --self-check``: prove the ratchet can fail before trusting its pass.

A planted project with three tests — one fast, one in the band, one far past
``fail_factor`` × budget — runs under the real plugin in a child pytest. The
ratchet must fail the run naming only the slow test and report only the band
test; anything else means the lane's green verdicts mean nothing.

Margins: budget 0.02 s and fail_factor 20 put the band at 0.02-0.4 s. The
band test sleeps 0.06 s (3× the budget, 340 ms under the limit), the slow one
1.2 s (3× the limit). One sample decides (``confirm = 0``): load stretches a
sleep, never shrinks it, so those two can only move the safe way. (With
re-timing on, a loaded 2-core machine once re-timed a 0.6 s sleep at 141 ms —
wall clock minus more run-queue wait than the sleep can have had — and let the
slow test off as "unconfirmed"; re-timing has tests of its own.) The fast
test does nothing, but on a loaded machine pytest's own work around it can
stall past 0.02 s: it sits in a tier of its own (marker ``roomy``, budget
5 s), where only a 5 s stall could put it in the band.

It then plants a wrong-but-plausible fault in the ratchet's own logic
(:mod:`lanes.payloads.planted`): partial marking that forgets a run stopped
early. A second planted project, whose first test fails, runs with ``-x``
twice — under the real ratchet, which must mark the run partial ("stopped
early"), and under the planted fault, which must not — or the self-check fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from lanes._planted import announce, judge

if TYPE_CHECKING:
    from lanes.payloads.planted import PlantedFault
    from lanes.payloads.slow import SlowSelfCheck, SlowSelfCheckOutcome

__all__ = ["EXPECTED", "run_self_check"]

_PYPROJECT: Final = """\
[tool.pytest.ini_options]
markers = ["roomy: the fast test's tier, far from any stall"]

[tool.lanes.slow]
fail_factor = 20
confirm = 0

[tool.lanes.slow.tiers.unit]
budget = 0.02

[tool.lanes.slow.tiers.roomy]
budget = 5.0
markers = ["roomy"]
"""

_TESTS: Final = """\
import time

import pytest


@pytest.mark.roomy
def test_fast():
    pass


def test_band():
    time.sleep(0.06)


def test_slow():
    time.sleep(1.2)
"""

EXPECTED: Final[SlowSelfCheckOutcome] = {
    "pytest_exit": 1,
    "offenders": ["test_planted.py::test_slow"],
    "band": ["test_planted.py::test_band"],
}

# The early-stop project: the first test fails, so -x leaves the second unrun.
_STOPPED_TESTS: Final = """\
def test_fails_first():
    assert 1 == 2


def test_never_reached():
    pass
"""

# The planted fault, as a plugin loaded before the ratchet judges the run:
# partial marking that drops the early-stop reason. The ratchet's session
# module calls partial_reasons through its own module globals, so both names
# are replaced.
_FORGETS_EARLY_STOPS: Final = """\
import lanes.slow.selection
import lanes.slow.session

_real = lanes.slow.selection.partial_reasons


def _forgets_early_stops(config, session, deselected):
    reasons = _real(config, session, deselected)
    return [reason for reason in reasons if not reason.startswith("stopped early")]


lanes.slow.selection.partial_reasons = _forgets_early_stops
lanes.slow.session.partial_reasons = _forgets_early_stops
"""
_PLANT_MODULE: Final = "lanes_planted_forgets_early_stops"


def _run_planted(root: Path, args: list[str], env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """A child pytest under the ratchet in ``root``; its exit status and ``--slow-json`` data."""
    out = root / "result.json"
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
        "-p", "lanes.slow", "--slow-json", str(out), *args,
    ]  # fmt: skip
    proc = subprocess.run(command, cwd=root, env=env, capture_output=True, check=False)
    try:
        data = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    return proc.returncode, data if isinstance(data, dict) else {}


def _partial(data: dict[str, Any]) -> str:
    """How a run's data marks it, in the words the planted fault is judged by."""
    if "partial" not in data:
        return "no ratchet result"
    if not data["partial"]:
        return "not partial"
    stops = [r for r in data.get("partial_reasons", []) if str(r).startswith("stopped early")]
    return "partial: stopped early" if stops else "partial, but not for stopping early"


def _planted_early_stop(env: dict[str, str]) -> PlantedFault:
    with tempfile.TemporaryDirectory(prefix="lanes-slow-self-check-stop-") as tmp:
        root = Path(tmp)
        root.joinpath("pyproject.toml").write_text(_PYPROJECT, encoding="utf-8")
        root.joinpath("test_stopped.py").write_text(_STOPPED_TESTS, encoding="utf-8")
        root.joinpath(f"{_PLANT_MODULE}.py").write_text(_FORGETS_EARLY_STOPS, encoding="utf-8")
        _, real = _run_planted(root, ["-x"], env)
        path = os.pathsep.join(filter(None, [tmp, env.get("PYTHONPATH")]))
        planted_env = {**env, "PYTHONPATH": path}
        _, planted = _run_planted(root, ["-p", _PLANT_MODULE, "-x"], planted_env)
    return judge(
        "partial marking that forgets a run stopped early by -x / --maxfail",
        expected="partial: stopped early",
        real=_partial(real),
        planted=_partial(planted),
    )


def run_self_check() -> SlowSelfCheck:
    """Run the planted projects; ``{passed, expected, observed, planted}`` for the envelope."""
    # Autoload off: the planted run must not depend on (or pay for) whatever
    # other plugins this environment has; the ratchet is loaded by name.
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    with tempfile.TemporaryDirectory(prefix="lanes-slow-self-check-") as tmp:
        root = Path(tmp)
        root.joinpath("pyproject.toml").write_text(_PYPROJECT, encoding="utf-8")
        root.joinpath("test_planted.py").write_text(_TESTS, encoding="utf-8")
        exit_code, data = _run_planted(root, ["test_planted.py"], env)
    observed: SlowSelfCheckOutcome = {
        "pytest_exit": exit_code,
        "offenders": sorted(o["nodeid"] for o in data.get("offenders", [])),
        # Reported without failing: in the band, or stretched past the limit by
        # load and then found under it when re-timed (unconfirmed).
        "band": sorted(b["nodeid"] for b in [*data.get("band", []), *data.get("unconfirmed", [])]),
    }
    planted = [_planted_early_stop(env)]
    announce("slow", planted)
    return {
        "passed": observed == EXPECTED and all(p["caught"] for p in planted),
        "expected": EXPECTED.copy(),
        "observed": observed,
        "planted": planted,
    }
