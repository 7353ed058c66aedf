"""The watchdog reports each way a target can break the invariant, and survives it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from typing import TYPE_CHECKING

import pytest

from lanes.errors import ConfigError
from lanes.fuzz.selfcheck import SELF_CHECK_TARGETS
from lanes.fuzz.targets import Target
from lanes.fuzz.watchdog import Watchdog
from tests.support.processes import alive

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.integration  # every test starts real worker processes

_BY_NAME = {target.name: target for target in SELF_CHECK_TARGETS}


def _module_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, *, may_reject: bool = True
) -> Target:
    """A target whose callable lives in a fresh module under tmp_path (importable by the worker)."""
    name = f"fuzz_probe_{abs(hash(source)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return Target(
        name="probe", callable=f"{name}:target", strategy="unused:unused", may_reject=may_reject
    )


def test_untyped_exception_is_reported_with_its_type() -> None:
    with Watchdog(_BY_NAME["untyped-throw"], budget=5) as watchdog:
        outcome = watchdog.run("anything")
    assert outcome.kind == "untyped"
    assert outcome.error_type == "KeyError"
    assert "untyped_throw" in outcome.detail


def test_blank_hint_is_reported() -> None:
    with Watchdog(_BY_NAME["blank-hint"], budget=5) as watchdog:
        outcome = watchdog.run("x")
    assert outcome.kind == "empty-hint"
    assert outcome.detail == "hint = '   '"


def test_typed_rejection_with_hint_is_clean() -> None:
    with Watchdog(_BY_NAME["well-behaved"], budget=5) as watchdog:
        assert watchdog.run("123").kind == "rejected"
        assert watchdog.run("abc").kind == "ok"


def test_wedged_case_is_a_stall_and_the_next_case_runs_in_a_fresh_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _module_target(
        tmp_path,
        monkeypatch,
        """
        import threading

        def target(value):
            if value == "hang":
                threading.Event().wait()
        """,
    )
    with Watchdog(target, budget=0.3) as watchdog:
        stalled = watchdog.run("hang")
        after = watchdog.run("fine")
    assert stalled.kind == "stall"
    assert after.kind == "ok"
    assert watchdog.restarts == 1


def test_worker_death_is_a_crash_attributed_to_the_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _module_target(
        tmp_path,
        monkeypatch,
        """
        import os

        def target(value):
            if value == "die":
                os._exit(7)
        """,
    )
    with Watchdog(target, budget=5) as watchdog:
        crashed = watchdog.run("die")
        after = watchdog.run("live")
    assert crashed.kind == "crash"
    assert "exit code 7" in crashed.message
    assert after.kind == "ok"


def test_start_up_time_is_not_charged_to_the_first_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The module takes three budgets to import; the first case must still pass.
    target = _module_target(
        tmp_path,
        monkeypatch,
        """
        import time

        time.sleep(0.9)

        def target(value):
            return value
        """,
    )
    with Watchdog(target, budget=0.3) as watchdog:
        assert watchdog.run("first").kind == "ok"


def test_classifier_like_target_may_not_reject_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _module_target(
        tmp_path,
        monkeypatch,
        """
        from lanes.errors import UsageError

        def target(value):
            raise UsageError("no", hint="a hint does not make it acceptable")
        """,
        may_reject=False,
    )
    with Watchdog(target, budget=5) as watchdog:
        assert watchdog.run("x").kind == "unexpected-rejection"


def test_unimportable_target_is_a_config_error_naming_the_key() -> None:
    target = Target(
        name="mine",
        callable="no_such_module_here:parse",
        strategy="x:y",
        origin="[tool.lanes.fuzz.targets.mine]",
    )
    with pytest.raises(ConfigError) as caught, Watchdog(target, budget=5) as watchdog:
        watchdog.start()
    assert "[tool.lanes.fuzz.targets.mine] callable" in caught.value.message
    assert caught.value.hint.strip()


_ORPHAN_PARENT = """
from lanes.fuzz.targets import Target
from lanes.fuzz.watchdog import Watchdog

watchdog = Watchdog(Target(name="w", callable="lanes.fuzz.selfcheck:wedged", strategy="x:y"), budget=600)
watchdog.start()
print(watchdog._process.pid, flush=True)
watchdog.run("hang")
"""


def test_a_wedged_worker_exits_when_its_parent_is_killed() -> None:
    # SIGKILL gives the parent no chance to clean up; the worker must notice
    # on its own instead of hanging in the case forever.
    with subprocess.Popen(
        [sys.executable, "-c", _ORPHAN_PARENT], stdout=subprocess.PIPE, text=True
    ) as parent:
        assert parent.stdout is not None
        worker = int(parent.stdout.readline())
        parent.kill()
    for _ in range(100):
        if not alive(worker):
            break
        time.sleep(0.1)
    assert not alive(worker)


_CTRL_C_PARENT = """
import signal, time
# A suite run as a background job hands its children SIGINT ignored, and
# Python then installs no KeyboardInterrupt handler; an interactive parent,
# the case under test, has it. The suite must pass however CI starts it.
signal.signal(signal.SIGINT, signal.default_int_handler)
from lanes.fuzz.targets import Target
from lanes.fuzz.watchdog import Watchdog

with Watchdog(Target(name="t", callable="json:loads", strategy="x:y"), budget=5) as watchdog:
    watchdog.start()
    print("ready", flush=True)
    time.sleep(60)
"""


def test_ctrl_c_is_the_parents_to_handle_not_the_workers() -> None:
    # Ctrl-C signals the whole process group: the lane stops its worker; a
    # worker dying of it on its own only adds a confusing second traceback.
    with subprocess.Popen(
        [sys.executable, "-c", _CTRL_C_PARENT],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as parent:
        assert parent.stdout is not None
        assert parent.stdout.readline() == "ready\n"
        os.killpg(parent.pid, signal.SIGINT)
        _, stderr = parent.communicate(timeout=30)
    assert "KeyboardInterrupt" in stderr  # the parent's own
    assert "_worker.py" not in stderr
