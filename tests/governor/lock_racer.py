"""A real process racing for the run lock (driven by test_lock.py).

argv: STATE_DIR NAME OTHER ROUNDS. For each round r, this process announces
itself (``ready-r-NAME``), waits until OTHER has announced too, then calls
``acquire`` on that round's lock: both processes enter ``acquire`` together,
round after round. It prints one line per round: ``r 1`` (acquired) or ``r 0``.

Every odd round starts from an *expired* lock (planted by process "a" before
it announces itself), so both racers must break it: without the guard, one
could unlink the lock the other had just created and both would win.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from lanes.governor.state.env import OSEnvironment
from lanes.governor.state.lock import acquire

EXPIRED = json.dumps(
    {
        "suite": "unit", "agent": "gone", "session_tail": "old", "agent_pid": 1,
        "agent_start": "1", "boot_id": "", "host": "elsewhere", "started_ts": 0.0,
        "token": "stale", "command": "pytest",
    }
)  # fmt: skip


def main() -> int:
    state, name, other, rounds = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
    env = OSEnvironment()
    out = []
    for r in range(rounds):
        lock = str(state / f"round-{r}.lock")
        if name == "a" and r % 2:
            (state / f"round-{r}.lock").write_text(EXPIRED, encoding="utf-8")
        (state / f"ready-{r}-{name}").touch()
        deadline = time.monotonic() + 10
        while not (state / f"ready-{r}-{other}").exists():
            if time.monotonic() > deadline:
                return 3
            time.sleep(0)
        result = acquire(
            env,
            lock,
            lock + ".guard",
            suite="unit",
            agent=name,
            session_tail=f"session-{name}",
            agent_pid=os.getpid(),
            command="pytest tests/unit",
        )
        out.append(f"{r} {int(result.acquired)}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
