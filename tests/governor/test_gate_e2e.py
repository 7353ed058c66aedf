"""The issue's acceptance scenario, as a new user would try it: Claude Code
payloads piped into a real `lanes hook` process in a scratch git repository."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from lanes.governor.state.lock import parse_lock
from tests.governor.governor_helpers import make_repo
from tests.support.hooks import payload, run_hook

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.integration

UNIT = "pytest tests/unit -q"
PYPROJECT = '[tool.lanes.suites.unit]\npaths = ["tests/unit"]\ncommand = "pytest tests/unit -q"\n'


def test_acceptance_scenario(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", PYPROJECT)
    xdg = tmp_path / "xdg"
    state = repo / ".git" / "lanes"

    def hook(event: str, command: str, **extra: Any) -> subprocess.CompletedProcess[str]:
        return run_hook(payload(command, event=event, cwd=repo, **extra), xdg=xdg)

    # The first run is allowed and takes the lock.
    first = hook("PreToolUse", UNIT)
    assert (first.returncode, first.stdout, first.stderr) == (0, "", "")
    held = parse_lock((state / "test-run.lock").read_text(encoding="utf-8"))
    assert (held.suite, held.command) == ("unit", UNIT)

    # Its PostToolUse records PASS and frees the lock.
    done = hook("PostToolUse", UNIT, tool_response={"stdout": "1 passed"})
    assert done.returncode == 0
    assert not (state / "test-run.lock").exists()
    ledger = json.loads((state / "verify-ledger.json").read_text(encoding="utf-8"))
    assert ledger["unit"]["status"] == "PASS"

    # The same command again is blocked as green.
    again = hook("PreToolUse", UNIT)
    assert again.returncode == 2
    assert again.stderr.startswith("unit green ")
    assert "on this exact tree — reuse that result, or prefix LANES_TEST_FORCE=1" in again.stderr

    # A mention is not a run: allowed, records nothing, takes no lock.
    mention = hook("PreToolUse", f'echo "{UNIT}"')
    assert (mention.returncode, mention.stderr) == (0, "")
    assert not (state / "test-run.lock").exists()

    # After editing a file it is allowed.
    (repo / "tests/unit/test_a.py").write_text("def test_a():\n    assert 1\n", "utf-8")
    edited = hook("PreToolUse", UNIT)
    assert (edited.returncode, edited.stderr) == (0, "")
    assert hook("PostToolUseFailure", UNIT, error="Exit code 1\n1 failed").returncode == 0
    ledger = json.loads((state / "verify-ledger.json").read_text(encoding="utf-8"))
    assert ledger["unit"]["status"] == "FAIL"
    assert not (state / "test-run.lock").exists()

    # Bare pytest is blocked...
    bare = hook("PreToolUse", "pytest")
    assert bare.returncode == 2
    assert bare.stderr.startswith("full sweep blocked")
    # ...and allowed with the inline override, which is audited.
    override = 'LANES_FULL_SWEEP_OK=1 LANES_OVERRIDE_REASON="release candidate check" pytest'
    allowed = hook("PreToolUse", override)
    assert (allowed.returncode, allowed.stderr) == (0, "")
    audit = [json.loads(line) for line in (state / "audit.jsonl").read_text("utf-8").splitlines()]
    assert [a["reason"] for a in audit] == ["release candidate check"]


def test_two_hook_processes_racing_for_the_lock_one_wins(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", PYPROJECT)
    xdg = tmp_path / "xdg"
    lock = repo / ".git" / "lanes" / "test-run.lock"
    env = {
        key: value for key, value in os.environ.items() if not key.startswith(("LANES_", "CLAUDE_"))
    }
    env["XDG_STATE_HOME"] = str(xdg)
    # Warm the suite-word cache so both racers take the same path.
    run_hook(payload("ls", event="PostToolUse", cwd=repo), xdg=xdg)
    for round_ in range(6):
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "lanes", "hook"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                cwd=repo,
            )
            for _ in range(2)
        ]
        data = [
            json.dumps(
                payload(UNIT, event="PreToolUse", cwd=repo, session=f"s-{round_}-{i}-{side}")
            )
            for i, side in enumerate("ab")
        ]
        # Write both payloads before reading either: the two processes parse,
        # classify and reach the lock together.
        for proc, text in zip(procs, data, strict=True):
            assert proc.stdin is not None
            proc.stdin.write(text)
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.close()
        codes = sorted(proc.wait(timeout=60) for proc in procs)
        for proc in procs:
            assert proc.stdout is not None
            assert proc.stderr is not None
            proc.stdout.close()
            proc.stderr.close()
        assert codes == [0, 2], f"round {round_}: {codes}"
        lock.unlink()


def test_a_sigkilled_agents_lock_is_taken_at_once_by_the_next_run(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", PYPROJECT)
    xdg = tmp_path / "xdg"
    agent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        mine = payload(UNIT, event="PreToolUse", cwd=repo, session="agent-one-0001")
        assert run_hook(mine, xdg=xdg, env={"CLAUDE_PID": str(agent.pid)}).returncode == 0
        sibling = payload(UNIT, event="PreToolUse", cwd=repo, session="agent-two-0002")
        blocked = run_hook(sibling, xdg=xdg)
        assert blocked.returncode == 2
        assert f"pid {agent.pid}" in blocked.stderr
        agent.send_signal(signal.SIGKILL)
        agent.wait()
        taken = run_hook(sibling, xdg=xdg)
        assert (taken.returncode, taken.stderr) == (0, "")
    finally:
        agent.kill()
        agent.wait()


def test_a_configured_envelope_dir_never_stales_a_pass(tmp_path: Path) -> None:
    # A lane run writes its envelope into the project's envelope_dir; with a
    # directory of the user's choosing (not the default envelopes/, and not
    # git-ignored) every PASS used to turn stale, and the suite ran again.
    config = '[tool.lanes]\nenvelope_dir = "reports/lanes"\n\n' + PYPROJECT
    repo = make_repo(tmp_path / "repo", config)
    xdg = tmp_path / "xdg"

    def hook(event: str, **extra: Any) -> subprocess.CompletedProcess[str]:
        return run_hook(payload(UNIT, event=event, cwd=repo, **extra), xdg=xdg)

    assert hook("PreToolUse").returncode == 0
    assert hook("PostToolUse", tool_response={"stdout": "1 passed"}).returncode == 0
    lane_output = repo / "reports" / "lanes" / "slow.json"
    lane_output.parent.mkdir(parents=True)
    lane_output.write_text("{}", encoding="utf-8")
    again = hook("PreToolUse")
    assert again.returncode == 2, again.stderr
    assert again.stderr.startswith("unit green ")
    # Anything else in reports/ is the user's own: it still changes the tree.
    (repo / "reports" / "notes.txt").write_text("mine", encoding="utf-8")
    assert hook("PreToolUse").returncode == 0
