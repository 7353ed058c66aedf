"""``lanes retry run --self-check``: the policy must retry exactly what it allows.

Three planted projects run through the real policy (child pytest, the
recording plugin, pytest-timeout's own timer):

- a timeout in a **listed** file — the test waits 5 s under a 0.5 s
  pytest-timeout on its first attempt and passes on the next: retried once,
  and the lane passes;
- the **same** timeout in an **unlisted** file: refused (``unlisted-timeout``);
- an **assertion failure** in a listed file: refused (``not-a-timeout``).
"""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes.retry.lane import run_policy

if TYPE_CHECKING:
    from lanes.payloads.retry import RetrySelfCheck

__all__ = ["EXPECTED", "run_self_check"]

_TIMEOUT_TEST: Final = """\
import pathlib
import time

import pytest


@pytest.mark.timeout(0.5, method="signal")
def test_waits_on_a_spawned_process():
    flag = pathlib.Path(__file__).with_suffix(".attempted")
    if not flag.exists():
        flag.write_text("first attempt")
        time.sleep(5)  # the "contended" wait: pytest-timeout stops it at 0.5 s
"""

_ASSERTION_TEST: Final = """\
def test_plain_failure():
    assert 1 + 1 == 3
"""

EXPECTED: Final[dict[str, object]] = {
    "listed-timeout": {
        "retried": ["tests/test_spawn.py::test_waits_on_a_spawned_process"],
        "blockers": [],
        "passed": True,
    },
    "unlisted-timeout": {"retried": [], "blockers": ["unlisted-timeout"], "passed": False},
    "listed-assertion": {"retried": [], "blockers": ["not-a-timeout"], "passed": False},
}


def _plant(root: Path, filename: str, body: str) -> None:
    root.joinpath("pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    tests = root / "tests"
    tests.mkdir()
    tests.joinpath(filename).write_text(body, encoding="utf-8")


def run_self_check() -> RetrySelfCheck:
    """``{passed, expected, observed}`` for the envelope."""
    if importlib.util.find_spec("pytest_timeout") is None:
        return {
            "passed": False,
            "expected": EXPECTED,
            "observed": {"error": "pytest-timeout is not installed"},
        }
    plans = {
        "listed-timeout": ("test_spawn.py", _TIMEOUT_TEST),
        "unlisted-timeout": ("test_other.py", _TIMEOUT_TEST),
        "listed-assertion": ("test_spawn.py", _ASSERTION_TEST),
    }
    observed: dict[str, object] = {}
    for name, (filename, body) in plans.items():
        with tempfile.TemporaryDirectory(prefix=f"lanes-retry-self-check-{name}-") as tmp:
            root = Path(tmp)
            _plant(root, filename, body)
            args = ["-q", "-p", "no:cacheprovider", "tests"]
            result, passed = run_policy(root, args, ["tests/test_spawn.py"], quiet=True)
        observed[name] = {
            "retried": result["retried"],
            "blockers": sorted({b["kind"] for b in result["blockers"]}),
            "passed": passed,
        }
    return {"passed": observed == EXPECTED, "expected": EXPECTED, "observed": observed}
