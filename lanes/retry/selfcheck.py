"""``lanes retry run --self-check``: the policy must retry exactly what it allows.

Three planted projects run through the real policy (child pytest, the
recording plugin, pytest-timeout's own timer):

- a timeout in a **listed** file — the test waits 5 s under a 0.5 s
  pytest-timeout on its first attempt and passes on the next: retried once,
  and the lane passes;
- the **same** timeout in an **unlisted** file: refused (``unlisted-timeout``);
- an **assertion failure** in a listed file: refused (``not-a-timeout``).

It also plants a wrong-but-plausible fault in the policy itself
(:mod:`lanes.payloads.planted`): an interrupted run (pytest exit 2) judged like
a finished one, so its listed timeouts look retryable. A fourth planted
project times out in a listed file and is then interrupted; the real policy
must refuse it (``session-error``: the tests after the interrupt were never
judged) and the planted fault must allow it, or the self-check fails.
"""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Final

from lanes._planted import announce, judge
from lanes.retry.lane import attempt, run_policy
from lanes.retry.policy import Decision, decide

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from lanes.payloads.planted import PlantedFault
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

# A listed timeout, then the run is interrupted (Ctrl-C): pytest exits 2 with
# the timeout recorded and the rest of the suite never run.
_INTERRUPTED_TEST: Final = """\
import time

import pytest


@pytest.mark.timeout(0.5, method="signal")
def test_waits_on_a_spawned_process():
    time.sleep(5)


def test_interrupted_here():
    raise KeyboardInterrupt
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


def _finished_or_not(
    exit_code: int, record: Mapping[str, Any] | None, listed: Iterable[str]
) -> Decision:
    """The planted fault: an interrupted run (exit 2) judged like one that finished."""
    return decide(1 if exit_code == 2 else exit_code, record, listed)


def _answer(decision: Decision) -> str:
    if decision.retry:
        return "retried: " + ", ".join(decision.nodeids)
    return "refused: " + ", ".join(sorted({kind.value for kind, _ in decision.blockers}))


def _planted_interrupted_run() -> PlantedFault:
    listed = ["tests/test_spawn.py"]
    with tempfile.TemporaryDirectory(prefix="lanes-retry-self-check-interrupted-") as tmp:
        root = Path(tmp)
        _plant(root, "test_spawn.py", _INTERRUPTED_TEST)
        first = attempt(root, ["-q", "-p", "no:cacheprovider", "tests"], quiet=True)
    return judge(
        "an interrupted run (pytest exit 2) judged like a finished one: its listed "
        "timeouts become retryable",
        expected="refused: session-error",
        real=_answer(decide(first.exit, first.record, listed)),
        planted=_answer(_finished_or_not(first.exit, first.record, listed)),
    )


def run_self_check() -> RetrySelfCheck:
    """``{passed, expected, observed, planted}`` for the envelope."""
    if importlib.util.find_spec("pytest_timeout") is None:
        return {
            "passed": False,
            "expected": EXPECTED,
            "observed": {"error": "pytest-timeout is not installed"},
            "planted": [],
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
    planted = [_planted_interrupted_run()]
    announce("retry", planted)
    return {
        "passed": observed == EXPECTED and all(p["caught"] for p in planted),
        "expected": EXPECTED,
        "observed": observed,
        "planted": planted,
    }
