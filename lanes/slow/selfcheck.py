"""``lanes slow run --self-check``: prove the ratchet can fail before trusting its pass.

A planted project with three tests — one fast, one in the band, one far past
``fail_factor`` × budget — runs under the real plugin in a child pytest. The
ratchet must fail the run naming only the slow test and report only the band
test; anything else means the lane's green verdicts mean nothing.

Margins: budget 0.02 s and fail_factor 9 put the band at 0.02-0.18 s. The
fast test does nothing (microseconds, against 0.0067 s = budget / 3), the band
test sleeps 0.06 s (3× the budget, 3× under the limit), the slow one 0.6 s
(3.3× the limit). Load stretches sleeps, never shrinks them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from lanes.payloads.slow import SlowSelfCheck, SlowSelfCheckOutcome

__all__ = ["EXPECTED", "run_self_check"]

_PYPROJECT: Final = """\
[tool.lanes.slow]
fail_factor = 9

[tool.lanes.slow.tiers.unit]
budget = 0.02
"""

_TESTS: Final = """\
import time


def test_fast():
    pass


def test_band():
    time.sleep(0.06)


def test_slow():
    time.sleep(0.6)
"""

EXPECTED: Final[SlowSelfCheckOutcome] = {
    "pytest_exit": 1,
    "offenders": ["test_planted.py::test_slow"],
    "band": ["test_planted.py::test_band"],
}


def run_self_check() -> SlowSelfCheck:
    """Run the planted project; ``{passed, expected, observed}`` for the envelope."""
    with tempfile.TemporaryDirectory(prefix="lanes-slow-self-check-") as tmp:
        root = Path(tmp)
        root.joinpath("pyproject.toml").write_text(_PYPROJECT, encoding="utf-8")
        root.joinpath("test_planted.py").write_text(_TESTS, encoding="utf-8")
        out = root / "result.json"
        # Autoload off: the planted run must not depend on (or pay for) whatever
        # other plugins this environment has; the ratchet is loaded by name.
        env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        command = [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
            "-p", "lanes.slow", "--slow-json", str(out), "test_planted.py",
        ]  # fmt: skip
        proc = subprocess.run(command, cwd=root, env=env, capture_output=True, check=False)
        try:
            data = json.loads(out.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
    observed: SlowSelfCheckOutcome = {
        "pytest_exit": proc.returncode,
        "offenders": sorted(o["nodeid"] for o in data.get("offenders", [])),
        # Reported without failing: in the band, or stretched past the limit by
        # load and then found under it when re-timed (unconfirmed).
        "band": sorted(b["nodeid"] for b in [*data.get("band", []), *data.get("unconfirmed", [])]),
    }
    return {"passed": observed == EXPECTED, "expected": EXPECTED.copy(), "observed": observed}
